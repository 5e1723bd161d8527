//! An update that reads the sources of the keys it rebuilds from the stored item first
//! ([`UpdateItem::read_composite`]): one strongly consistent `GetItem`, then the
//! `UpdateItem` on condition that the item still holds what was read, read again when
//! another writer changed it in between.

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::error::{Error, ErrorKind, Result};
use crate::item::guarded;
use crate::item::raw_read::RawRead;
use crate::item::update_item::UpdateItem;
use crate::item::write_request::{Update, WriteSpec};
use crate::observe::reads::{self, ByKey};
use crate::observe::Predicted;
use crate::schema::Model;
use crate::value::Item;

/// How many times an update reads the stored item before it gives up, when other writers
/// keep changing the sources it read.
pub(crate) const READ_ATTEMPTS: u32 = 3;

const OPERATION: &str = "update";

const READ_FIRST: &str = "the update reads its keys' sources from the stored item first (one \
     strongly consistent GetItem), and again, at most 3 times in all, when another writer \
     changes them in between";

/// Reads what the update lacks, then sends it on condition that the item still holds it.
pub(crate) async fn send<M: Model>(
    update: UpdateItem<M>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let missing = update.missing_sources()?;
    let client = update.client().clone();
    if missing.is_empty() {
        return guarded::send_spec(client, update.spec(), return_values).await;
    }
    // Every error found before sending is found before the read.
    stand_in_spec(&update, &missing)?;
    for _ in 0..READ_ATTEMPTS {
        let (key, table, report) = update.read_target()?;
        let read = RawRead {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table: &table,
            consistent: true,
            report,
        };
        let stored = read.send(&client, key).await?;
        if stored.is_none() && !update.is_upsert() {
            // Nothing to update: what the update would find too.
            return Err(Error::new(ErrorKind::NotFound, "no item has this key")
                .with_model(M::SCHEMA.model)
                .with_operation(OPERATION));
        }
        let values: Vec<(&'static str, Option<AttributeValue>)> = missing
            .iter()
            .map(|source| {
                (
                    *source,
                    stored.as_ref().and_then(|i| i.get(*source)).cloned(),
                )
            })
            .collect();
        let attempt = update.clone().with_read(values.clone());
        match guarded::send_spec(client.clone(), attempt.spec(), return_values.clone()).await {
            Err(error)
                if error.kind() == ErrorKind::ConditionFailed && changed(&values, error.item()) => {
            }
            other => return other,
        }
    }
    Err(Error::new(
        ErrorKind::ConditionFailed,
        format!(
            "the stored item's {} changed {READ_ATTEMPTS} times between the read and the update: \
             other writers keep changing them",
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with_model(M::SCHEMA.model)
    .with_operation(OPERATION)
    .with_attribute(missing.first().copied().unwrap_or_default()))
}

/// Whether the item a failed condition returned no longer holds the values read.
fn changed(read: &[(&'static str, Option<AttributeValue>)], now: Option<&Item>) -> bool {
    read.iter()
        .any(|(name, value)| now.and_then(|item| item.get(*name)) != value.as_ref())
}

/// The update's request with stand-ins for the values it would read: absent, or where an
/// absent one cannot render, the shortest text. Its errors are those of any request the
/// update can send, found before reading.
fn stand_in_spec<M: Model>(
    update: &UpdateItem<M>,
    missing: &[&'static str],
) -> Result<WriteSpec<Update>> {
    let stand_in = |value: Option<AttributeValue>| {
        let values = missing.iter().map(|m| (*m, value.clone())).collect();
        update.clone().with_read(values).spec()
    };
    stand_in(None).or_else(|_| stand_in(Some(AttributeValue::S("0".into()))))
}

/// The prediction of an update that may read first: the `GetItem`, when the update needs
/// a stored value, then the `UpdateItem`, predicted with stand-ins for the values it
/// would read.
pub(crate) fn predict<M: Model>(update: &UpdateItem<M>) -> Result<Predicted> {
    let missing = update.missing_sources()?;
    if missing.is_empty() {
        return crate::item::predict::single(update.client(), &update.clone().spec()?);
    }
    let spec = stand_in_spec(update, &missing)?;
    let mut predicted = Predicted::default();
    predicted.add_requests(1);
    let (_, table, _) = update.read_target()?;
    reads::by_key(
        &mut predicted,
        &table,
        ByKey::Get,
        true,
        None,
        M::SCHEMA.item_bound(),
    );
    predicted.because(READ_FIRST);
    predicted.merge(&crate::item::predict::single(update.client(), &spec)?);
    Ok(predicted)
}
