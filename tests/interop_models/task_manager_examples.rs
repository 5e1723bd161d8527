//! ElectroDB's task manager examples, said in dynorm: each runs the example's queries, or
//! its put of a new task, on the staff and tasks of two offices
//! (`tests/interop/conformance/task_manager.js` runs the same with ElectroDB).

use chrono::{Datelike, NaiveDate};
use dynorm::{Client, Error};

use super::task_manager::{
    Assignments, Employee, EmployeeGsi2pkGsi2skIndex, EmployeeGsi4pkGsi4skIndex, Office, Status,
    Task, TaskGsi4pkGsi4skIndex, Team, Workplaces,
};

/// One of the task manager's items.
pub enum Record {
    Employee(Employee),
    Office(Office),
    Task(Task),
}

/// An employee's place, role and pay.
struct Role<'a> {
    office: &'a str,
    title: &'a str,
    team: Team,
    salary: &'a str,
    manager: Option<&'a str>,
}

/// An employee: `name` is their first and last name, `dates` when they were hired and born.
fn employee(id: &str, name: (&str, &str), role: Role, dates: (&str, &str)) -> Record {
    Record::Employee(Employee {
        employee: id.into(),
        first_name: name.0.into(),
        last_name: name.1.into(),
        office: role.office.into(),
        title: role.title.into(),
        team: role.team,
        salary: role.salary.into(),
        manager: role.manager.map(Into::into),
        date_hired: Some(dates.0.into()),
        birthday: Some(dates.1.into()),
    })
}

/// An office in the USA, in the city it is named after.
fn office(office: &str, state: &str, zip: &str, address: &str) -> Record {
    Record::Office(Office {
        office: office.into(),
        country: "USA".into(),
        state: state.into(),
        city: office.into(),
        zip: zip.into(),
        address: Some(address.into()),
    })
}

/// A task with no description and no comments.
fn task(task: &str, project: &str, employee: &str, status: Option<Status>, points: i64) -> Task {
    Task {
        task: task.into(),
        project: project.into(),
        employee: employee.into(),
        description: None,
        status,
        points,
        comments: None,
    }
}

const PORTLAND: &str = "Portland";
const SEATTLE: &str = "Seattle";
const JUNIOR: &str = "Junior Software Engineer";
const PROJECT: &str = "135-53";

