use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus")]
    status: String,
    #[index(name = "by_status")]
    state: String,
}

fn main() {}
