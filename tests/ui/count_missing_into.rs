use dynorm::Model;

#[derive(Model)]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
}

#[derive(Model)]
#[count(parent = Team, fields = [team], references = [id])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
}

fn main() {}
