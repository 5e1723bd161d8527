use dynorm::{Collection, Model};

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
}

#[derive(Model)]
#[dynorm(table = "App", entity = "membership")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
struct Membership {
    team_id: String,
    user_id: String,
}

#[derive(Collection)]
enum TeamWithMembers {
    Team(Team),
    Member { membership: Membership },
}

// The collection and its key enum are still usable, so the one mistake gives one error.
async fn f(db: dynorm::Client) {
    let _ = db.collection::<TeamWithMembers>("t1");
    let _: Option<TeamWithMembersKey> = None;
}

fn main() {}
