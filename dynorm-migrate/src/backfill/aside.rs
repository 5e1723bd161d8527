//! Items a backfill set aside: items that do not decode as the model, recorded in the
//! progress table (one item each, under the run, range key `aside#` and a digest of the
//! item's key) so that the run goes on and `migrate status` can list them.

use sha2::{Digest as _, Sha256};

use super::lease::{n, number, s, Progress};
use super::status::SetAside;
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::value::Item;

const PREFIX: &str = "aside#";

/// The range key of the record of the item with key `key`.
fn range_key(key: &Item) -> String {
    format!("{PREFIX}{}", digest(key))
}

/// 32 hex digits that stand for a key: the same for the same key, whatever the order of
/// its attributes.
pub(super) fn digest(key: &Item) -> String {
    let mut names: Vec<_> = key.iter().collect();
    names.sort_unstable_by_key(|(name, _)| *name);
    let mut hasher = Sha256::new();
    for (name, value) in names {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(format!("{value:?}").as_bytes());
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    let mut out = String::with_capacity(32);
    for byte in digest.iter().take(16) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

impl Progress<'_> {
    /// Records that the item `key`, of `shape`, was set aside in `segment` for `error`.
    pub(crate) async fn set_aside(
        &self,
        segment: u32,
        key: &Item,
        shape: u32,
        error: &Error,
    ) -> Result<()> {
        let mut item = self.key(&range_key(key));
        item.insert(
            "key".to_owned(),
            aws_sdk_dynamodb::types::AttributeValue::M(key.clone()),
        );
        item.insert("shape".to_owned(), n(shape));
        item.insert("in_segment".to_owned(), n(segment));
        item.insert("error".to_owned(), s(&error.to_string()));
        if let Some(attribute) = error.attribute() {
            item.insert("attribute".to_owned(), s(attribute));
        }
        self.record(item).await
    }

    /// Every item the run set aside.
    pub(crate) async fn set_aside_items(&self) -> Result<Vec<SetAside>> {
        let items = self.between(PREFIX, &format!("{PREFIX}~")).await?;
        Ok(items.iter().map(record).collect())
    }
}

/// A set-aside record as read.
fn record(item: &Item) -> SetAside {
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    SetAside {
        key: item
            .get("key")
            .and_then(|v| v.as_m().ok())
            .cloned()
            .unwrap_or_default(),
        shape: u32::try_from(number(item, "shape")).unwrap_or(u32::MAX),
        attribute: text("attribute"),
        error: text("error").unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn a_key_has_one_record_whatever_the_order_of_its_attributes() {
        let a = Item::from([
            ("pk".to_owned(), AttributeValue::S("A".into())),
            ("sk".to_owned(), AttributeValue::S("B".into())),
        ]);
        let mut b = Item::new();
        b.insert("sk".to_owned(), AttributeValue::S("B".into()));
        b.insert("pk".to_owned(), AttributeValue::S("A".into()));
        assert_eq!(range_key(&a), range_key(&b));
        let other = Item::from([
            ("pk".to_owned(), AttributeValue::S("B".into())),
            ("sk".to_owned(), AttributeValue::S("A".into())),
        ]);
        assert_ne!(range_key(&a), range_key(&other));
        assert!(range_key(&a).starts_with(PREFIX));
        assert_eq!(range_key(&a).len(), PREFIX.len() + 32);
    }
}
