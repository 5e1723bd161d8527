//! `PutItem`: `create` (conditional on the key being new) and `put`.

use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::ReturnValue;

use crate::client::Client;
use crate::condition::{Condition, Expr};
use crate::error::{Error, Result};
use crate::expr::Placeholders;
use crate::model::{Item, Model};
use crate::ops::write::{self, Checks, WriteKind, WriteSpec};
use crate::ops::{self};

/// Builds the spec of a whole-item write.
fn put_spec<M: Model>(
    client: &Client,
    item: &M,
    operation: &'static str,
    creating: bool,
    user: Vec<Expr>,
    errors: Vec<Error>,
) -> Result<WriteSpec> {
    if let Some(error) = errors.into_iter().next() {
        return Err(error.with_model(M::SCHEMA.model).with_operation(operation));
    }
    let mut stored = item.to_item().map_err(|e| e.with_operation(operation))?;
    if operation == "create" {
        M::SCHEMA.apply_defaults(&mut stored);
    }
    M::SCHEMA.touch_updated_at(&mut stored);
    // Defaults can be key parts (a generated id): render the keys again, strictly.
    if M::SCHEMA.entity.is_some() {
        crate::entity::write_entity_keys(&M::SCHEMA, &mut stored, true)
            .map_err(|e| e.with_operation(operation))?;
    }
    let version = write::next_version(&M::SCHEMA, &mut stored, creating)
        .map_err(|e| e.with_operation(operation))?;
    let checks = Checks {
        absent: creating || (M::SCHEMA.version.is_some() && version.is_none()),
        present: false,
        version,
    };
    let mut placeholders = Placeholders::default();
    let condition = write::condition(&M::SCHEMA, &checks, user, &mut placeholders);
    Ok(WriteSpec {
        schema: &M::SCHEMA,
        operation,
        table: client.table_name::<M>(),
        kind: WriteKind::Put(stored),
        condition,
        placeholders,
        checks,
    })
}

/// Sends a put, mapping a failed condition to the error its checks explain.
async fn send_put(
    client: &Client,
    spec: WriteSpec,
    return_values: ReturnValue,
) -> Result<Option<Item>> {
    let WriteKind::Put(item) = spec.kind.clone() else {
        unreachable!("a put spec holds an item")
    };
    write::send_write!(
        &spec,
        client.sdk().put_item().set_item(Some(item)),
        return_values,
        PutItemError
    )
}

/// A pending `create`. Build it with [`Client::create`].
#[must_use = "a request does nothing until it is sent"]
pub struct CreateItem<'a, M: Model> {
    client: Client,
    item: &'a M,
    overwrite: bool,
    condition: Vec<Expr>,
    errors: Vec<Error>,
}

impl<'a, M: Model> CreateItem<'a, M> {
    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            client: client.clone(),
            item,
            overwrite: false,
            condition: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Writes even when an item with the same key exists, replacing it.
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// A further condition the write must meet (with `overwrite`, on the replaced item).
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        let (parts, errors) = condition.into_conjuncts();
        self.condition.extend(parts);
        self.errors.extend(errors);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec> {
        let operation = "create";
        let creating = !self.overwrite;
        put_spec(
            &self.client,
            self.item,
            operation,
            creating,
            self.condition,
            self.errors,
        )
    }

    /// Sends the request and returns the item as stored, with its generated defaults
    /// (`insert ... returning`).
    pub async fn send_returning(self) -> Result<M> {
        let client = self.client.clone();
        let spec = self.spec()?;
        let WriteKind::Put(item) = spec.kind.clone() else {
            unreachable!("a put spec holds an item")
        };
        send_put(&client, spec, ReturnValue::None).await?;
        M::from_item(item).map_err(|e| e.with_operation("create"))
    }

    /// Sends the request. Without `overwrite`, an existing item gives
    /// [`ErrorKind::AlreadyExists`](crate::ErrorKind), carrying the stored item.
    pub async fn send(self) -> Result<()> {
        let client = self.client.clone();
        let spec = self.spec()?;
        send_put(&client, spec, ReturnValue::None).await.map(drop)
    }
}

/// A pending `put`. Build it with [`Client::put`].
///
/// With a `#[version]` field holding `v`, it writes `v + 1` on condition that the stored
/// version is still `v` (or, for `v = 0`, that there is no item yet).
#[must_use = "a request does nothing until it is sent"]
pub struct PutItem<'a, M: Model> {
    client: Client,
    item: &'a M,
    condition: Vec<Expr>,
    errors: Vec<Error>,
}

impl<'a, M: Model> PutItem<'a, M> {
    pub(crate) fn new(client: &Client, item: &'a M) -> Self {
        Self {
            client: client.clone(),
            item,
            condition: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// A condition the replaced item (or its absence) must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        let (parts, errors) = condition.into_conjuncts();
        self.condition.extend(parts);
        self.errors.extend(errors);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec> {
        put_spec(
            &self.client,
            self.item,
            "put",
            false,
            self.condition,
            self.errors,
        )
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        let client = self.client.clone();
        let spec = self.spec()?;
        send_put(&client, spec, ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the item it replaced, if any.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let client = self.client.clone();
        let spec = self.spec()?;
        let old = send_put(&client, spec, ReturnValue::AllOld).await?;
        ops::decode(old, "put")
    }
}
