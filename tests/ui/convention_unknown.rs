use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electro")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
