use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team", convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = [team_id], sk = [])]
struct Team {
    team_id: String,
    #[dynorm(rename = "__edb_v__")]
    revision: String,
}

fn main() {}
