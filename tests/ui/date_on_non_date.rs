use dynorm::Model;

#[derive(Model)]
struct Event {
    #[hash_key]
    id: String,
    #[dynorm(date = "millis")]
    n: i64,
}

fn main() {}
