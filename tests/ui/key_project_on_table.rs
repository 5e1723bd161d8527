use dynorm::Model;

// `project` says what an index holds; the table holds every attribute.
#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = [team_id], sk = [], project = false)]
struct Team {
    team_id: String,
}

fn main() {}
