use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    #[unique]
    id: String,
    email: String,
}

fn main() {}
