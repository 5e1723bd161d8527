use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA", casing = "none")]
struct Team {
    team_id: String,
}

// Written by dynorm's own convention: ElectroDB would not see these items as its own.
#[derive(Model)]
#[dynorm(table = "App", entity = "membership")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
struct Membership {
    team_id: String,
    user_id: String,
}

dynorm::shared_table!(struct App { Team, Membership });

fn main() {}
