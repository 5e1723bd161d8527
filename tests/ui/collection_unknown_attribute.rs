use dynorm::{Collection, Model};

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

#[derive(Collection)]
#[dynorm(table = "App")]
enum Teams {
    Team(Team),
}

fn main() {}
