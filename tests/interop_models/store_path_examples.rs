//! ElectroDB's map and list update examples on `StoreLocations`, said in dynorm with paths.

use dynorm::{Client, Error};

use super::store_paths::{ListEntry, MapAttribute, StorePath as S, StorePathKey};

fn key() -> StorePathKey {
    StorePathKey {
        city_id: "Atlanta1".into(),
        mall_id: "EastPointe".into(),
        store_id: "LatteLarrys".into(),
        building_id: "BuildingA1".into(),
    }
}

/// The store every example starts from: the map holds `before`, the list two empty maps.
pub fn seed(_: &str) -> Vec<S> {
    let key = key();
    vec![S {
        city_id: key.city_id,
        mall_id: key.mall_id,
        store_id: key.store_id,
        building_id: key.building_id,
        map_attribute: Some(MapAttribute {
            map_property: Some("before".into()),
        }),
        list_attribute: Some(vec![ListEntry::default(), ListEntry::default()]),
    }]
}

/// The examples dynorm does not say, with why.
pub fn unsaid(name: &str) -> Option<&'static str> {
    match name {
        "update-nested-set-add" | "patch-complex-nested-set" => Some(
            "a value inside an attribute is in serde's form, where a set is a list, and DynamoDB adds elements only to a set: dynorm refuses `add_to_set` on a path (set the list whole)",
        ),
        _ => None,
    }
}

/// Each example writes one path: `mapAttribute.mapProperty`, or removes `listAttribute[0]`.
pub async fn run(name: &str, db: &Client) -> Result<Option<usize>, Error> {
    let update = db.update::<S>(key());
    let update = match name {
        "update-map-property" | "patch-map-property" => {
            update.set(S::MAP_ATTRIBUTE.field::<String>("mapProperty"), "value")
        }
        "update-list-element-remove" | "patch-list-element-remove" => {
            update.remove(S::LIST_ATTRIBUTE.at(0))
        }
        _ => panic!("no dynorm side for the example {name}"),
    };
    update.send().await?;
    Ok(None)
}
