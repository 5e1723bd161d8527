use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    name: String,
}

fn main() {
    let _ = UserKey { id: 5 };
}
