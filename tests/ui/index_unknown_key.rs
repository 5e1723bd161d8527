use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byA", rang_key = "a")]
    status: String,
    a: String,
}

fn main() {}
