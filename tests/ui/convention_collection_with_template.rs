use dynorm::Model;

// `collection` changes ElectroDB's default sort key; a custom template ignores it.
#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = [team_id], sk = "#METADATA", collection = "teamWithMembers")]
struct Team {
    team_id: String,
}

fn main() {}
