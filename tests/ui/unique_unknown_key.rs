use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "User")]
struct User {
    #[hash_key]
    id: String,
    team: String,
    #[unique(scop = team)]
    handle: String,
}

fn main() {}
