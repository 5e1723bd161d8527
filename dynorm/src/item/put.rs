//! `PutItem`: `create` (conditional on the key being new) and `put`.

use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::types::ReturnValue;

use crate::client::Client;
use crate::error::Result;
use crate::expr::{Condition, Conjunction, Placeholders};
use crate::item::guarded;
use crate::item::predict;
use crate::item::single_write;
use crate::item::whole_item::{prepare_item, WholeItemWrite};
use crate::item::write_request::{self, Checks, Guarded, Put, WriteSpec};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::Model;
use crate::value::Item;

impl Client {
    /// Writes a new item, failing with [`ErrorKind::AlreadyExists`](crate::ErrorKind)
    /// when one with the same key exists. `.overwrite(true)` replaces it instead; on a
    /// model with a `#[version]`, that still checks the version, as `put` does.
    pub fn create<'a, M: Model>(&self, item: &'a M) -> CreateItem<'a, M> {
        CreateItem::new(self, item)
    }

    /// Writes an item, replacing any item with the same key.
    pub fn put<'a, M: Model>(&self, item: &'a M) -> PutItem<'a, M> {
        PutItem::new(self, item)
    }
}

/// Whether a whole-item write requires that no item has its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyMustBeNew {
    Yes,
    No,
}

/// Builds the request of a whole-item write.
pub(crate) fn put_spec<M: Model>(
    client: &Client,
    converted: Result<Item>,
    operation: &'static str,
    write: WholeItemWrite,
    key_must_be_new: KeyMustBeNew,
    condition: Conjunction,
    report: Reporting,
) -> Result<WriteSpec<Put>> {
    if let Some(error) = condition.first_error() {
        return Err(error
            .clone()
            .with_model(M::SCHEMA.model)
            .with_operation(operation));
    }
    let mut converted = converted.map_err(|e| e.with_operation(operation))?;
    let creating = key_must_be_new == KeyMustBeNew::Yes;
    // The version first: a key or `#[combine]` may be rendered from it.
    let version =
        write_request::next_version(&M::SCHEMA, &mut converted, creating, M::__VERSION_MAX)
            .map_err(|e| e.with_operation(operation))?;
    let stored = prepare_item::<M>(converted, write, operation)?;
    let checks = Checks {
        absent: creating || (M::SCHEMA.version.is_some() && version.is_none()),
        version,
        ..Checks::default()
    };
    let mut placeholders = Placeholders::default();
    let condition = write_request::condition(&M::SCHEMA, &checks, condition, &mut placeholders)?;
    Ok(WriteSpec {
        schema: &M::SCHEMA,
        operation,
        table: client.table_name::<M>(),
        kind: Put(stored),
        condition,
        placeholders,
        checks,
        report,
        guarded: M::SCHEMA.has_companions().then_some(Guarded::Put),
    })
}

/// Sends a put, mapping a failed condition to the error its checks explain.
///
/// Whether `M` has companions (unique attributes, counts) is known when the function is
/// compiled: a model without them sends its puts through a path that holds only
/// `PutItem`, so a binary that only puts such models links no transaction, update or
/// delete code. The path with companions is boxed (one allocation more per put of such a
/// model) so that it is not linked where it is not taken.
pub(crate) async fn send_put<M: Model>(
    client: &Client,
    spec: WriteSpec<Put>,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    if const { M::SCHEMA.has_companions() } {
        guarded::send_boxed(client, spec.into_any(), return_values).await
    } else {
        guarded::send_put_single(client, spec, return_values).await
    }
}

/// The `PutItem` input of a put spec.
pub(super) fn preview_put(spec: &WriteSpec<Put>) -> Result<PutItemInput> {
    single_write::preview_write!(
        spec,
        PutItemInput::builder().set_item(Some(spec.kind.0.clone())),
        ReturnValue::None
    )
}

/// What `create` and `put` hold: the item, the caller's condition and the reporting.
struct WholeWrite<'a, M: Model> {
    client: Client,
    item: &'a M,
    condition: Conjunction,
    report: Reporting,
}

impl<M: Model> Clone for WholeWrite<'_, M> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            item: self.item,
            condition: self.condition.clone(),
            report: self.report.clone(),
        }
    }
}

