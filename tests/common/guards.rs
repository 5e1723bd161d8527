//! The guard items of unique attributes, read raw: the invariant every test checks.

use std::collections::HashMap;

use dynorm::types::AttributeValue;
use dynorm::{Client, Item, Model};

/// Every item and guard of the table, raw.
pub async fn scan_all(db: &Client, table: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .sdk()
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("the scan succeeds");
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return items;
        }
    }
}

/// The guards' invariant: each unique value held by an item has exactly one guard, whose
/// owner is that item, and every guard is such a guard. Returns the number of guards.
pub async fn check_guards<M: Model>(db: &Client) -> usize {
    let schema = &M::SCHEMA;
    let table = db.tables().name::<M>();
    let all = scan_all(db, &table).await;
    let (guards, items): (Vec<Item>, Vec<Item>) = all
        .into_iter()
        .partition(|item| item.contains_key("__dynorm_unique__"));
    let key_of = |item: &Item| -> String {
        let values: Vec<&AttributeValue> = schema.keys.iter().map(|k| &item[k.name]).collect();
        format!("{values:?}")
    };
    let mut expected: HashMap<String, String> = HashMap::new();
    for item in &items {
        for constraint in schema.uniques {
            let Some(values) = constraint.values(item) else {
                continue;
            };
            let guard = constraint.guard_key(schema, &values).unwrap();
            let previous = expected.insert(key_of(&guard), key_of(item));
            assert!(
                previous.is_none(),
                "two items hold {}",
                constraint.describe(&values)
            );
        }
    }
    assert_eq!(
        guards.len(),
        expected.len(),
        "one guard per held value, no stray guard"
    );
    for guard in &guards {
        let owner = expected
            .get(&key_of(guard))
            .unwrap_or_else(|| panic!("the guard {guard:?} guards no held value"));
        let mut named = vec![&guard["__dynorm_owner_hash__"]];
        if schema.range_key.is_some() {
            named.push(&guard["__dynorm_owner_range__"]);
        }
        assert_eq!(
            &format!("{named:?}"),
            owner,
            "the guard names the item that holds the value"
        );
    }
    guards.len()
}

/// `item` (written around dynorm) as an item its counts already hold: marked as every
/// write that counts it marks it (`__dynorm_counted__`).
pub fn as_counted<M: Model>(mut item: Item) -> Item {
    let mut ids: Vec<String> = M::SCHEMA.counts.iter().map(|c| c.id()).collect();
    ids.sort_unstable();
    item.insert(
        "__dynorm_counted__".to_owned(),
        AttributeValue::S(ids.join(";")),
    );
    item
}
