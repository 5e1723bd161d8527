use dynorm::{Collection, Model};

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

// Its partition key is `USER#..`: the collection's query, on `TEAM#..`, would never find it.
#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "membership")]
#[key(pk = "USER#{user_id}", sk = "TEAM#{team_id}")]
struct Membership {
    user_id: String,
    team_id: String,
}

#[derive(Collection, Debug)]
enum TeamWithMembers {
    Team(Team),
    Member(Membership),
}

fn main() {}
