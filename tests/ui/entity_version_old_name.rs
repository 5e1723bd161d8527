use dynorm::Model;

// ElectroDB's entity version is `entity_version`; `#[version]` on a field is optimistic locking.
#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", version = "1")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
