use dynorm::Model;

#[derive(Model)]
struct Account {
    #[hash_key]
    #[version]
    id: u64,
    balance: i64,
}

fn main() {}
