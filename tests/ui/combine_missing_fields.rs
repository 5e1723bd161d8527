use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    a: String,
    #[combine(sep = "#")]
    label: String,
}

fn main() {}
