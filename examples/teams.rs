//! The single-table many-to-many design of the ElectroDB page: Team, User and Membership
//! in one table with one GSI, and the access patterns AP1 to AP5.
//!
//! `cargo run --example teams` (or with `DYNAMODB_ENDPOINT` set). The table is left in
//! place, so you can look at its items.

use chrono::{DateTime, Utc};
use dynorm::Request;
use dynorm::{Collection, Model};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Admin,
    Member,
}

/// Team metadata, under its own partition.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "team", rename_all = "camelCase")]
#[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
pub struct Team {
    pub team_id: String,
    pub name: String,
    /// Set when the team is created, and never by an update.
    #[dynorm(default = "now", read_only)]
    pub created_at: Option<DateTime<Utc>>,
    /// Set on every write.
    #[dynorm(updated_at)]
    pub updated_at: Option<DateTime<Utc>>,
}

/// A user profile, under its own partition.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "user", rename_all = "camelCase")]
#[key(pk = "USER#{user_id}", sk = "#METADATA")]
pub struct User {
    pub user_id: String,
    pub name: String,
    pub email: String,
}

/// The edge: stored under the team's partition, and indexed by user on GSI1.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TeamsApp", entity = "membership", rename_all = "camelCase")]
#[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
#[key(index = "GSI1", gsi1pk = "USER#{user_id}", gsi1sk = "TEAM#{team_id}")]
pub struct Membership {
    pub team_id: String,
    pub user_id: String,
    pub role: Role,
    #[dynorm(default = "now", read_only)]
    pub joined_at: Option<DateTime<Utc>>,
}

dynorm::shared_table! {
    /// The one table, with GSI1: checked at compile time.
    pub struct TeamsApp { Team, User, Membership }
}

/// AP4: a team's metadata and its members, in one query.
#[derive(Collection, Debug)]
pub enum TeamWithMembers {
    Team(Team),
    Member(Membership),
}

fn team(id: &str, name: &str) -> Team {
    Team {
        team_id: id.into(),
        name: name.into(),
        created_at: None,
        updated_at: None,
    }
}

fn user(id: &str, name: &str, email: &str) -> User {
    User {
        user_id: id.into(),
        name: name.into(),
        email: email.into(),
    }
}

fn membership(team_id: &str, user_id: &str, role: Role) -> Membership {
    Membership {
        team_id: team_id.into(),
        user_id: user_id.into(),
        role,
        joined_at: None,
    }
}

fn text(item: &dynorm::Item, name: &str) -> String {
    match item.get(name) {
        Some(dynorm::types::AttributeValue::S(s)) => s.clone(),
        _ => "—".into(),
    }
}

#[tokio::main]
async fn main() -> Result<(), dynorm::Error> {
    let db = dynorm_test::local::client()
        .await?
        .to_builder()
        .table_prefix(format!("teams_{}_", Utc::now().timestamp_millis()))
        .build();
    db.tables().create_shared::<TeamsApp>().send().await?;
    println!(
        "table {} (pk, sk, GSI1 on gsi1pk/gsi1sk)",
        db.tables().name::<Team>()
    );

    // The sample data.
    for t in [team("t_eng", "Engineering"), team("t_design", "Design")] {
        db.create(&t).send().await?;
    }
    for u in [
        user("u_alice", "Alice Chen", "alice@example.com"),
        user("u_bob", "Bob Park", "bob@example.com"),
    ] {
        db.create(&u).send().await?;
    }
    for m in [
        membership("t_eng", "u_alice", Role::Owner),
        membership("t_eng", "u_bob", Role::Member),
        membership("t_design", "u_alice", Role::Admin),
    ] {
        db.create(&m).send().await?;
    }

    println!(
        "{:<15} {:<16} {:<14} {:<14} entity",
        "pk", "sk", "gsi1pk", "gsi1sk"
    );
    let mut items = db
        .sdk()
        .scan()
        .table_name(db.tables().name::<Team>())
        .send()
        .await
        .map_err(dynorm::Error::service)?
        .items
        .unwrap_or_default();
    items.sort_by_key(|i| (text(i, "pk"), text(i, "sk")));
    for item in &items {
        println!(
            "{:<15} {:<16} {:<14} {:<14} {}",
            text(item, "pk"),
            text(item, "sk"),
            text(item, "gsi1pk"),
            text(item, "gsi1sk"),
            text(item, "__entity")
        );
    }

    // AP1: all members of a team: Query(pk = TEAM#t_eng, sk begins_with MEMBER#).
    let members = db.query_by::<Membership>("t_eng").all().await?;
    println!("\nAP1 members of t_eng:");
    for m in &members {
        println!("  {} ({:?})", m.user_id, m.role);
    }

    // AP2: all teams of a user: Query(GSI1, gsi1pk = USER#u_alice).
    let teams = db.query_by::<MembershipGSI1>("u_alice").all().await?;
    println!("AP2 teams of u_alice:");
    for m in &teams {
        println!(
            "  {} ({:?}, joined {})",
            m.team_id,
            m.role,
            m.joined_at.map(|d| d.to_rfc3339()).unwrap_or_default()
        );
    }

    // AP3: is a user in a team? GetItem(pk = TEAM#t_eng, sk = MEMBER#u_alice).
    let key = MembershipKey {
        team_id: "t_eng".into(),
        user_id: "u_alice".into(),
    };
    match db.get::<Membership>(key).send().await? {
        Some(m) => println!("AP3 u_alice in t_eng: yes, as {:?}", m.role),
        None => println!("AP3 u_alice in t_eng: no"),
    }

    // AP4: team metadata and all members, in one query.
    let tally = dynorm::observe::Tally::default();
    let dashboard = db
        .collection::<TeamWithMembers>("t_eng")
        .tally(&tally)
        .all()
        .await?;
    println!(
        "AP4 t_eng dashboard ({} items, {} of other entities skipped):",
        dashboard.len(),
        tally.skipped()
    );
    for item in &dashboard {
        match item {
            TeamWithMembers::Team(t) => println!("  team {} ({})", t.name, t.team_id),
            TeamWithMembers::Member(m) => println!("  member {} ({:?})", m.user_id, m.role),
        }
    }

    // AP5: remove Bob from Engineering: DeleteItem(pk = TEAM#t_eng, sk = MEMBER#u_bob).
    db.delete::<Membership>(MembershipKey {
        team_id: "t_eng".into(),
        user_id: "u_bob".into(),
    })
    .require_exists(true)
    .send()
    .await?;
    let left = db.query_by::<Membership>("t_eng").all().await?;
    println!("AP5 removed u_bob; t_eng now has {} member(s)", left.len());
    println!(
        "\ntable {} is left in place (on the embedded server they go when the process ends; see the README: Examples and their tables)",
        db.tables().name::<Team>(),
    );
    Ok(())
}
