use dynorm::Model;

#[derive(Model)]
struct User {
    #[hash_key]
    id: String,
    team: String,
    #[unique(scop = team)]
    handle: String,
}

fn main() {}
