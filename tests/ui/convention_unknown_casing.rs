use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA", casing = "lowercase")]
struct Team {
    team_id: String,
}

fn main() {}
