use dynorm::Model;

// `scope` changes ElectroDB's default partition key; a custom template ignores it.
#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = "TEAM#{team_id}", sk = [], scope = "org")]
struct Team {
    team_id: String,
}

fn main() {}
