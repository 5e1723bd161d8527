use dynorm::Model;

#[derive(Model)]
#[dynorm(shape = 1)]
struct User {
    #[hash_key]
    id: String,
    #[dynorm(rename = "__shape")]
    layout: String,
}

fn main() {}
