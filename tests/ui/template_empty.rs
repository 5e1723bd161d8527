use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "")]
struct Team {
    team_id: String,
}

fn main() {}
