//! ElectroDB's `TaskApp` service as its first collection examples declare it, and those
//! examples said in dynorm (`tests/interop/conformance/task_app.js`): employees by
//! organization and tasks by project, both keyed by employee on `gsi2` in the collection
//! `assignments`. Every attribute is optional in ElectroDB's model: those of the table's
//! keys are required here, since an item cannot be written without its key.

use dynorm::{Client, Collection, Error, Model};
use serde::{Deserialize, Serialize};

/// An employee's team, ElectroDB's enum attribute `team`.
#[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Team {
    /// `jupiter`.
    #[dynorm(rename = "jupiter")]
    Jupiter,
    /// `mercury`.
    #[dynorm(rename = "mercury")]
    Mercury,
    /// `saturn`.
    #[dynorm(rename = "saturn")]
    Saturn,
}

/// An employee (`employees`), by organization.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TaskApp", entity = "employees", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [organization_id], sk = [employee_id])]
#[key(index = "gsi2", gsi2pk = [employee_id], gsi2sk = [], collection = "assignments")]
pub struct Employee {
    pub employee_id: String,
    pub organization_id: String,
    pub name: Option<String>,
    pub team: Option<Team>,
}

/// A task (`tasks`), by project; in `gsi2` when someone is assigned it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "TaskApp", entity = "tasks", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [project_id], sk = [task_id])]
#[key(index = "gsi2", gsi2pk = [employee_id], gsi2sk = [], collection = "assignments")]
pub struct Task {
    pub task_id: String,
    pub employee_id: Option<String>,
    pub project_id: String,
    pub title: Option<String>,
    pub body: Option<String>,
}

dynorm::shared_table! {
    /// The task app's table.
    pub struct TaskApp { Employee, Task }
}

/// `assignments`: an employee and the tasks assigned to them.
#[derive(Collection, Debug)]
#[dynorm(index = "gsi2")]
pub enum Assignments {
    Employee(Employee),
    Task(Task),
}

/// One of the task app's items.
pub enum Item {
    Employee(Employee),
    Task(Task),
}

fn employee(id: &str, organization: &str, name: &str, team: Team) -> Item {
    Item::Employee(Employee {
        employee_id: id.into(),
        organization_id: organization.into(),
        name: Some(name.into()),
        team: Some(team),
    })
}

fn task(id: &str, employee: Option<&str>, project: &str, title: &str, body: &str) -> Item {
    Item::Task(Task {
        task_id: id.into(),
        employee_id: employee.map(Into::into),
        project_id: project.into(),
        title: Some(title.into()),
        body: Some(body.into()),
    })
}

/// The items every example starts from, as `task_app.js` declares them.
pub fn seed(_example: &str) -> Vec<Item> {
    let (joe, carole) = (Some("JExotic"), Some("CBaskin"));
    vec![
        employee("JExotic", "GW Zoo", "Joe Exotic", Team::Jupiter),
        employee("CBaskin", "Big Cat Rescue", "Carole Baskin", Team::Saturn),
        task(
            "T-1",
            joe,
            "zoo-expansion",
            "Build enclosures",
            "Six new tiger enclosures",
        ),
        task(
            "T-2",
            joe,
            "tiger-king-show",
            "Film the show",
            "Episode one",
        ),
        task(
            "T-3",
            carole,
            "murder-investigation",
            "Hire a lawyer",
            "Find the best one",
        ),
        task(
            "T-4",
            carole,
            "fundraiser",
            "Call donors",
            "Before the gala",
        ),
        task(
            "T-5",
            None,
            "zoo-expansion",
            "Order fencing",
            "Nobody's yet",
        ),
    ]
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for item in seed(example) {
        match item {
            Item::Employee(e) => db.put(&e).send().await?,
            Item::Task(t) => db.put(&t).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<Task>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The example's collection query: how many items it read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let read = match name {
        "collection-assignments" => db.collection::<Assignments>("JExotic").all().await?.len(),
        // Every employee (no `projectId`), and the tasks of murder projects.
        "collection-assignments-filtered" => db
            .collection::<Assignments>("CBaskin")
            .filter(Task::PROJECT_ID.not_exists() | Task::PROJECT_ID.contains("murder"))
            .all()
            .await?
            .len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
