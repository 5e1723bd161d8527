//! ElectroDB's transaction examples, said in dynorm (`tests/interop/conformance/transactions.js`):
//! a workforce's employee and office read in one transaction, MI6's agent, created
//! with a `constraint` item that keeps its email unique, and its kills added by one
//! transaction sent twice with one idempotency token.

use dynorm::{Client, Error, Model};

/// An employee of the workforce.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Transactions", entity = "employee", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "Workforce", entity_version = "1")]
#[key(pk = [employee_id], sk = [])]
pub struct Employee {
    pub employee_id: String,
    pub office_id: String,
    pub first_name: String,
    pub last_name: String,
    pub title: Option<String>,
}

/// An office of the workforce.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Transactions", entity = "office", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "Workforce", entity_version = "1")]
#[key(pk = [office_id], sk = [])]
pub struct Office {
    pub office_id: String,
    pub name: String,
    pub city: String,
}

/// An agent of MI6.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Transactions", entity = "agent", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "MI6", entity_version = "1")]
#[key(pk = [designation], sk = [id])]
pub struct Agent {
    pub id: String,
    pub designation: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub alive: bool,
    #[dynorm(default = 0)]
    pub kills: Option<i64>,
}

/// A value some entity's attribute holds, at most once: ElectroDB's unique constraint.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "Transactions",
    entity = "constraint",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "MI6", entity_version = "1")]
#[key(pk = [value], sk = [name, entity])]
#[key(index = "gsi1pk-gsi2sk-index", gsi1pk = [name, entity], gsi1sk = [value])]
pub struct Constraint {
    pub name: String,
    pub value: String,
    pub entity: String,
}

dynorm::shared_table! {
    /// The examples' table: one example's items at a time.
    pub struct Transactions { Employee, Office, Agent, Constraint }
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// James Bond, as the examples create him.
fn bond() -> Agent {
    Agent {
        id: "7".into(),
        designation: "00".into(),
        email: "james.bond@mi6.gov.uk".into(),
        first_name: Some("James".into()),
        last_name: Some("Bond".into()),
        alive: true,
        kills: None,
    }
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    match example {
        "transact-get-employee-and-office" => {
            db.put(&Employee {
                employee_id: "employee-1".into(),
                office_id: "office-1".into(),
                first_name: "Ada".into(),
                last_name: "Lovelace".into(),
                title: Some("Engineer".into()),
            })
            .send()
            .await?;
            db.put(&Office {
                office_id: "office-1".into(),
                name: "Headquarters".into(),
                city: "London".into(),
            })
            .send()
            .await
        }
        "transact-write-idempotent-writes" => {
            db.put(&Agent {
                kills: Some(0),
                ..bond()
            })
            .send()
            .await
        }
        _ => Ok(()),
    }
}

/// The documentation's idempotency token, with `-` and three characters of this run's:
/// DynamoDB refuses for ten minutes a token sent again with another request (another
/// run's table), and takes 36 characters at most.
fn run_token(documented: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    let mut n = hasher.finish() % 36u64.pow(3);
    let mut suffix = [b'0'; 3];
    for digit in suffix.iter_mut().rev() {
        *digit = b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize];
        n /= 36;
    }
    format!("{documented}-{}", String::from_utf8_lossy(&suffix))
}

/// The example's transaction: how many items it read, for a read.
pub async fn run(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    match example {
        "transact-get-employee-and-office" => {
            let read = db
                .transact_get()
                .get::<Employee>("employee-1")
                .get::<Office>("office-1")
                .send()
                .await?;
            let found = usize::from(read.get::<Employee>(0)?.is_some())
                + usize::from(read.get::<Office>(1)?.is_some());
            Ok(Some(found))
        }
        "transact-write-idempotent-writes" => {
            let token = run_token("daily-headcount-count-2022-03-16");
            // Kills `0` -> `2`; the second, with the same token, is not applied again.
            for _ in 0..2 {
                db.transact_write()
                    .write(
                        db.update::<Agent>(AgentKey {
                            designation: "00".into(),
                            id: "7".into(),
                        })
                        .increment(Agent::KILLS, 2),
                    )
                    .idempotency_token(&token)
                    .send()
                    .await?;
            }
            Ok(None)
        }
        "transact-write-unique-constraint" => {
            let agent = bond();
            let constraint = Constraint {
                name: "email".into(),
                value: agent.email.clone(),
                entity: "agent".into(),
            };
            db.transact_write()
                .write(db.create(&agent))
                .write(db.create(&constraint))
                .send()
                .await?;
            Ok(None)
        }
        _ => panic!("no dynorm side for the example {example}"),
    }
}

/// Every item dynorm reads, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<Office>(db).await?,
        super::scanned::<Agent>(db).await?,
        super::scanned::<Constraint>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}
