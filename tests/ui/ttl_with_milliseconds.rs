use chrono::{DateTime, Utc};
use dynorm::Model;

#[derive(Model)]
struct Session {
    #[hash_key]
    id: String,
    #[ttl]
    #[dynorm(date = "milliseconds")]
    expires: DateTime<Utc>,
}

fn main() {}
