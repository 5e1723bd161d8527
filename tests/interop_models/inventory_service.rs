//! ElectroDB's multi-attribute index with a collection, and its examples as dynorm sees
//! them (`tests/interop/conformance/inventory_service.js`): inventory items and warehouses
//! of the service `warehouse`, both in the collection `inventory` of the multi-attribute
//! index `gsi1`, keyed by country and region, and sorted by city, manufacturer and count
//! for an item, by city and warehouse for a warehouse.
//!
//! dynorm does not say the collection: a shared table's entities key an index alike (the
//! warehouse's `gsi1` is refused at compile time, so it is declared without it here), and
//! a collection is read through its entities' key templates, which a multi-attribute
//! index has none of (a `#[derive(Collection)]` on `gsi1` compiles, and its query is
//! refused: "entity `InventoryItem` of the collection has no key template on `gsi1`").
//! The items are written as ElectroDB writes them all the same: a multi-attribute index
//! adds no attribute of its own.

use dynorm::{Client, Error, Model};

/// An inventory item, by manufacturer; on `gsi1` by place, manufacturer and count.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "InventoryService",
    entity = "inventoryitem",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "warehouse", entity_version = "1")]
#[key(pk = [manufacturer], sk = [model, id])]
#[index(
    name = "gsi1",
    hash_key = [country, region],
    range_key = [city, manufacturer, count]
)]
pub struct InventoryItem {
    pub id: String,
    #[dynorm(rename = "attr1")]
    pub country: String,
    #[dynorm(rename = "attr2")]
    pub region: String,
    #[dynorm(rename = "attr3")]
    pub city: String,
    #[dynorm(rename = "attr4")]
    pub manufacturer: String,
    pub model: String,
    #[dynorm(rename = "attr5")]
    pub count: u32,
    #[dynorm(rename = "attr6")]
    pub product_name: Option<String>,
}

/// A warehouse, by id. ElectroDB's warehouse is also on `gsi1`, sorted by city and
/// warehouse (`attr3`, `attr4`): not declarable beside the inventory item's `gsi1` (above).
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(
    table = "InventoryService",
    entity = "warehouse",
    rename_all = "camelCase"
)]
#[dynorm(convention = "electrodb", service = "warehouse", entity_version = "1")]
#[key(pk = [warehouse_id], sk = [])]
pub struct Warehouse {
    #[dynorm(rename = "attr4")]
    pub warehouse_id: String,
    #[dynorm(rename = "attr1")]
    pub country: String,
    #[dynorm(rename = "attr2")]
    pub region: String,
    #[dynorm(rename = "attr3")]
    pub city: String,
    pub street_address: Option<String>,
}

dynorm::shared_table! {
    /// The service's table.
    pub struct InventoryService { InventoryItem, Warehouse }
}

/// The region of a city of the seed.
fn region(city: &str) -> &'static str {
    if city == "Portland" {
        "Oregon"
    } else {
        "Georgia"
    }
}

fn item(id: &str, city: &str, made: (&str, &str, u32), product: &str) -> InventoryItem {
    InventoryItem {
        id: id.into(),
        country: "US".into(),
        region: region(city).into(),
        city: city.into(),
        manufacturer: made.0.into(),
        model: made.1.into(),
        count: made.2,
        product_name: Some(product.into()),
    }
}

fn warehouse(id: &str, city: &str, street: &str) -> Warehouse {
    Warehouse {
        warehouse_id: id.into(),
        country: "US".into(),
        region: region(city).into(),
        city: city.into(),
        street_address: Some(street.into()),
    }
}

/// Writes the items and warehouses every example starts from, as
/// `inventory_service.js` declares them.
pub async fn put_seed(_example: &str, db: &Client) -> Result<(), Error> {
    for item in [
        item("1", "Atlanta", ("Acme", "X1", 120), "Anvil"),
        item("2", "Atlanta", ("Bolt", "B2", 75), "Hammer"),
        item("3", "Augusta", ("Acme", "X1", 40), "Rocket"),
        item("4", "Savannah", ("Acme", "X2", 10), "Sled"),
        item("5", "Portland", ("Acme", "X1", 300), "Skates"),
    ] {
        db.put(&item).send().await?;
    }
    for warehouse in [
        warehouse("W-ATL", "Atlanta", "1 Peachtree St"),
        warehouse("W-AUG", "Augusta", "2 Broad St"),
        warehouse("W-SAV", "Savannah", "3 Bay St"),
    ] {
        db.put(&warehouse).send().await?;
    }
    Ok(())
}

/// Every item of the table, as dynorm reads it through each entity's scan, as text.
pub async fn read_all(db: &Client) -> Result<Vec<String>, Error> {
    let mut all = [
        super::scanned::<InventoryItem>(db).await?,
        super::scanned::<Warehouse>(db).await?,
    ]
    .concat();
    all.sort();
    Ok(all)
}

/// Why dynorm does not say the examples: both read the collection on `gsi1`, with a
/// condition on its first sort attribute.
pub fn unsaid(name: &str) -> Option<&'static str> {
    Some(match name {
        "indexes-multi-attribute-collection-query" => {
            "a collection on a multi-attribute index is refused (its entities have no key template on it), and a collection query takes no sort key condition (`city` = Atlanta)"
        }
        _ => {
            "a collection on a multi-attribute index is refused (its entities have no key template on it), and a collection query takes no sort key condition (`city` begins with A)"
        }
    })
}

/// No example is said.
pub async fn run(name: &str, _db: &Client) -> Result<Option<usize>, Error> {
    panic!("no dynorm side for the example {name}")
}
