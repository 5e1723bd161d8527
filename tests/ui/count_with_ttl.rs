use dynorm::Model;

#[derive(Model)]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
}

#[derive(Model)]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
struct Invite {
    #[hash_key]
    id: String,
    team: String,
    #[ttl]
    expires_at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
