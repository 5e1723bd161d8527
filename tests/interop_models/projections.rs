//! ElectroDB's examples of indexes that project part of an item, said in dynorm
//! (`tests/interop/conformance/keys_only.js` and `include_projection.js`): an index keyed
//! by templates that projects its keys only, whose items are the raw keys, and one that
//! projects three attributes, whose items hold those.

use chrono::{DateTime, Utc};
use dynorm::{Client, Error, Model};

/// An inventory asset, found by location through an index of keys only.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Assets", entity = "assets", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "inventory", entity_version = "1")]
#[key(pk = [account_id], sk = [asset_id])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [state],
    gsi1sk = [county, city, zip],
    collection = "geographics",
    project = false
)]
pub struct Asset {
    pub asset_id: String,
    pub account_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub city: Option<String>,
    pub county: Option<String>,
    pub state: Option<String>,
    pub zip: Option<String>,
}

/// The assets the examples start from: two in Georgia, one in Texas.
pub fn seed_assets(_example: &str) -> Vec<Asset> {
    [
        ("a1", "Atlanta", "Fulton", "Georgia", "30301"),
        ("a2", "Savannah", "Chatham", "Georgia", "31401"),
        ("a3", "Austin", "Travis", "Texas", "73301"),
    ]
    .into_iter()
    .map(|(id, city, county, state, zip)| Asset {
        asset_id: id.into(),
        account_id: "acct-1".into(),
        name: Some(format!("Asset {id}")),
        description: Some(format!("Tools in {city}")),
        city: Some(city.into()),
        county: Some(county.into()),
        state: Some(state.into()),
        zip: Some(zip.into()),
    })
    .collect()
}

/// Every example is said.
pub fn unsaid_assets(_: &str) -> Option<&'static str> {
    None
}

/// The Georgia assets: their raw keys (ElectroDB's raw response and `includeKeys` alike),
/// or the whole items.
pub async fn run_assets(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let georgia = || db.query_by::<AssetGsi1pkGsi1skIndex>("Georgia".to_owned());
    let read = match example {
        "keys-only-gsi-hydrate-query" => georgia().hydrate().all().await?.len(),
        _ => georgia().all().await?.len(),
    };
    Ok(Some(read))
}

/// A task's status, ElectroDB's enum attribute.
#[derive(dynorm::Value, Debug, Clone, Copy, PartialEq, Eq)]
#[dynorm(rename_all = "kebab-case")]
pub enum Status {
    Open,
    InProgress,
    Closed,
}

/// A task, found by status through an index that projects its name, status and creation.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ProjectedTasks", entity = "tasks", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [project_id], sk = [task_id])]
#[key(
    index = "gsi1pk-gsi1sk-index",
    gsi1pk = [status],
    gsi1sk = [created_at],
    project = [name, status, created_at]
)]
pub struct Task {
    pub task_id: String,
    pub project_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    #[dynorm(default = Status::Open)]
    pub status: Option<Status>,
    pub priority: Option<i64>,
    #[dynorm(default = "now", date = "milliseconds")]
    pub created_at: Option<DateTime<Utc>>,
    #[dynorm(updated_at, date = "milliseconds")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// The time of writing the conformance run fixes (`clock.js`).
fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(1_714_564_800_000).expect("a time")
}

/// The tasks the examples start from.
pub fn seed_tasks(_example: &str) -> Vec<Task> {
    [
        ("t1", "Important Task", Status::Open, "Some description"),
        ("t2", "Other Task", Status::Open, "Another description"),
        ("t3", "Important Task", Status::Closed, "Done"),
    ]
    .into_iter()
    .map(|(id, name, status, description)| Task {
        task_id: id.into(),
        project_id: "p1".into(),
        name: Some(name.into()),
        description: Some(description.into()),
        status: Some(status),
        priority: Some(1),
        // ElectroDB's `default` writes the time on every put; dynorm's on a create.
        created_at: Some(now()),
        updated_at: None,
    })
    .collect()
}

/// Why dynorm does not say an example as ElectroDB does.
pub fn unsaid_tasks(example: &str) -> Option<&'static str> {
    match example {
        "include-projection-gsi-filter-non-projected" => Some(
            "its filter tests `description`, which the index does not project, so it matches \
             nothing: dynorm refuses it before sending (ElectroDB's types refuse it too)",
        ),
        _ => None,
    }
}

/// The open tasks: what the index projects, filtered by name, or the whole items.
pub async fn run_tasks(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let open = || db.query_by::<TaskGsi1pkGsi1skIndex>(Status::Open);
    let important = || Task::NAME.eq("Important Task");
    let read = match example {
        "include-projection-gsi-basic-query" => {
            let items: Vec<TaskGsi1pkGsi1skIndexItem> = open().all().await?;
            items.len()
        }
        "include-projection-gsi-filter-projected" => open().filter(important()).all().await?.len(),
        "include-projection-gsi-hydration" => {
            open().filter(important()).hydrate().all().await?.len()
        }
        "include-projection-gsi-hydration-attributes" => open()
            .filter(important())
            .hydrate()
            .project(["taskId", "name", "description"])
            .all()
            .await?
            .len(),
        _ => panic!("no dynorm side for the example {example}"),
    };
    Ok(Some(read))
}
