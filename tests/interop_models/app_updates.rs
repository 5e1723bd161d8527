//! ElectroDB's `Organization` of its `.composite()` examples and `tasks` of its update
//! examples, and those examples said in dynorm (`tests/interop/conformance/organizations.js`
//! and `task_updates.js`). Both store the time of writing, which the conformance run fixes.

use chrono::{DateTime, Utc};
use dynorm::{Client, Error, Model};
use serde::{Deserialize, Serialize};

/// An organization: `gsi1sk` is built from `deleted` and the read-only `created_at`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "Organizations",
    entity = "organization",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "app", entity_version = "1")]
#[key(pk = [id], sk = [])]
#[key(index = "gsi1pk-gsi1sk-index", gsi1pk = [], gsi1sk = [deleted, created_at])]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub deleted: bool,
    #[dynorm(default = "now", read_only)]
    pub created_at: Option<DateTime<Utc>>,
}

/// The time of writing the conformance run fixes (`clock.js`).
fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(1_714_564_800_000).expect("a time")
}

/// The organization the examples restore.
pub fn seed_organizations(_example: &str) -> Vec<Organization> {
    vec![Organization {
        id: "00001".into(),
        name: "Acme".into(),
        description: Some("Anvils".into()),
        deleted: true,
        // ElectroDB's `set` writes the time on every put; dynorm's `default` on a create.
        created_at: Some(now()),
    }]
}

/// Both examples are said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// Reads the organization, then restores it, naming its stored `created_at`.
pub async fn run_organizations(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let existing = db.get::<Organization>("00001").send().await?;
    // As the patch example: the stored time, or now for an organization without one.
    let created_at = existing
        .as_ref()
        .and_then(|o| o.created_at)
        .unwrap_or_else(now);
    db.update::<Organization>("00001")
        .set(Organization::DELETED, false)
        .composite(Organization::CREATED_AT, created_at)
        .send()
        .await?;
    Ok(Some(usize::from(existing.is_some())))
}

/// A task's status, ElectroDB's enum attribute.
#[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
#[dynorm(rename_all = "kebab-case")]
pub enum TaskStatus {
    Open,
    InProgress,
    OnHold,
    Closed,
}

/// One entry of `comments`, a list of maps.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Comment {
    pub user: String,
    pub body: String,
}

/// A task of a team's project, in its user's `assignments` and its project's backlog.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TaskUpdates", entity = "tasks", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [team], sk = [project, task])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [user],
    gsi1sk = [status],
    collection = "assignments"
)]
#[key(index = "gsi2pk-gsi2sk-index", gsi2pk = [project], gsi2sk = [team, closed])]
pub struct TaskItem {
    pub team: String,
    pub task: String,
    pub project: String,
    pub user: String,
    pub title: String,
    pub description: Option<String>,
    #[dynorm(default = TaskStatus::Open)]
    pub status: Option<TaskStatus>,
    pub points: Option<i64>,
    pub tags: Option<std::collections::BTreeSet<String>>,
    pub comments: Option<Vec<Comment>>,
    pub closed: Option<String>,
    #[dynorm(default = "now", read_only, date = "milliseconds")]
    pub created_at: Option<DateTime<Utc>>,
    #[dynorm(updated_at, date = "milliseconds")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// The task the examples change.
pub fn seed_tasks(_example: &str) -> Vec<TaskItem> {
    vec![TaskItem {
        team: "core".into(),
        task: "45-662".into(),
        project: "backend".into(),
        user: "janet".into(),
        title: "Rate limiting".into(),
        description: None,
        status: Some(TaskStatus::InProgress),
        points: Some(3),
        tags: None,
        comments: Some(vec![Comment {
            user: "joe".into(),
            body: "Started.".into(),
        }]),
        // `gsi2sk` is built from `team` and `closed`: ElectroDB refuses a put with one alone.
        closed: Some("2024-04-30".into()),
        // ElectroDB's `default` writes the time on every put; dynorm's on a create.
        created_at: Some(now()),
        updated_at: None,
    }]
}

/// Reopens the task, adds points and a comment, if it is in progress. The status is part
/// of `gsi1sk`, whose partition key is the user's: dynorm writes an index's keys
/// together, and reads the user from the stored item.
pub async fn run_tasks(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    db.update::<TaskItem>(TaskItemKey {
        team: "core".into(),
        project: "backend".into(),
        task: "45-662".into(),
    })
    .set(TaskItem::STATUS, TaskStatus::Open)
    .increment(TaskItem::POINTS, 5)
    .append(
        TaskItem::COMMENTS,
        vec![Comment {
            user: "janet".into(),
            body: "This seems half-baked.".into(),
        }],
    )
    .condition(TaskItem::STATUS.eq(TaskStatus::InProgress))
    .read_composite(true)
    .send()
    .await?;
    Ok(None)
}