/// Two offices, their staff and their tasks, as `task_manager.js` declares them: every
/// example starts from them. The task `onboarding` has no status, which its default fills.
pub fn seed(_example: &str) -> Vec<Record> {
    let role = |office, title, team, salary, manager| Role {
        office,
        title,
        team,
        salary,
        manager,
    };
    let (development, marketing) = (Team::Development, Team::Marketing);
    vec![
        employee(
            "morgan.lee",
            ("Morgan", "Lee"),
            role(PORTLAND, "Director", Team::Product, "180000", None),
            ("2012-04-02", "1975-08-19"),
        ),
        employee(
            "tyler.walch",
            ("Tyler", "Walch"),
            role(
                PORTLAND,
                "Software Engineer",
                development,
                "150000",
                Some("morgan.lee"),
            ),
            ("2018-03-12", "1990-02-14"),
        ),
        employee(
            "ana.ruiz",
            ("Ana", "Ruiz"),
            role(PORTLAND, JUNIOR, development, "105000", Some("tyler.walch")),
            ("2023-09-01", "2000-10-09"),
        ),
        employee(
            "ben.okafor",
            ("Ben", "Okafor"),
            role(SEATTLE, JUNIOR, development, "120000", Some("tyler.walch")),
            ("2022-01-17", "1999-12-01"),
        ),
        employee(
            "cy.tan",
            ("Cy", "Tan"),
            role(
                SEATTLE,
                JUNIOR,
                Team::CoolCatsAndKittens,
                "100000",
                Some("tyler.walch"),
            ),
            ("2024-02-05", "2001-04-22"),
        ),
        employee(
            "dee.park",
            ("Dee", "Park"),
            role(
                PORTLAND,
                "Marketing Manager",
                marketing,
                "130000",
                Some("morgan.lee"),
            ),
            ("2020-01-15", "1985-07-04"),
        ),
        employee(
            "eli.ford",
            ("Eli", "Ford"),
            role(SEATTLE, "Copywriter", marketing, "90000", Some("dee.park")),
            ("2021-08-30", "1993-11-30"),
        ),
        employee(
            "fay.wong",
            ("Fay", "Wong"),
            role(SEATTLE, "Copywriter", marketing, "85000", Some("dee.park")),
            ("2023-02-01", "1996-01-27"),
        ),
        employee(
            "gus.hale",
            ("Gus", "Hale"),
            role(
                PORTLAND,
                "Brand Lead",
                marketing,
                "110000",
                Some("dee.park"),
            ),
            ("2015-05-05", "1980-03-03"),
        ),
        office(PORTLAND, "Oregon", "97209", "1 NW Couch St"),
        office(SEATTLE, "Washington", "98101", "2 Pike St"),
        Record::Task(Task {
            description: Some("Write the API spec".into()),
            ..task("api-spec", PROJECT, "tyler.walch", Some(Status::Open), 8)
        }),
        Record::Task(task(
            "ci-pipeline",
            PROJECT,
            "tyler.walch",
            Some(Status::InProgress),
            3,
        )),
        Record::Task(Task {
            comments: Some(serde_json::json!([
                { "author": "dee.park", "text": "Shipped", "likes": 3 }
            ])),
            ..task(
                "launch-post",
                "135-54",
                "tyler.walch",
                Some(Status::Closed),
                2,
            )
        }),
        Record::Task(task(
            "bug-bash",
            PROJECT,
            "ana.ruiz",
            Some(Status::Open),
            21,
        )),
        Record::Task(Task {
            description: Some("Set up a laptop".into()),
            ..task("onboarding", PROJECT, "ben.okafor", None, 13)
        }),
    ]
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for record in seed(example) {
        match record {
            Record::Employee(e) => db.put(&e).send().await?,
            Record::Office(o) => db.put(&o).send().await?,
            Record::Task(t) => db.put(&t).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<Office>(db).await?,
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

/// The documentation's `yearsAgo`, of a fixed day rather than today's (as `task_manager.js`
/// computes it), so that both sides query the same dates on any day.
fn years_ago(years: i32) -> String {
    let today = NaiveDate::from_ymd_opt(2024, 6, 1).expect("a date");
    today
        .with_year(today.year() - years)
        .expect("the first of June is in every year")
        .format("%Y-%m-%d")
        .to_string()
}

/// The example's queries, or its put, in order: how many items its queries read.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let read = match name {
        "task-manager-assignments" => db
            .collection::<Assignments>("tyler.walch")
            .all()
            .await?
            .len(),
        "task-manager-create-task" => {
            let new_task = Task {
                description: Some("Review the new component library designs".into()),
                ..task("design-review", PROJECT, "tyler.walch", None, 5)
            };
            db.put(&new_task).send().await?;
            return Ok(None);
        }
        "task-manager-junior-developers" => db
            .query_by::<EmployeeGsi4pkGsi4skIndex>(JUNIOR)
            .range(Employee::SALARY.gt("100000"))
            .all()
            .await?
            .len(),
        "task-manager-open-tasks" => db
            .query_by::<TaskGsi4pkGsi4skIndex>(Status::Open)
            .range(Task::PROJECT.eq(PROJECT))
            .filter(Task::POINTS.le(13))
            .all()
            .await?
            .len(),
        "task-manager-recent-hires" => db
            .query_by::<EmployeeGsi2pkGsi2skIndex>(Team::Marketing)
            .range(Employee::DATE_HIRED.between(years_ago(5), years_ago(2)))
            .all()
            .await?
            .len(),
        "task-manager-workplace" => db.collection::<Workplaces>("portland").all().await?.len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
