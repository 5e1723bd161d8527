use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    name: String,
    #[dynorm(rename = "name")]
    display_name: String,
}

fn main() {}
