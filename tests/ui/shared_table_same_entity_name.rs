use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "ARCHIVE#{team_id}", sk = "#METADATA")]
struct ArchivedTeam {
    team_id: String,
}

dynorm::shared_table!(struct App { Team, ArchivedTeam });

fn main() {}