impl<'a, M: Model> WholeWrite<'a, M> {
    fn new(client: &Client, item: &'a M) -> Self {
        Self {
            client: client.clone(),
            item,
            condition: Conjunction::default(),
            report: Reporting::default(),
        }
    }

    fn spec(
        self,
        operation: &'static str,
        write: WholeItemWrite,
        key_must_be_new: KeyMustBeNew,
    ) -> Result<WriteSpec<Put>> {
        put_spec::<M>(
            &self.client,
            self.item.to_item(),
            operation,
            write,
            key_must_be_new,
            self.condition,
            self.report,
        )
    }
}

/// A pending `create`. Build it with [`Client::create`].
#[must_use = "a request does nothing until it is sent"]
pub struct CreateItem<'a, M: Model> {
    write: WholeWrite<'a, M>,
    overwrite: bool,
}

impl<M: Model> Clone for CreateItem<'_, M> {
    fn clone(&self) -> Self {
        Self {
            write: self.write.clone(),
            overwrite: self.overwrite,
        }
    }
}

impl<'a, M: Model> CreateItem<'a, M> {
    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            write: WholeWrite::new(client, item),
            overwrite: false,
        }
    }

    /// Writes even when an item with the same key exists, replacing it.
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// A further condition the write must meet (with `overwrite`, on the replaced item).
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        self.write.condition.push(condition);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec<Put>> {
        let key_must_be_new = if self.overwrite {
            KeyMustBeNew::No
        } else {
            KeyMustBeNew::Yes
        };
        self.write
            .spec("create", WholeItemWrite::Create, key_must_be_new)
    }

    /// Sends the request and returns the item as stored, with its generated defaults
    /// (`insert ... returning`).
    pub async fn send_returning_new(self) -> Result<M> {
        let client = self.write.client.clone();
        let spec = self.spec()?;
        let item = spec.kind.0.clone();
        send_put::<M>(&client, spec, ReturnValue::None).await?;
        M::from_item(item).map_err(|e| e.with_operation("create"))
    }

    /// Sends the request. Without `overwrite`, an existing item gives
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind), carrying the stored item.
    pub async fn send(self) -> Result<()> {
        let client = self.write.client.clone();
        send_put::<M>(&client, self.spec()?, ReturnValue::None)
            .await
            .map(drop)
    }
}

/// A pending `put`. Build it with [`Client::put`].
///
/// With a `#[version]` field holding `v`, it writes `v + 1` on condition that the stored
/// version is still `v` (or, for `v = 0`, that there is no item yet).
#[must_use = "a request does nothing until it is sent"]
pub struct PutItem<'a, M: Model> {
    write: WholeWrite<'a, M>,
}

impl<M: Model> Clone for PutItem<'_, M> {
    fn clone(&self) -> Self {
        Self {
            write: self.write.clone(),
        }
    }
}

impl<'a, M: Model> PutItem<'a, M> {
    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            write: WholeWrite::new(client, item),
        }
    }

    /// A condition the replaced item (or its absence) must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        self.write.condition.push(condition);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec<Put>> {
        self.write
            .spec("put", WholeItemWrite::Replace, KeyMustBeNew::No)
    }

    /// Sends the `PutItem` request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the item it replaced, if any.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        crate::item::decode(old, "put")
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        let client = self.write.client.clone();
        send_put::<M>(&client, self.spec()?, return_values).await
    }
}

request! {
    impl['a, M: Model] CreateItem<'a, M> { write.report => PutItemInput }

    /// The `PutItem` input [`send`](CreateItem::send) would send.
    fn preview(&self) -> Result<PutItemInput> {
        preview_put(&self.clone().spec()?)
    }

    /// Exact where the request decides it, a range with its reasons where the item
    /// already stored does.
    fn predict(&self) -> Result<Predicted> {
        predict::single(&self.write.client, &self.clone().spec()?)
    }
}

request! {
    impl['a, M: Model] PutItem<'a, M> { write.report => PutItemInput }

    /// The `PutItem` input [`send`](PutItem::send) would send.
    fn preview(&self) -> Result<PutItemInput> {
        preview_put(&self.clone().spec()?)
    }

    /// Exact where the request decides it, a range with its reasons where the item
    /// already stored does.
    fn predict(&self) -> Result<Predicted> {
        predict::single(&self.write.client, &self.clone().spec()?)
    }
}
