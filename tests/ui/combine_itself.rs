use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    customer_id: String,
    month: String,
    #[range_key]
    #[combine(fields = [month, month_status], sep = "#")]
    month_status: String,
}

fn main() {}
