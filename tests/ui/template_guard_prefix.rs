use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "$unique#{team_id}", sk = "TEAM")]
struct Team {
    team_id: String,
}

fn main() {}
