//! ElectroDB's `TaskApp` service with sub-collections, as its complex collection examples
//! declare it, and those examples said in dynorm
//! (`tests/interop/conformance/task_app_subcollections.js`): employees, tasks and project
//! members. On `gsi2`, by employee, all three are in `contributions`, and tasks and
//! project members in its sub-collection `assignments`; on the table, by project, tasks
//! and project members are in `overview`.

use dynorm::{Client, Collection, Error, Model};

use super::task_app::Team;

/// An employee (`employees`), by organization; in `contributions`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "TaskAppSubcollections",
    entity = "employees",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [organization_id], sk = [employee_id])]
#[key(index = "gsi2", gsi2pk = [employee_id], gsi2sk = [], collection = "contributions")]
pub struct Employee {
    pub employee_id: String,
    pub organization_id: String,
    pub name: Option<String>,
    pub team: Option<Team>,
}

/// A task (`tasks`), by project in `overview`; in `contributions` and `assignments`, by
/// its project, when someone is assigned it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "TaskAppSubcollections",
    entity = "tasks",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [project_id], sk = [task_id], collection = "overview")]
#[key(
    index = "gsi2",
    gsi2pk = [employee_id],
    gsi2sk = [project_id],
    collection = ["contributions", "assignments"]
)]
pub struct Task {
    pub task_id: String,
    pub employee_id: Option<String>,
    pub project_id: String,
    pub title: Option<String>,
    pub body: Option<String>,
}

/// A member of a project (`projectMembers`), in `overview`, `contributions` and
/// `assignments`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "TaskAppSubcollections",
    entity = "projectMembers",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [project_id], sk = [employee_id], collection = "overview")]
#[key(
    index = "gsi2",
    gsi2pk = [employee_id],
    gsi2sk = [],
    collection = ["contributions", "assignments"]
)]
pub struct ProjectMember {
    pub employee_id: String,
    pub project_id: String,
    pub name: Option<String>,
}

dynorm::shared_table! {
    /// The task app's table.
    pub struct TaskAppSubcollections { Employee, Task, ProjectMember }
}

/// `contributions`: an employee, their tasks and the projects they are members of.
#[derive(Collection, Debug)]
#[dynorm(index = "gsi2")]
pub enum Contributions {
    Employee(Employee),
    Task(Task),
    ProjectMember(ProjectMember),
}

/// `assignments`, within `contributions`: an employee's tasks and projects.
#[derive(Collection, Debug)]
#[dynorm(index = "gsi2")]
pub enum Assignments {
    Task(Task),
    ProjectMember(ProjectMember),
}

/// `overview`: a project's tasks and members.
#[derive(Collection, Debug)]
pub enum Overview {
    Task(Task),
    ProjectMember(ProjectMember),
}

/// One of the task app's items.
pub enum Item {
    Employee(Employee),
    Task(Task),
    ProjectMember(ProjectMember),
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

fn member(employee: &str, project: &str, name: &str) -> Item {
    Item::ProjectMember(ProjectMember {
        employee_id: employee.into(),
        project_id: project.into(),
        name: Some(name.into()),
    })
}

/// The items every example starts from, as `task_app_subcollections.js` declares them.
pub fn seed(_example: &str) -> Vec<Item> {
    let (joe, carole) = (Some("JExotic"), Some("CBaskin"));
    vec![
        employee("JExotic", "GW Zoo", "Joe Exotic", Team::Jupiter),
        employee("CBaskin", "Big Cat Rescue", "Carole Baskin", Team::Saturn),
        task(
            "T-1",
            joe,
            "SD-204",
            "Build enclosures",
            "Six new tiger enclosures",
        ),
        task(
            "T-2",
            carole,
            "SD-204",
            "Inspect enclosures",
            "Before the opening",
        ),
        task("T-3", None, "SD-204", "Order fencing", "Nobody's yet"),
        task("T-4", joe, "SD-300", "Film the show", "Episode one"),
        member("JExotic", "SD-204", "Joe Exotic"),
        member("CBaskin", "SD-204", "Carole Baskin"),
        member("JExotic", "SD-300", "Joe Exotic"),
    ]
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for item in seed(example) {
        match item {
            Item::Employee(e) => db.put(&e).send().await?,
            Item::Task(t) => db.put(&t).send().await?,
            Item::ProjectMember(m) => db.put(&m).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<Task>(db).await?,
        super::scanned::<ProjectMember>(db).await?,
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
        "collections-complex-assignments" => {
            db.collection::<Assignments>("JExotic").all().await?.len()
        }
        "collections-complex-contributions" => {
            db.collection::<Contributions>("JExotic").all().await?.len()
        }
        "collections-simple-overview" => db.collection::<Overview>("SD-204").all().await?.len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
