use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

// Keyed by fields, not templates: it cannot tell its items from a team's.
#[derive(Model)]
#[dynorm(table = "App")]
struct Audit {
    #[hash_key]
    pk: String,
    #[range_key]
    sk: String,
}

dynorm::shared_table!(struct App { Team, Audit });

fn main() {}
