//! `DeleteItem` by typed or raw key.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::client::Client;
use crate::condition::{Condition, Expr};
use crate::error::{Error, Result};
use crate::expr::Placeholders;
use crate::model::{Item, Model};
use crate::ops::write::{self, Checks, WriteKind, WriteSpec};
use crate::ops::{self};

const OPERATION: &str = "delete";

/// A pending `DeleteItem`. Build it with [`Client::delete`].
#[must_use = "a request does nothing until it is sent"]
pub struct DeleteItem<M: Model> {
    client: Client,
    key: Result<Item>,
    checks: Checks,
    condition: Vec<Expr>,
    errors: Vec<Error>,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> DeleteItem<M> {
    pub(crate) fn new(client: &Client, key: M::Key) -> Self {
        Self::with_key(client, ops::typed_key::<M>(&key, OPERATION))
    }

    pub(crate) fn new_raw(client: &Client, key: Item) -> Self {
        Self::with_key(client, ops::raw_key::<M>(key, OPERATION))
    }

    fn with_key(client: &Client, key: Result<Item>) -> Self {
        Self {
            client: client.clone(),
            key,
            checks: Checks::default(),
            condition: Vec::new(),
            errors: Vec::new(),
            model: PhantomData,
        }
    }

    /// Fails with [`ErrorKind::NotFound`](crate::ErrorKind) when there is no such item,
    /// instead of succeeding without deleting anything.
    pub fn require_exists(mut self, require: bool) -> Self {
        self.checks.present = require;
        self
    }

    /// Deletes only if the stored `#[version]` is `version`; otherwise
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind).
    pub fn expect_version(mut self, version: u64) -> Self {
        match M::SCHEMA.version {
            Some(_) => self.checks.version = Some(AttributeValue::N(version.to_string())),
            None => self
                .errors
                .push(Error::validation("the model has no #[version] attribute")),
        }
        self
    }

    /// A condition the stored item must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        let (parts, errors) = condition.into_conjuncts();
        self.condition.extend(parts);
        self.errors.extend(errors);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec> {
        if let Some(error) = self.errors.into_iter().next() {
            return Err(error.with_model(M::SCHEMA.model).with_operation(OPERATION));
        }
        let key = self.key?;
        let mut placeholders = Placeholders::default();
        let condition =
            write::condition(&M::SCHEMA, &self.checks, self.condition, &mut placeholders);
        Ok(WriteSpec {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table: self.client.table_name::<M>(),
            kind: WriteKind::Delete(key),
            condition,
            placeholders,
            checks: self.checks,
        })
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        let client = self.client.clone();
        let spec = self.spec()?;
        let WriteKind::Delete(key) = spec.kind.clone() else {
            unreachable!("a delete spec holds a key")
        };
        write::send_write!(
            &spec,
            client.sdk().delete_item().set_key(Some(key)),
            return_values,
            DeleteItemError
        )
    }

    /// Sends the request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the deleted item, if there was one.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        ops::decode(old, OPERATION)
    }
}
