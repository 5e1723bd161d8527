use dynorm::Model;

#[derive(Model)]
struct Session {
    #[hash_key]
    id: String,
    #[ttl]
    expires: i64,
}

fn main() {}
