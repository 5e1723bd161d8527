use dynorm::Model;

// A list of fields is ElectroDB's default key, which needs its service and version.
#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = [team_id], sk = "#METADATA")]
struct Team {
    team_id: String,
}

fn main() {}
