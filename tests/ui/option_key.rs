use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: Option<String>,
}

fn main() {}
