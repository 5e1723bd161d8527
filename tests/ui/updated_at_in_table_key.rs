use dynorm::Model;

// `updated_at` changes on every write: in the table's key, every write would move the item.
#[derive(Model)]
#[dynorm(table = "App", entity = "event")]
#[key(pk = "ORG#{org}", sk = "AT#{updated_at}")]
struct Event {
    org: String,
    #[dynorm(updated_at)]
    updated_at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
