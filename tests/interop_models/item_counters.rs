//! ElectroDB's item-counter examples, said in dynorm
//! (`tests/interop/conformance/item_counters.js`): a company directory whose employees are
//! counted in counter items upserted in the employee's own transaction, and an accounts
//! service whose members DynamoDB counts (`count()`, `Select: COUNT`) through a
//! collection, a query and a scan.

use dynorm::{Client, Collection, Error, Model};
use serde::{Deserialize, Serialize};

/// An employee of an organization.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ItemCounters", entity = "employee", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "directory", entity_version = "1")]
#[key(pk = [organization_id], sk = [employee_id], collection = "employed")]
pub struct Employee {
    pub organization_id: String,
    pub employee_id: String,
    pub name: Option<String>,
    pub team_id: Option<String>,
}

/// The whole directory's count: one item, whose key has no attribute.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ItemCounters", entity = "global-counter")]
#[dynorm(convention = "electrodb", service = "directory", entity_version = "1")]
#[key(pk = [], sk = [])]
pub struct GlobalCounter {
    pub count: Option<i64>,
}

/// A team's count, in its organization's partition.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "ItemCounters",
    entity = "team-counter",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "directory", entity_version = "1")]
#[key(pk = [organization_id], sk = [team_id], collection = "employed")]
pub struct TeamCounter {
    pub organization_id: String,
    pub team_id: String,
    pub count: Option<i64>,
}

/// What an organization counts.
#[derive(dynorm::Value, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `employee`.
    #[dynorm(rename = "employee")]
    Employee,
    /// `team`.
    #[dynorm(rename = "team")]
    Team,
}

/// An organization's count of one kind of member.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "ItemCounters",
    entity = "member-counter",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "directory", entity_version = "1")]
#[key(pk = [organization_id], sk = [kind], collection = "employed")]
pub struct OrganizationItemCounter {
    pub organization_id: String,
    pub kind: Kind,
    pub count: Option<i64>,
}

/// A user of an account.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ItemCounters", entity = "user", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "accounts", entity_version = "1")]
#[key(pk = [account_id], sk = [user_id], collection = "members")]
pub struct User {
    pub account_id: String,
    pub user_id: String,
    pub name: Option<String>,
}

/// An account.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "ItemCounters", entity = "account", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "accounts", entity_version = "1")]
#[key(pk = [account_id], sk = [], collection = "members")]
pub struct Account {
    pub account_id: String,
    pub name: Option<String>,
}

/// `members`: an account and its users.
#[derive(Collection, Debug)]
pub enum Members {
    Account(Account),
    User(User),
}

dynorm::shared_table! {
    /// The examples' table: one example's items at a time.
    pub struct ItemCounters { Employee, GlobalCounter, TeamCounter, OrganizationItemCounter, User, Account }
}

const ORGANIZATION: &str = "acme-corp";
const TEAM: &str = "engineering";

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// Writes the items an example starts from.
pub async fn put_seed(example: &str, db: &Client) -> Result<(), Error> {
    match example {
        "item-counters-write-transaction" => {
            db.put(&GlobalCounter { count: Some(4) }).send().await?;
            db.put(&TeamCounter {
                organization_id: ORGANIZATION.into(),
                team_id: TEAM.into(),
                count: Some(2),
            })
            .send()
            .await
        }
        "item-counters-read-select" => {
            db.put(&Account {
                account_id: "1234".into(),
                name: Some("Acme".into()),
            })
            .send()
            .await?;
            for (account, user, name) in [
                ("1234", "u1", "Ada"),
                ("1234", "u2", "Grace"),
                ("9999", "u3", "Edsger"),
            ] {
                db.put(&User {
                    account_id: account.into(),
                    user_id: user.into(),
                    name: Some(name.into()),
                })
                .send()
                .await?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The example's requests: for the counts, what they counted together.
pub async fn run(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    match example {
        "item-counters-write-transaction" => {
            let employee = Employee {
                organization_id: ORGANIZATION.into(),
                employee_id: "emp-001".into(),
                name: Some("Jane Smith".into()),
                team_id: None,
            };
            db.transact_write()
                .write(db.create(&employee))
                .write(
                    db.update::<GlobalCounter>(GlobalCounterKey {})
                        .increment(GlobalCounter::COUNT, 1)
                        .upsert(),
                )
                .write(
                    db.update::<TeamCounter>(TeamCounterKey {
                        organization_id: ORGANIZATION.into(),
                        team_id: TEAM.into(),
                    })
                    .increment(TeamCounter::COUNT, 1)
                    .upsert(),
                )
                .write(
                    db.update::<OrganizationItemCounter>(OrganizationItemCounterKey {
                        organization_id: ORGANIZATION.into(),
                        kind: Kind::Employee,
                    })
                    .increment(OrganizationItemCounter::COUNT, 1)
                    .upsert(),
                )
                .send()
                .await?;
            Ok(None)
        }
        "item-counters-read-select" => {
            let members = db.collection::<Members>("1234").count().await?;
            let users = db.query_by::<User>("1234").count().await?;
            let scanned = db
                .scan::<User>()
                .filter(User::ACCOUNT_ID.eq("1234"))
                .count()
                .await?;
            Ok(Some((members + users + scanned) as usize))
        }
        _ => panic!("no dynorm side for the example {example}"),
    }
}

/// Every item dynorm reads, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Employee>(db).await?,
        super::scanned::<GlobalCounter>(db).await?,
        super::scanned::<TeamCounter>(db).await?,
        super::scanned::<OrganizationItemCounter>(db).await?,
        super::scanned::<User>(db).await?,
        super::scanned::<Account>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}
