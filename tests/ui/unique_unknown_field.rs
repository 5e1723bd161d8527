use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "User")]
#[unique(fields = [first, lsat])]
struct User {
    #[hash_key]
    id: String,
    first: String,
    last: String,
}

fn main() {}
