//! The predicted capacity of a write spec: what its request would consume, alone or in a
//! transaction (where every unit counts twice), and, for a model with unique attributes or
//! counts, the requests `guarded.rs` sends for it: the item's own request, the
//! `TransactWriteItems` with its guard items and count updates, and the read before a
//! delete.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::Result;
use crate::item::companion;
use crate::item::write_request::{
    ConditionCheck, Delete, Guarded, Put, Update, WriteKind, WriteSpec,
};
use crate::observe::reads::{self, ByKey};
use crate::observe::writes::{self, Meets, Target};
use crate::observe::Predicted;
use crate::schema::{Schema, Unique};
use crate::value::limits::item_size;
use crate::value::Item;

/// How many times DynamoDB counts each unit of a transaction's operations.
pub(crate) const TRANSACTION_FACTOR: f64 = 2.0;

/// DynamoDB's limit on a partition key value, in bytes: the most a guard's key holds.
const MAX_HASH_KEY_BYTES: usize = 2048;

const CREATED: &str = "a model with unique attributes or counts writes its guard items and \
     count updates with the item, in one TransactWriteItems: every unit counts twice";
const FIRST_ATTEMPT: &str = "a model with unique attributes or counts first sends the item's \
     own request, on condition that no unique value or counted parent changes; when that \
     fails, one TransactWriteItems writes the item with its guard items and count updates \
     (every unit twice): both are counted, and planning again after another writer is not";
const READ_FIRST: &str = "a delete of a model with unique attributes or counts first reads the \
     item (a strongly consistent GetItem), then deletes it alone when there is none, or in \
     one TransactWriteItems with its guard items and count updates (every unit twice)";
const GUARD: &str = "a guard item is charged for its size: its key holds the unique values \
     (up to DynamoDB's 2,048 bytes of a partition key), which only the stored item tells";
const TRANSACT_GUARDED: &str = "a write of a model with unique attributes or counts adds its \
     guard items and count updates to the transaction, and reads its item first (a strongly \
     consistent GetItem) unless it creates it";

/// A write spec's payload, whose request can be predicted.
pub(crate) trait PredictKind {
    /// Adds the write units of `spec`'s request to `predicted`, each counted `factor`
    /// times.
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64)
    where
        Self: Sized;
}

fn target<K>(spec: &WriteSpec<K>, factor: f64) -> Target<'_> {
    Target {
        schema: spec.schema,
        table: &spec.table,
        factor,
    }
}

/// What a put's request says about the item it meets.
fn put_meets<K>(spec: &WriteSpec<K>) -> Meets {
    Meets {
        nothing: spec.checks.absent,
        conditional: spec.condition.is_some(),
    }
}

impl PredictKind for Put {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        let meets = put_meets(spec);
        writes::put(predicted, target(spec, factor), &spec.kind.0, meets);
    }
}

fn update(spec: &WriteSpec<impl Sized>, kind: &Update, predicted: &mut Predicted, factor: f64) {
    writes::update(
        predicted,
        target(spec, factor),
        &kind.key,
        &kind.expression,
        &spec.placeholders.names,
        &spec.placeholders.values,
        spec.condition.is_some(),
    );
}

impl PredictKind for Update {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        update(spec, &spec.kind, predicted, factor);
    }
}

impl PredictKind for Delete {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        writes::delete(predicted, target(spec, factor));
    }
}

impl PredictKind for WriteKind {
    fn predict(spec: &WriteSpec<Self>, predicted: &mut Predicted, factor: f64) {
        let target = target(spec, factor);
        match &spec.kind {
            WriteKind::Put(Put(item)) => writes::put(predicted, target, item, put_meets(spec)),
            WriteKind::Update(kind) => update(spec, kind, predicted, factor),
            WriteKind::Delete(_) => writes::delete(predicted, target),
            WriteKind::ConditionCheck(ConditionCheck(_)) => {
                writes::condition_check(predicted, target)
            }
        }
    }
}

/// Whether a guarded write creates its item (`create`, `insert`): no item to read or
/// replace, so its guards and counts are only added.
fn creates(spec: &WriteSpec) -> bool {
    spec.checks.absent && matches!(spec.guarded, Some(Guarded::Put))
}

/// The prediction of one single write: its own request, or, for a model with unique
/// attributes or counts, every request `guarded.rs` sends for it.
pub(crate) fn single<K>(client: &Client, spec: &WriteSpec<K>) -> Result<Predicted>
where
    K: PredictKind + Clone + Into<WriteKind>,
{
    let mut alone = Predicted::default();
    alone.add_requests(1);
    K::predict(spec, &mut alone, 1.0);
    if spec.guarded.is_none() {
        return Ok(alone);
    }
    guarded(client, &spec.clone().into_any(), alone)
}

/// A guarded write: `alone` is its own request's prediction.
fn guarded(client: &Client, spec: &WriteSpec, alone: Predicted) -> Result<Predicted> {
    let creating = creates(spec);
    let mut transaction = Predicted::default();
    transaction.add_requests(1);
    WriteKind::predict(spec, &mut transaction, TRANSACTION_FACTOR);
    let certain = companions(client, spec, &mut transaction)?;
    if creating {
        // A create whose item has no unique value and no parent is sent alone.
        if !certain {
            return Ok(alone);
        }
        transaction.because(CREATED);
        return Ok(transaction);
    }
    if matches!(spec.guarded, Some(Guarded::Delete)) {
        let mut read = stored_read(spec);
        read.merge(&alone.or(&transaction));
        read.because(READ_FIRST);
        return Ok(read);
    }
    // The first attempt fails, then the transaction is sent.
    let mut retried = Predicted::default();
    retried.add_requests(1);
    writes::failed(&mut retried, target(spec, 1.0));
    retried.merge(&transaction);
    let mut either = alone.or(&retried);
    either.because(FIRST_ATTEMPT);
    Ok(either)
}

