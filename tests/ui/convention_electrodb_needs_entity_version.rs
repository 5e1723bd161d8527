use dynorm::Model;

// ElectroDB's ownership check compares the version, so the model must give it.
#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
