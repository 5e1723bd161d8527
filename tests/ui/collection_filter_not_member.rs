use dynorm::{Collection, Model};

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
    name: String,
}

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "membership")]
#[key(pk = "TEAM#{team_id}", sk = "USER#{user_id}")]
struct Membership {
    user_id: String,
    team_id: String,
}

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "invoice")]
#[key(pk = "TEAM#{team_id}", sk = "INVOICE#{number}")]
struct Invoice {
    team_id: String,
    number: String,
}

#[derive(Collection, Debug)]
enum TeamWithMembers {
    Team(Team),
    Member(Membership),
}

// A filter of a collection names the attributes of one of its entities.
async fn read(db: dynorm::Client) {
    let _ = db
        .collection::<TeamWithMembers>("t1")
        .filter(Invoice::NUMBER.eq("7"))
        .all()
        .await;
}

fn main() {}
