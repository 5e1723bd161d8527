use dynorm::Model;

#[derive(Model)]
struct Account {
    #[hash_key]
    id: String,
    #[version]
    version: u64,
    #[version]
    revision: u64,
}

fn main() {}
