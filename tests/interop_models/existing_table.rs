//! ElectroDB's example of a table another program wrote, said in dynorm
//! (`tests/interop/conformance/existing_table.js`). Its items have ElectroDB's keys but no
//! identity attributes; ElectroDB reads them with `ignoreOwnership`, dynorm with
//! `ignore_identity()`.

use aws_sdk_dynamodb::types::AttributeValue;
use dynorm::{Client, Error, Model};

/// A store, as ElectroDB's entity declares it.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "ExistingStores",
    entity = "MallStore",
    rename_all = "camelCase"
)]
#[dynorm(
    convention = "electrodb",
    service = "MallStoreDirectory",
    entity_version = "1"
)]
#[key(pk = [city_id, mall_id], sk = [building_id, store_id])]
pub struct ExistingStore {
    pub city_id: String,
    pub mall_id: String,
    pub store_id: String,
    pub building_id: String,
    pub rent: String,
}

dynorm::shared_table! {
    /// The other program's table.
    pub struct ExistingStores { ExistingStore }
}

/// Writes the store as the other program wrote it: the keys and the attributes, no
/// identity.
pub async fn put_seed(_example: &str, db: &Client) -> Result<(), Error> {
    let s = |text: &str| AttributeValue::S(text.to_owned());
    db.sdk()
        .put_item()
        .table_name(db.tables().name::<ExistingStore>())
        .item(
            "pk",
            s("$mallstoredirectory#cityid_atlanta1#mallid_eastpointe"),
        )
        .item(
            "sk",
            s("$mallstore_1#buildingid_buildinga1#storeid_lattelarrys"),
        )
        .item("cityId", s("Atlanta1"))
        .item("mallId", s("EastPointe"))
        .item("storeId", s("LatteLarrys"))
        .item("buildingId", s("BuildingA1"))
        .item("rent", s("4500.00"))
        .send()
        .await
        .expect("the other program's item is written");
    Ok(())
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// The example's read by key: how many items it found.
pub async fn run(example: &str, db: &Client) -> Result<Option<usize>, Error> {
    match example {
        "existing-table-ignore-ownership" => {
            let found = db
                .get::<ExistingStore>(ExistingStoreKey {
                    city_id: "Atlanta1".into(),
                    mall_id: "EastPointe".into(),
                    building_id: "BuildingA1".into(),
                    store_id: "LatteLarrys".into(),
                })
                .ignore_identity()
                .send()
                .await?;
            Ok(Some(usize::from(found.is_some())))
        }
        _ => panic!("no dynorm side for the example {example}"),
    }
}

/// The table's items as dynorm reads them: none is the entity's, so a scan keeps none.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    super::scanned::<ExistingStore>(db).await
}
