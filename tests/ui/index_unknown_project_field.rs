use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus", project = ["totl"])]
    status: String,
    total: f64,
}

fn main() {}
