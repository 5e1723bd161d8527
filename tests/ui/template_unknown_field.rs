use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team}", sk = "#METADATA")]
struct Team {
    team_id: String,
    name: String,
}

fn main() {}
