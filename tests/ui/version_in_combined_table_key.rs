use dynorm::Model;

// The #[version] changes on every write: in the table's key, every write would move the item.
#[derive(Model)]
struct Doc {
    #[hash_key]
    id: String,
    #[range_key]
    #[combine(fields = [id, version], sep = "#")]
    revision: String,
    #[version]
    version: u64,
}

fn main() {}
