use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team", service = "app")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
