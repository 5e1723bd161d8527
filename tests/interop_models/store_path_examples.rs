//! ElectroDB's map and list update examples on `StoreLocations`, said in dynorm with paths.

use dynorm::{Client, Error, StringSet};

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

/// Every example is said.
pub fn unsaid(_: &str) -> Option<&'static str> {
    None
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
        // The set of the list's second map, a `StringSet`.
        "update-nested-set-add" | "patch-complex-nested-set" => update.add_to_set(
            S::LIST_ATTRIBUTE.at(1).field::<StringSet>("setAttribute"),
            StringSet::from(["setItemValue"]),
        ),
        _ => panic!("no dynorm side for the example {name}"),
    };
    update.send().await?;
    Ok(None)
}
