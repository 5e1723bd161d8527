use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byStatus", project = ["total"])]
    status: String,
    total: f64,
    note: Option<String>,
}

fn read(item: OrderByStatusItem) -> Option<String> {
    item.note
}

fn main() {}
