use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(range_key = "a")]
    status: String,
    a: String,
}

fn main() {}
