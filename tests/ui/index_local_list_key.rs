use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[range_key]
    sk: String,
    #[index(name = "byTags", local)]
    tags: Vec<String>,
}

fn main() {}
