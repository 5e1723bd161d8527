//! `get_unique`: the item that holds a `#[unique]` value, through its guard item.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Attr, Operand};
use crate::item::raw_read::RawRead;
use crate::observe::reads::{self, ByKey};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::unique;
use crate::schema::Unique;
use crate::schema::{Model, ModelKey};
use crate::value::Item;

const OPERATION: &str = "get_unique";

/// How many times the guard is read again when the item it names no longer holds the
/// value (another writer moved it between the two reads).
const MAX_ATTEMPTS: usize = 3;

/// The longest partition key and sort key values DynamoDB stores, in bytes.
const MAX_HASH_KEY_BYTES: usize = 2048;
const MAX_RANGE_KEY_BYTES: usize = 1024;

impl Client {
    /// The item that holds a `#[unique]` value: give a value for every attribute of one
    /// unique constraint, its scope included. It reads the guard item, then the item; with
    /// [`send_key`](GetUnique::send_key), only the guard.
    ///
    /// ```no_run
    /// # use dynorm::Model;
    /// # #[derive(Model)] #[dynorm(unique_name = "User")]
    /// # struct User { #[hash_key] id: String, #[unique] email: String }
    /// # async fn demo(db: dynorm::Client) -> Result<(), dynorm::Error> {
    /// let user: Option<User> = db
    ///     .get_unique::<User>()
    ///     .value(User::EMAIL, "ada@example.com")
    ///     .send()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn get_unique<M: Model>(&self) -> GetUnique<M> {
        GetUnique {
            client: self.clone(),
            values: Vec::new(),
            consistent_read: false,
            report: Reporting::default(),
            model: PhantomData,
        }
    }
}

