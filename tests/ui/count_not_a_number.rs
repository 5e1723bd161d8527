use dynorm::Model;

#[derive(Model)]
struct Team {
    #[hash_key]
    id: String,
    name: String,
}

#[derive(Model)]
#[count(parent = Team, into = name, fields = [team], references = [id])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
}

fn main() {}
