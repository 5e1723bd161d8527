//! What a batch write is made from, and how it is made: the item converted (or the key to
//! delete), as a `WriteRequest`, with its size.

use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};

use crate::error::{Error, Result};
use crate::item::whole_item::{stored_item, WholeItemWrite};
use crate::observe::writes::{self, Target};
use crate::observe::Predicted;
use crate::schema::key_signature::{self, KeySignature};
use crate::schema::{Model, Schema};
use crate::value::limits::item_size;
use crate::value::Item;

pub(super) const OPERATION: &str = "batch_write";

/// What a write is made from: a borrowed model to put, or a key to delete. A write is
/// made just before it is sent, and made again if a request that held it fails.
#[derive(Clone)]
pub(super) enum Source<'a> {
    Put(&'a dyn PutSource),
    Delete(Item, &'static Schema),
}

/// A model, with its type erased, that a batch converts when it sends it.
pub(super) trait PutSource: Sync {
    fn put_item(&self) -> Result<Item>;
    /// The model's schema, which names it.
    fn schema(&self) -> &'static Schema;
    /// The exact signature of the model's key.
    fn key_bytes(&self) -> Result<Vec<u8>>;
}

impl<M: Model> PutSource for M {
    fn put_item(&self) -> Result<Item> {
        stored_item(self, WholeItemWrite::Replace, OPERATION)
    }

    fn schema(&self) -> &'static Schema {
        &M::SCHEMA
    }

    fn key_bytes(&self) -> Result<Vec<u8>> {
        let mut signature = KeySignature::bytes(&M::SCHEMA, OPERATION);
        self.__key_signature(&mut signature)?;
        Ok(signature.into_bytes())
    }
}

impl Source<'_> {
    /// Adds the write units of the write, into the table named `table`, to `predicted`.
    pub(super) fn predict(&self, table: &str, predicted: &mut Predicted) -> Result<()> {
        let (schema, put) = match self {
            Source::Put(model) => (model.schema(), Some(model.put_item()?)),
            Source::Delete(_, schema) => (*schema, None),
        };
        let target = Target {
            schema,
            table,
            factor: 1.0,
        };
        match put {
            Some(item) => writes::put(predicted, target, &item, writes::Meets::default()),
            None => writes::delete(predicted, target),
        }
        Ok(())
    }

    /// The exact signature of the write's key.
    pub(super) fn key_bytes(&self) -> Result<Vec<u8>> {
        match self {
            Source::Put(model) => model.key_bytes(),
            Source::Delete(key, schema) => Ok(key_signature::of_item(schema, key)),
        }
    }

    /// The write and its size. An item over DynamoDB's 400 KB limit is refused here.
    pub(super) fn build(&self) -> Result<(WriteRequest, usize)> {
        match self {
            Source::Put(model) => {
                let item = model
                    .put_item()
                    .map_err(|e| e.with_model(model.schema().model))?;
                let size = item_size(&item);
                let put = PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))?;
                Ok((WriteRequest::builder().put_request(put).build(), size))
            }
            Source::Delete(key, _) => {
                let size = item_size(key);
                let delete = DeleteRequest::builder()
                    .set_key(Some(key.clone()))
                    .build()
                    .map_err(|e| Error::validation(e.to_string()).with_operation(OPERATION))?;
                Ok((WriteRequest::builder().delete_request(delete).build(), size))
            }
        }
    }
}
