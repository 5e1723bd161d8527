//! Keeps a `TeamStats { team_id, members }` item up to date from the teams table's change
//! stream: each membership created counts one, each one removed (or expired) counts one
//! less.
//!
//! `cargo run --example team_counts` (or with `DYNAMODB_ENDPOINT` set). The tables are
//! left in place, so you can look at their items.
//!
//! Delivery is at least once, so every count is a conditional update that also records
//! the change's event id in the stats item: a replayed record fails the condition and
//! counts nothing. The second pass below replays the whole stream to show it.

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::Utc;
use dynorm::Model;
use dynorm_streams::{ChangeKind, MemoryCheckpoints, ModelChange};
use futures::StreamExt;

/// A team, in the shared table.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Teams", entity = "team", stream = "new_and_old_images")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
pub struct Team {
    pub team_id: String,
    pub name: String,
}

/// A user's membership of a team, in the same table.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Teams", entity = "membership", stream = "new_and_old_images")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
pub struct Membership {
    pub team_id: String,
    pub user_id: String,
}

dynorm::shared_table! {
    /// The teams table, whose stream carries both images.
    pub struct TeamsTable { Team, Membership }
}

/// The count kept from the stream. The item also holds `applied`, the string set of the
/// event ids already counted, which the model does not read.
#[derive(Model, Debug, Clone, PartialEq)]
pub struct TeamStats {
    #[hash_key]
    pub team_id: String,
    pub members: i64,
}

/// Applies one change to the counts; `Ok(false)` when it was applied before.
async fn apply(db: &dynorm::Client, change: &ModelChange<Membership>) -> Result<bool, String> {
    let (team, delta) = match &change.kind {
        ChangeKind::Insert { new } => (&new.team_id, 1),
        ChangeKind::Remove { old } | ChangeKind::Expire { old } => (&old.team_id, -1),
        // A membership's key never changes, so a modification moves no count.
        ChangeKind::Modify { .. } => return Ok(false),
    };
    let result = db
        .sdk()
        .update_item()
        .table_name(db.tables().name::<TeamStats>())
        .key("team_id", AttributeValue::S(team.clone()))
        .update_expression("ADD #members :delta, #applied :event")
        .condition_expression("attribute_not_exists(#applied) OR NOT contains(#applied, :id)")
        .expression_attribute_names("#members", "members")
        .expression_attribute_names("#applied", "applied")
        .expression_attribute_values(":delta", AttributeValue::N(delta.to_string()))
        .expression_attribute_values(":event", AttributeValue::Ss(vec![change.event_id.clone()]))
        .expression_attribute_values(":id", AttributeValue::S(change.event_id.clone()))
        .send()
        .await;
    match result {
        Ok(_) => Ok(true),
        Err(e) => {
            let error = dynorm::Error::service(e);
            if error.kind() == dynorm::ErrorKind::ConditionFailed {
                Ok(false) // a replay: counted already
            } else {
                Err(error.to_string())
            }
        }
    }
}

/// Reads the stream to its current end, applying every change; returns (applied, replayed).
async fn consume(
    db: &dynorm::Client,
    checkpoints: MemoryCheckpoints,
) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let tally = dynorm::observe::Tally::default();
    let mut changes = dynorm_streams::changes::<Membership>(db)
        .tally(&tally)
        .consumer("team-counts")
        .checkpoints(checkpoints)
        .poll_interval(Duration::from_millis(200))
        .stop_when_idle(Duration::from_secs(1))
        .stream();
    let (mut applied, mut replayed) = (0, 0);
    while let Some(change) = changes.next().await {
        let change = change?;
        if apply(db, &change).await? {
            applied += 1;
            let (team, user) = match &change.kind {
                ChangeKind::Insert { new } => (&new.team_id, &new.user_id),
                ChangeKind::Modify { new, .. } => (&new.team_id, &new.user_id),
                ChangeKind::Remove { old } | ChangeKind::Expire { old } => {
                    (&old.team_id, &old.user_id)
                }
            };
            println!(
                "applied {:<6} team {team} user {user} (sequence {})",
                change.kind_name(),
                change.sequence_number
            );
        } else {
            replayed += 1;
        }
    }
    println!(
        "  ({} team items on the same table skipped)",
        tally.skipped()
    );
    Ok((applied, replayed))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("team_counts_{}_", Utc::now().timestamp_millis()))
        .build();
    db.tables().create_shared::<TeamsTable>().send().await?;
    db.tables().ensure::<TeamStats>().send().await?;

    for (team, name) in [("t1", "Core"), ("t2", "Docs")] {
        db.create(&Team {
            team_id: team.into(),
            name: name.into(),
        })
        .send()
        .await?;
    }
    for (team, user) in [("t1", "ada"), ("t1", "bob"), ("t1", "cy"), ("t2", "ada")] {
        db.create(&Membership {
            team_id: team.into(),
            user_id: user.into(),
        })
        .send()
        .await?;
    }
    db.delete::<Membership>(MembershipKey {
        team_id: "t1".into(),
        user_id: "bob".into(),
    })
    .send()
    .await?;

    println!("== first pass");
    let (applied, _) = consume(&db, MemoryCheckpoints::new()).await?;
    println!("== replay of the whole stream, with no checkpoints");
    let (again, replayed) = consume(&db, MemoryCheckpoints::new()).await?;
    println!("applied {applied} changes; the replay applied {again} and recognised {replayed}");

    println!("== counts");
    for team in ["t1", "t2"] {
        let stats = db
            .get::<TeamStats>(team)
            .consistent_read(true)
            .send()
            .await?;
        let members = stats.map_or(0, |s| s.members);
        println!("team {team}: {members} members");
    }
    println!(
        "tables left in place: {}, {}",
        db.tables().name::<Team>(),
        db.tables().name::<TeamStats>()
    );
    Ok(())
}
