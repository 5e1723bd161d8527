//! ElectroDB's multi-attribute index examples, said in dynorm with `#[index(hash_key = [..],
//! range_key = [..])]`.

use dynorm::{Client, Error};

use super::inventory::{InventoryItem as I, InventoryItemGsi1};

fn item(id: &str, place: (&str, &str, &str), made: (&str, &str, u32), name: &str) -> I {
    I {
        id: id.into(),
        country: place.0.into(),
        region: place.1.into(),
        city: place.2.into(),
        manufacturer: made.0.into(),
        model: made.1.into(),
        count: made.2,
        name: Some(name.into()),
    }
}

/// The items every example starts from, as `inventory.js` declares them.
pub fn seed(_: &str) -> Vec<I> {
    let atlanta = ("US", "Georgia", "Atlanta");
    vec![
        item("1", atlanta, ("Acme", "X1", 120), "Anvil"),
        item("2", atlanta, ("Acme", "X1", 40), "Rocket"),
        item("3", atlanta, ("Bolt", "B2", 75), "Hammer"),
        item(
            "4",
            ("US", "Oregon", "Portland"),
            ("Acme", "X1", 300),
            "Sled",
        ),
    ]
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// A query of Atlanta's items on `gsi1`, with the example's sort condition.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let atlanta = db.query_by::<InventoryItemGsi1>((
        "US".to_owned(),
        "Georgia".to_owned(),
        "Atlanta".to_owned(),
    ));
    let acme_x1 = || I::MANUFACTURER.eq("Acme");
    let query = match name {
        "indexes-multi-attribute-basic-query" => atlanta,
        "indexes-multi-attribute-begins" => atlanta.range(I::MANUFACTURER.begins_with("A")),
        "indexes-multi-attribute-between" => atlanta
            .range(acme_x1())
            .range(I::MODEL.eq("X1"))
            .range(I::COUNT.between(50, 200)),
        "indexes-multi-attribute-gt" => atlanta
            .range(acme_x1())
            .range(I::MODEL.eq("X1"))
            .range(I::COUNT.gt(100)),
        _ => panic!("no dynorm side for the example {name}"),
    };
    Ok(Some(query.all().await?.len()))
}
