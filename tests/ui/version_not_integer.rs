use dynorm::Model;

#[derive(Model)]
struct Account {
    #[hash_key]
    id: String,
    #[version]
    version: String,
}

fn main() {}
