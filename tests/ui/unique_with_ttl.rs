use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "Session")]
struct Session {
    #[hash_key]
    id: String,
    #[unique]
    token: String,
    #[ttl]
    expires_at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
