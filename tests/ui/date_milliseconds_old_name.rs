use chrono::{DateTime, Utc};
use dynorm::Model;

#[derive(Model)]
struct Event {
    #[hash_key]
    id: String,
    #[dynorm(date = "millis")]
    at: DateTime<Utc>,
}

fn main() {}
