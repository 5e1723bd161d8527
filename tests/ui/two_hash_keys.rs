use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    #[hash_key]
    email: String,
}

fn main() {}
