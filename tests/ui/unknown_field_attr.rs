use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    #[dynorm(renam = "x")]
    name: String,
}

fn main() {}
