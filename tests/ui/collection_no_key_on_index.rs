use dynorm::{Collection, Model};

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
#[key(index = "GSI1", gsi1pk = "ORG#{org}", gsi1sk = "TEAM#{team_id}")]
struct Team {
    team_id: String,
    org: String,
}

// No key on `GSI1`: the collection's query of it could not find a member.
#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "membership")]
#[key(pk = "TEAM#{team_id}", sk = "USER#{user_id}")]
struct Membership {
    user_id: String,
    team_id: String,
}

#[derive(Collection, Debug)]
#[dynorm(index = "GSI1")]
enum OrgTeams {
    Team(Team),
    Member(Membership),
}

fn main() {}
