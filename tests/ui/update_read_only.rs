use chrono::{DateTime, Utc};
use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "team")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
struct Team {
    team_id: String,
    #[dynorm(default = "now", read_only)]
    created_at: Option<DateTime<Utc>>,
}

async fn f(db: dynorm::Client) {
    let _ = db.update::<Team>("t1").set(Team::CREATED_AT, Utc::now());
}

fn main() {}
