use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "Users")]
struct User {
    #[hash_key]
    id: String,
    #[unique]
    email: String,
}

fn main() {}
