use dynorm::Model;

#[derive(Model)]
struct Event {
    #[hash_key]
    id: String,
    #[dynorm(date = "milliseconds")]
    n: i64,
}

fn main() {}
