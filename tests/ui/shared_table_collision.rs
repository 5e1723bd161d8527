use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "ORG#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

// `ORG#` starts both partition keys, and `#META` starts `#METADATA`: a project whose
// `project_id` is `DATA` would land on a team's key.
#[derive(Model)]
#[dynorm(table = "App", entity = "project")]
#[key(pk = "ORG#{org_id}", sk = "#META{project_id}")]
struct Project {
    org_id: String,
    project_id: String,
}

dynorm::shared_table!(struct App { Team, Project });

fn main() {}
