//! ElectroDB's update edge case examples, said in dynorm.

use dynorm::{Client, Error};

use super::edgecases::{Edgecase as E, EdgecaseKey};

/// The items an example starts from.
pub fn seed(_: &str) -> Vec<E> {
    vec![E {
        attr1: "value1".into(),
        attr2: "value2".into(),
        attr3: "value3".into(),
        attr4: Some("value0".into()),
    }]
}

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
}

/// Both examples set `attr4`. dynorm writes an index's keys together, so the update names
/// the `attr3` of `gsi1pk` (`composite`), which its condition then checks.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    match name {
        "patch-update-composite-edgecase" | "update-composite-attributes-edgecase" => {
            db.update::<E>(EdgecaseKey {
                attr1: "value1".into(),
                attr2: "value2".into(),
            })
            .set(E::ATTR4, "value4")
            .composite(E::ATTR3, "value3")
            .send()
            .await?;
            Ok(None)
        }
        _ => panic!("no dynorm side for the example {name}"),
    }
}
