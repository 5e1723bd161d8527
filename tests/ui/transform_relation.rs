use dynorm::Model;

fn upper(value: String) -> String {
    value.to_uppercase()
}

// A relation compares its references with the related model's values as given: a
// reference stored through a transform would never match.
#[derive(Model)]
#[dynorm(table = "Shop")]
struct Team {
    #[hash_key]
    #[dynorm(set = upper)]
    team_id: String,
}

#[derive(Model)]
#[dynorm(table = "Shop")]
#[relation(name = "team", one = Team, fields = [team_id], references = [team_id])]
struct Member {
    #[hash_key]
    id: String,
    team_id: String,
}

fn main() {}
