use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    #[index(name = "byId", local)]
    id: String,
    #[range_key]
    sk: String,
}

fn main() {}
