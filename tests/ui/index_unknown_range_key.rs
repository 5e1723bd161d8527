use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus", range_key = "placed")]
    status: String,
    placed_at: String,
}

fn main() {}
