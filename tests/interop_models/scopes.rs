//! ElectroDB's index `scope` examples, said in dynorm (`tests/interop/conformance/scopes.js`
//! and `scopes_unscoped.js`): an organization and a user of the service `taskapp`, keyed by
//! an empty partition key and their id, with and without `scope`.

use dynorm::{Client, Error, Model};

/// An organization, its partition key scoped `org`: `$taskapp_org`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Scoped", entity = "organization", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [], sk = [organization_id], scope = "org")]
pub struct ScopedOrganization {
    pub organization_id: String,
}

/// A user, its partition key scoped `user`: `$taskapp_user`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Scoped", entity = "user", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [], sk = [user_id], scope = "user")]
pub struct ScopedUser {
    pub user_id: String,
}

dynorm::shared_table! {
    /// The scoped entities' table.
    pub struct Scoped { ScopedOrganization, ScopedUser }
}

/// An organization without scope: the partition `$taskapp`.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Unscoped", entity = "organization", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [], sk = [organization_id])]
pub struct Organization {
    pub organization_id: String,
}

/// A user without scope, in the same partition.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Unscoped", entity = "user", rename_all = "camelCase")]
#[dynorm(convention = "electrodb", service = "taskapp", entity_version = "1")]
#[key(pk = [], sk = [user_id])]
pub struct User {
    pub user_id: String,
}

dynorm::shared_table! {
    /// The unscoped entities' table.
    pub struct Unscoped { Organization, User }
}

/// Both examples are said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The organizations and the user both examples start from.
const ORGANIZATIONS: [&str; 2] = ["123", "124"];
const USER: &str = "456";

/// Writes the scoped items.
pub async fn put_scoped(_example: &str, db: &Client) -> Result<(), Error> {
    for id in ORGANIZATIONS {
        db.put(&ScopedOrganization {
            organization_id: id.into(),
        })
        .send()
        .await?;
    }
    db.put(&ScopedUser {
        user_id: USER.into(),
    })
    .send()
    .await
}

/// Writes the unscoped items.
pub async fn put_unscoped(_example: &str, db: &Client) -> Result<(), Error> {
    for id in ORGANIZATIONS {
        db.put(&Organization {
            organization_id: id.into(),
        })
        .send()
        .await?;
    }
    db.put(&User {
        user_id: USER.into(),
    })
    .send()
    .await
}

/// The two queries of the scoped example: how many items they read.
pub async fn run_scoped(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let organizations = db
        .query_by::<ScopedOrganization>(())
        .range(ScopedOrganization::ORGANIZATION_ID.eq("123"))
        .all()
        .await?;
    let users = db
        .query_by::<ScopedUser>(())
        .range(ScopedUser::USER_ID.eq(USER))
        .all()
        .await?;
    Ok(Some(organizations.len() + users.len()))
}

/// The two queries of the unscoped example.
pub async fn run_unscoped(_example: &str, db: &Client) -> Result<Option<usize>, Error> {
    let organizations = db
        .query_by::<Organization>(())
        .range(Organization::ORGANIZATION_ID.eq("123"))
        .all()
        .await?;
    let users = db
        .query_by::<User>(())
        .range(User::USER_ID.eq(USER))
        .all()
        .await?;
    Ok(Some(organizations.len() + users.len()))
}

/// Every scoped item dynorm reads, as text.
pub async fn read_scoped(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<ScopedOrganization>(db).await?,
        super::scanned::<ScopedUser>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Every unscoped item dynorm reads, as text.
pub async fn read_unscoped(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<Organization>(db).await?,
        super::scanned::<User>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}