/// The strongly consistent `GetItem` of the item a guarded write reads first.
fn stored_read(spec: &WriteSpec) -> Predicted {
    let mut read = Predicted::default();
    read.add_requests(1);
    let bound = spec.schema.item_bound();
    reads::by_key(&mut read, &spec.table, ByKey::Get, true, None, bound);
    read
}

/// Adds the guard items and count updates of `spec` to a transaction's prediction, each
/// unit twice. When the write creates its item, they follow from the item and are
/// certain; otherwise they depend on the item as stored, and each is counted from nothing
/// (the stored item already holds the value) up to its most. Gives whether there is a
/// certain companion.
fn companions(client: &Client, spec: &WriteSpec, predicted: &mut Predicted) -> Result<bool> {
    let Some(guarded) = &spec.guarded else {
        return Ok(false);
    };
    let creating = creates(spec);
    let schema = spec.schema;
    let owner = spec.key();
    // What the write is certain to leave: a put's item, or an update's key and values.
    let new = companion::new_item(guarded, &spec.kind, None);
    // Whether the write may change what these attributes hold.
    let changes = |sources: &[&str]| match guarded {
        Guarded::Update { touches, .. } => {
            sources.iter().any(|s| touches.iter().any(|(t, _)| t == s))
        }
        Guarded::Put | Guarded::Delete => true,
    };
    let guards = target(spec, TRANSACTION_FACTOR);
    let mut certain = false;
    let mut maybe = Predicted::default();
    for unique in schema.uniques {
        let sources: Vec<&str> = unique.sources().collect();
        if !creating && !changes(&sources) {
            continue;
        }
        let (bound, minimal) = guard_bound(schema, unique, &owner)?;
        let claimed = new.as_ref().and_then(|item| unique.values(item));
        let into = if creating {
            &mut *predicted
        } else {
            &mut maybe
        };
        match (claimed, guarded) {
            (Some(values), _) => {
                certain = true;
                let guard = unique.guard_item(schema, &values, &owner)?;
                let meets = Meets {
                    nothing: true,
                    conditional: false,
                };
                writes::put(into, guards, &guard, meets);
            }
            // An update that sets some sources: the others are stored.
            (None, Guarded::Update { .. }) => {
                let indexed = |index: &_| writes::in_index(index, &minimal);
                writes::bounded(into, guards, bound, indexed, GUARD);
            }
            (None, _) => {}
        }
        if !creating {
            let indexed = |index: &_| writes::in_index(index, &minimal);
            writes::bounded(&mut maybe, guards, bound, indexed, GUARD);
        }
    }
    for count in schema.counts {
        // An upsert may create a counted item.
        let upsert = matches!(guarded, Guarded::Update { .. }) && !spec.checks.present;
        if !creating && !upsert && !changes(count.fields) {
            continue;
        }
        let parent = count.parent;
        let table = client.table_name_of(parent);
        let target = Target {
            schema: parent,
            table: &table,
            factor: TRANSACTION_FACTOR,
        };
        let counted = new
            .as_ref()
            .and_then(|item| count.parent_key(item).ok().flatten())
            .is_some();
        if creating {
            if counted {
                certain = true;
                writes::count(predicted, target, count.attribute);
            }
            continue;
        }
        // The parent it leaves, and the one it joins.
        let moves = if matches!(guarded, Guarded::Delete) {
            1
        } else {
            2
        };
        for _ in 0..moves {
            writes::count(&mut maybe, target, count.attribute);
        }
    }
    predicted.merge(&Predicted::default().or(&maybe));
    Ok(certain)
}

/// The most bytes a guard of `unique` owned by `owner` holds, whatever its values: the
/// guard of empty values with its key as long as a partition key can be; and that guard.
fn guard_bound(schema: &'static Schema, unique: &Unique, owner: &Item) -> Result<(usize, Item)> {
    let empty = AttributeValue::S(String::new());
    let values: Vec<&AttributeValue> = unique.sources().map(|_| &empty).collect();
    let guard = unique.guard_item(schema, &values, owner)?;
    let key = match guard.get(schema.hash_key.name) {
        Some(AttributeValue::S(text)) => text.len(),
        _ => 0,
    };
    Ok((item_size(&guard) - key + MAX_HASH_KEY_BYTES, guard))
}

/// The prediction of a transaction's writes, as `transact_write` sends them: each write
/// twice over, and, for a write of a model with unique attributes or counts, its guard
/// items and count updates, and the read of its item before (unless it creates it).
pub(crate) fn transaction(client: &Client, specs: &[WriteSpec]) -> Result<Predicted> {
    let mut predicted = Predicted::default();
    predicted.add_requests(1);
    for spec in specs {
        WriteKind::predict(spec, &mut predicted, TRANSACTION_FACTOR);
        if spec.guarded.is_some() {
            companions(client, spec, &mut predicted)?;
            if !creates(spec) {
                predicted.merge(&stored_read(spec));
            }
            predicted.because(TRANSACT_GUARDED);
        }
    }
    Ok(predicted)
}