/// A pending read by unique value. Build it with [`Client::get_unique`].
#[must_use = "a request does nothing until it is sent"]
pub struct GetUnique<M: Model> {
    client: Client,
    values: Vec<(&'static str, Result<AttributeValue>)>,
    consistent_read: bool,
    report: Reporting,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> GetUnique<M> {
    /// The value of one attribute of the constraint (or of its scope).
    pub fn value<T, O, W>(mut self, attr: Attr<M, T, O, W>, value: impl Operand<T>) -> Self {
        let value = match attr.refuse_nested("`get_unique(..).value`") {
            Some(error) => Err(error),
            None => attr.value(&value.into_operand()),
        };
        self.values.push((attr.name(), value));
        self
    }

    /// Reads with strong consistency: a value written just before is found.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// The constraint the values name, and the values in its order.
    fn constraint(&self) -> Result<(&'static Unique, Vec<AttributeValue>)> {
        let fail = |e: Error| e.with_model(M::SCHEMA.model).with_operation(OPERATION);
        let mut given: Vec<(&'static str, AttributeValue)> = Vec::with_capacity(self.values.len());
        for (name, value) in &self.values {
            let value = value.clone().map_err(|e| fail(e.with_attribute(*name)))?;
            if given.iter().any(|(n, _)| n == name) {
                return Err(fail(
                    Error::validation(format!("`{name}` is given twice")).with_attribute(*name),
                ));
            }
            given.push((name, value));
        }
        let matches = |u: &Unique| {
            u.sources().count() == given.len()
                && u.sources().all(|s| given.iter().any(|(n, _)| *n == s))
        };
        let Some(constraint) = M::SCHEMA.uniques.iter().find(|u| matches(u)) else {
            let declared = M::SCHEMA
                .uniques
                .iter()
                .map(|u| format!("[{}]", u.sources().collect::<Vec<_>>().join(", ")))
                .collect::<Vec<_>>();
            let names: Vec<&str> = given.iter().map(|(n, _)| *n).collect();
            let message = if declared.is_empty() {
                "the model has no #[unique] attributes".to_owned()
            } else {
                format!(
                    "no unique constraint is made of [{}]; the model's are {}",
                    names.join(", "),
                    declared.join(", ")
                )
            };
            return Err(fail(Error::validation(message)));
        };
        let values = constraint
            .sources()
            .map(|s| {
                given
                    .iter()
                    .find(|(n, _)| *n == s)
                    .map(|(_, v)| v.clone())
                    .unwrap_or(AttributeValue::Null(true))
            })
            .collect();
        Ok((constraint, values))
    }

    fn reader<'a>(&'a self, table: &'a str) -> RawRead<'a> {
        RawRead {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table,
            consistent: self.consistent_read,
            report: &self.report,
        }
    }

    /// The key of the item the guard names, if the value is taken.
    async fn owner(
        &self,
        table: &str,
        constraint: &Unique,
        values: &[AttributeValue],
    ) -> Result<Option<Item>> {
        let refs: Vec<&AttributeValue> = values.iter().collect();
        let key = constraint
            .guard_key(&M::SCHEMA, &refs)
            .map_err(|e| e.with_operation(OPERATION))?;
        let guard = self.reader(table).send(&self.client, key).await?;
        Ok(guard.and_then(|g| unique::guard_owner(&M::SCHEMA, &g)))
    }

    /// Sends the reads: the item that holds the values, or `None` when none does.
    pub async fn send(self) -> Result<Option<M>> {
        let (constraint, values) = self.constraint()?;
        let table = self.client.table_name::<M>();
        for _ in 0..MAX_ATTEMPTS {
            let Some(owner) = self.owner(&table, constraint, &values).await? else {
                return Ok(None);
            };
            let Some(item) = self.reader(&table).send(&self.client, owner).await? else {
                continue;
            };
            let holds = constraint
                .values(&item)
                .is_some_and(|held| held.into_iter().eq(values.iter()));
            if holds {
                return M::from_item(item)
                    .map(Some)
                    .map_err(|e| e.with_operation(OPERATION));
            }
        }
        Err(Error::new(
            ErrorKind::TransactionConflict,
            format!("the value moved between items {MAX_ATTEMPTS} times while it was read"),
        )
        .with_model(M::SCHEMA.model)
        .with_operation(OPERATION))
    }

    /// The most bytes the guard holds: its key and marker, and the key of the item it
    /// names, as long as DynamoDB allows a key to be.
    fn guard_bound(&self) -> Result<usize> {
        let (constraint, values) = self.constraint()?;
        let refs: Vec<&AttributeValue> = values.iter().collect();
        let schema = &M::SCHEMA;
        let mut owner = Item::new();
        let longest = |bytes: usize| AttributeValue::S("k".repeat(bytes));
        owner.insert(schema.hash_key.name.to_owned(), longest(MAX_HASH_KEY_BYTES));
        if let Some(range) = schema.range_key {
            owner.insert(range.name.to_owned(), longest(MAX_RANGE_KEY_BYTES));
        }
        let guard = constraint
            .guard_item(schema, &refs, &owner)
            .map_err(|e| e.with_model(schema.model).with_operation(OPERATION))?;
        Ok(crate::value::limits::item_size(&guard))
    }

    /// Sends one read, of the guard: the key of the item that holds the values, or `None`.
    pub async fn send_key(self) -> Result<Option<M::Key>> {
        let (constraint, values) = self.constraint()?;
        let table = self.client.table_name::<M>();
        self.owner(&table, constraint, &values)
            .await?
            .map(|key| M::Key::from_key_item(key).map_err(|e| e.with_operation(OPERATION)))
            .transpose()
    }
}

request! {
    impl[M: Model] GetUnique<M> { report => GetItemInput }

    /// The `GetItem` input of the guard, which [`send`](GetUnique::send) reads first (then the
    /// item it names) and [`send_key`](GetUnique::send_key) reads alone, without sending it.
    fn preview(&self) -> Result<GetItemInput> {
        let (constraint, values) = self.constraint()?;
        let refs: Vec<&AttributeValue> = values.iter().collect();
        let fail = |e: Error| e.with_model(M::SCHEMA.model).with_operation(OPERATION);
        let key = constraint.guard_key(&M::SCHEMA, &refs).map_err(fail)?;
        GetItemInput::builder()
            .table_name(self.client.table_name::<M>())
            .set_key(Some(key))
            .consistent_read(self.consistent_read)
            .set_return_consumed_capacity(self.report.capacity())
            .build()
            .map_err(|e| fail(Error::validation(e.to_string())))
    }

    /// The read units of the guard, then of the item it names (none when no item holds
    /// the values); a value another writer moves between the two reads is read again, up
    /// to three times in all.
    fn predict(&self) -> Result<Predicted> {
        let bound = self.guard_bound()?;
        let table = self.client.table_name::<M>();
        let consistent = self.consistent_read;
        let mut guard = Predicted::default();
        guard.add_requests(1);
        reads::by_key(&mut guard, &table, ByKey::Get, consistent, None, bound);
        let mut both = guard.clone();
        both.add_requests(1);
        let item = M::SCHEMA.item_bound();
        reads::by_key(&mut both, &table, ByKey::Get, consistent, None, item);
        let mut moved = Predicted::default();
        for _ in 0..MAX_ATTEMPTS {
            moved.merge(&both);
        }
        Ok(guard.or(&both).or(&moved))
    }
}
