use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}")]
struct Team {
    #[hash_key]
    team_id: String,
}

fn main() {}
