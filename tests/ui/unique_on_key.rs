use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "User")]
struct User {
    #[hash_key]
    #[unique]
    id: String,
    email: String,
}

fn main() {}
