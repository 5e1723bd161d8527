use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    customer_id: String,
    month: String,
    status: String,
    #[range_key]
    #[combine(fields = [month, stauts], sep = "#")]
    month_status: String,
}

fn main() {}
