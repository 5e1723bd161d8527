//! ElectroDB's human resources examples, said in dynorm: each runs the example's queries on
//! the staff of two workplaces (`tests/interop/conformance/human_resources.js` runs the
//! same with ElectroDB).

use dynorm::query::Query;
use dynorm::schema::FromItem;
use dynorm::{Client, Error, Model};

use super::human_resources::{
    Assignments, Employee, EmployeeGsi1pkGsi1skIndex, EmployeeGsi4pkGsi4skIndex,
    EmployeeGsi5pkGsi5skIndex, Office, Task, TaskGsi1pkGsi1skIndex, TaskGsi3pkGsi3skIndex, Team,
    Workplaces,
};

/// One of the app's items.
pub enum Record {
    Employee(Employee),
    Task(Task),
    Office(Office),
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
        first_name: Some(name.0.into()),
        last_name: Some(name.1.into()),
        office: Some(role.office.into()),
        title: Some(role.title.into()),
        team: Some(role.team),
        salary: Some(role.salary.into()),
        manager: role.manager.map(Into::into),
        date_hired: Some(dates.0.into()),
        birthday: Some(dates.1.into()),
    })
}

/// A task of `project`, assigned to `employee`.
fn task(task: &str, project: &str, employee: &str, description: &str) -> Record {
    Record::Task(Task {
        task: task.into(),
        project: project.into(),
        employee: employee.into(),
        description: Some(description.into()),
    })
}

/// An office in the USA.
fn office(office: &str, city: &str, state: &str, zip: &str, address: &str) -> Record {
    Record::Office(Office {
        office: office.into(),
        country: "USA".into(),
        state: state.into(),
        city: city.into(),
        zip: zip.into(),
        address: Some(address.into()),
    })
}

const ZOO: &str = "GW Zoo";
const RESCUE: &str = "Big Cat Rescue";
const WRANGLER: &str = "Animal Wrangler";

/// The staff of two workplaces, as `human_resources.js` declares them: every example starts
/// from them. Jeff Lowe and Carole Baskin have no manager, so their `directReports` keys are
/// written without one, as ElectroDB writes them.
pub fn seed(_example: &str) -> Vec<Record> {
    let role = |office, title, team, salary, manager| Role {
        office,
        title,
        team,
        salary,
        manager,
    };
    vec![
        employee(
            "JLowe",
            ("Jeff", "Lowe"),
            role(ZOO, "Owner", Team::Product, "500.00", None),
            ("2018-03-01", "1986-05-20"),
        ),
        employee(
            "JExotic",
            ("Joe", "Exotic"),
            role(ZOO, WRANGLER, Team::Marketing, "120.00", Some("JLowe")),
            ("2020-05-15", "1963-03-05"),
        ),
        employee(
            "JFinlay",
            ("John", "Finlay"),
            role(ZOO, WRANGLER, Team::Development, "90.00", Some("JLowe")),
            ("2019-01-10", "1980-05-23"),
        ),
        employee(
            "SSaffery",
            ("Saff", "Saffery"),
            role(ZOO, "Keeper", Team::Development, "80.00", Some("JLowe")),
            ("2020-05-30", "1991-09-14"),
        ),
        employee(
            "CBaskin",
            ("Carole", "Baskin"),
            role(RESCUE, "CEO", Team::Product, "400.00", None),
            ("1992-11-01", "1961-06-06"),
        ),
        employee(
            "HBaskin",
            ("Howard", "Baskin"),
            role(RESCUE, WRANGLER, Team::Finance, "150.00", Some("CBaskin")),
            ("2004-01-01", "1950-02-10"),
        ),
        task("T-1", RESCUE, "CBaskin", "Feed the tigers"),
        task(
            "T-2",
            "Save the Tigers",
            "CBaskin",
            "Lobby for the big cat act",
        ),
        task("T-3", "Murder Carol", "JExotic", "Plan it"),
        task("T-4", "Murder Carol", "JFinlay", "Refuse to help"),
        office(RESCUE, "Tampa", "Florida", "33625", "12802 Easy St"),
        office(
            "Jungle Gardens",
            "Sarasota",
            "Florida",
            "34234",
            "3701 Bay Shore Rd",
        ),
        office(
            ZOO,
            "Wynnewood",
            "Oklahoma",
            "73098",
            "25803 N County Rd 3250",
        ),
    ]
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    for record in seed(example) {
        match record {
            Record::Employee(e) => db.put(&e).send().await?,
            Record::Task(t) => db.put(&t).send().await?,
            Record::Office(o) => db.put(&o).send().await?,
        }
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<Task>(db).await?,
        super::scanned::<Office>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The dates of the birthdays example: hired, or born, in May 2020.
const START_DATE: &str = "2020-05-01";
const END_DATE: &str = "2020-06-01";

/// Runs `query` twice, as the documentation runs it on the service and on the entity
/// alone (the same request): how many items both read.
async fn on_service_and_entity<M: Model, R: FromItem>(query: Query<M, R>) -> Result<usize, Error> {
    Ok(query.clone().all().await?.len() + query.all().await?.len())
}

/// The example's queries, in order: how many items they read in all.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let read = match name {
        "human-resources-assignments" => db.collection::<Assignments>("CBaskin").all().await?.len(),
        "human-resources-direct-reports" => {
            on_service_and_entity(db.query_by::<EmployeeGsi5pkGsi5skIndex>("jlowe")).await?
        }
        "human-resources-employee-birthdays" => {
            on_service_and_entity(db.query_by::<EmployeeGsi1pkGsi1skIndex>("gw zoo").filter(
                Employee::DATE_HIRED.between(START_DATE, END_DATE)
                    | Employee::BIRTHDAY.between(START_DATE, END_DATE),
            ))
            .await?
        }
        "human-resources-employee-salaries" => {
            on_service_and_entity(
                db.query_by::<EmployeeGsi4pkGsi4skIndex>("animal wrangler")
                    .range(Employee::SALARY.le("150.00")),
            )
            .await?
        }
        "human-resources-employee-tasks" => {
            on_service_and_entity(db.query_by::<TaskGsi3pkGsi3skIndex>("cbaskin")).await?
        }
        "human-resources-office-locations" => {
            on_service_and_entity(db.query_by::<Office>(("usa".to_owned(), "florida".to_owned())))
                .await?
        }
        "human-resources-project-tasks" => {
            on_service_and_entity(db.query_by::<TaskGsi1pkGsi1skIndex>("Murder Carol")).await?
        }
        "human-resources-workplaces" => db
            .collection::<Workplaces>("big cat rescue")
            .all()
            .await?
            .len(),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(read))
}
