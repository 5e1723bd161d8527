use dynorm::{Collection, Model};

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
#[key(index = "GSI1", gsi1pk = "TEAM#{team_id}", gsi1sk = "#METADATA")]
struct Team {
    team_id: String,
}

#[derive(Collection)]
#[dynorm(index = "GSI1")]
enum Teams {
    Team(Box<Team>),
}

fn main() {}
