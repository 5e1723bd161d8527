//! ElectroDB's attributes used as index keys, said in dynorm
//! (`tests/interop/conformance/attributes_as_indexes.js`): the table's keys are written
//! into the entity's own attributes, and each field reads back out of its key.

use dynorm::{Client, Error, Model};

/// An entity whose keys are its own attributes.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "AttributesAsIndexes",
    entity = "your_entity_name",
    rename_all = "camelCase"
)]
#[dynorm(
    convention = "electrodb",
    service = "your_service_name",
    entity_version = "1"
)]
#[key(accountId = "prefix_{account_id}_postfix", organizationId = [organization_id])]
pub struct Account {
    pub account_id: String,
    pub organization_id: String,
    pub name: Option<String>,
}

/// The account the example reads. ElectroDB lowercases the organization's key, and so its
/// value: it reads back as `aaaa-bbbb-cccc-dddd`.
pub fn seed(_example: &str) -> Vec<Account> {
    vec![Account {
        account_id: "1111-2222-3333-4444".into(),
        organization_id: "AAAA-BBBB-CCCC-DDDD".into(),
        name: Some("Acme".into()),
    }]
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The example's read by key: how many items it found.
pub async fn run(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    match example {
        "indexes-attributes-as-indexes-get" => {
            let found = db
                .get::<Account>(AccountKey {
                    account_id: "1111-2222-3333-4444".into(),
                    organization_id: "AAAA-BBBB-CCCC-DDDD".into(),
                })
                .send()
                .await?;
            Ok(Some(usize::from(found.is_some())))
        }
        _ => panic!("no dynorm side for the example {example}"),
    }
}
