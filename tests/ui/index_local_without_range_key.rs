use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byPlacedAt", local)]
    placed_at: String,
}

fn main() {}
