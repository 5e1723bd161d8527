use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    a: String,
    #[combine(fields = [a], seperator = "#")]
    label: String,
}

fn main() {}
