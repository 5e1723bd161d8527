use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1", timestamps)]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
