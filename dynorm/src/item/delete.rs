//! `DeleteItem` by typed or raw key.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::expr::{Condition, Conjunction, Placeholders};
use crate::item;
use crate::item::write_request::{self, Checks, Delete, Guarded, WriteSpec};
use crate::observe::{request, Predicted, Reporting};
use crate::schema::Model;
use crate::value::Item;

const OPERATION: &str = "delete";

impl Client {
    /// Deletes one item by its typed key.
    pub fn delete<M: Model>(&self, key: impl Into<M::Key>) -> DeleteItem<M> {
        DeleteItem::with_key(self, item::typed_key::<M>(&key.into(), OPERATION))
    }
}

/// A pending `DeleteItem`. Build it with [`Client::delete`].
#[must_use = "a request does nothing until it is sent"]
pub struct DeleteItem<M: Model> {
    client: Client,
    key: Result<Item>,
    checks: Checks,
    condition: Conjunction,
    expect_version_error: Option<Error>,
    report: Reporting,
    model: PhantomData<fn() -> M>,
}

impl<M: Model> Clone for DeleteItem<M> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            key: self.key.clone(),
            checks: self.checks.clone(),
            condition: self.condition.clone(),
            expect_version_error: self.expect_version_error.clone(),
            report: self.report.clone(),
            model: PhantomData,
        }
    }
}

impl<M: Model> DeleteItem<M> {
    /// Deletes one item of `M` by raw key attributes, skipping the fields' storage:
    /// `DeleteItem::<User>::raw(&db, key)`.
    pub fn raw(client: &Client, key: Item) -> Self {
        Self::with_key(client, item::raw_key::<M>(key, OPERATION))
    }

    fn with_key(client: &Client, key: Result<Item>) -> Self {
        Self {
            client: client.clone(),
            key,
            checks: Checks::default(),
            condition: Conjunction::default(),
            expect_version_error: None,
            report: Reporting::default(),
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
            None => {
                self.expect_version_error =
                    Some(Error::validation("the model has no #[version] attribute"))
            }
        }
        self
    }

    /// A condition the stored item must meet.
    pub fn condition(mut self, condition: Condition<M>) -> Self {
        self.condition.push(condition);
        self
    }

    pub(crate) fn spec(self) -> Result<WriteSpec<Delete>> {
        let fail = |e: Error| e.with_model(M::SCHEMA.model).with_operation(OPERATION);
        if let Some(error) = self
            .expect_version_error
            .or_else(|| self.condition.first_error().cloned())
        {
            return Err(fail(error));
        }
        let key = self.key?;
        let mut placeholders = Placeholders::default();
        let condition =
            write_request::condition(&M::SCHEMA, &self.checks, self.condition, &mut placeholders)
                .map_err(fail)?;
        Ok(WriteSpec {
            schema: &M::SCHEMA,
            operation: OPERATION,
            table: self.client.table_name::<M>(),
            kind: Delete(key),
            condition,
            placeholders,
            checks: self.checks,
            report: self.report,
            guarded: M::SCHEMA.has_companions().then_some(Guarded::Delete),
        })
    }

    async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
        item::guarded::send_spec(self.client.clone(), self.spec(), return_values).await
    }

    /// Sends the `DeleteItem` request.
    pub async fn send(self) -> Result<()> {
        self.send_with(ReturnValue::None).await.map(drop)
    }

    /// Sends the request and returns the deleted item, if there was one.
    pub async fn send_returning_old(self) -> Result<Option<M>> {
        let old = self.send_with(ReturnValue::AllOld).await?;
        item::decode(old, OPERATION)
    }
}

request! {
    impl[M: Model] DeleteItem<M> { report => DeleteItemInput }

    /// The `DeleteItem` input [`send`](DeleteItem::send) would send, without sending it. Every
    /// error `send` would find before sending is found here.
    fn preview(&self) -> Result<DeleteItemInput> {
        let spec = self.clone().spec()?;
        item::single_write::preview_write!(
            &spec,
            DeleteItemInput::builder().set_key(Some(spec.kind.0.clone())),
            ReturnValue::None
        )
    }

    /// Exact where the request decides it, a range with its reasons where the item
    /// already stored does.
    fn predict(&self) -> Result<Predicted> {
        item::predict::single(&self.client, &self.clone().spec()?)
    }
}
