//! Reading a collection: its whole partition in one query, decoded into its enum.

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use super::partition::Partition;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::schema::collection;
use crate::schema::{entity_name, Collection, Index, Model};

/// The items of a collection's partition.
#[derive(Debug)]
#[non_exhaustive]
pub struct CollectionItems<C> {
    /// The items of the collection's entities, in range key order.
    pub items: Vec<C>,
    /// How many items of other entities the partition held; they are skipped, not failed.
    pub skipped: usize,
}

impl Client {
    /// Reads a collection's whole partition with one query (more only if it spans pages),
    /// decoding each item as the enum variant its entity name says. Await it, or set
    /// [`include_expired`](CollectionQuery::include_expired) first.
    pub fn collection<C: Collection>(
        &self,
        hash: impl Into<<C::Anchor as Index>::HashKey>,
    ) -> CollectionQuery<C> {
        CollectionQuery {
            client: self.clone(),
            hash: hash.into(),
            include_expired: false,
        }
    }
}

/// A pending read of a collection's partition. Build it with [`Client::collection`], then
/// `.await` it.
#[must_use = "a collection read does nothing until it is awaited"]
pub struct CollectionQuery<C: Collection> {
    client: Client,
    hash: <C::Anchor as Index>::HashKey,
    include_expired: bool,
}

impl<C: Collection> CollectionQuery<C> {
    /// Returns items whose `#[ttl]` has passed but that DynamoDB has not deleted yet. By
    /// default they read as absent, as everywhere else.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.include_expired = include;
        self
    }

    /// Sends the query, page after page.
    pub async fn send(self) -> Result<CollectionItems<C>> {
        let CollectionQuery {
            client,
            hash,
            include_expired,
        } = self;
        let this = &client;
        const OPERATION: &str = "collection";
        let schema = &<C::Anchor as Model>::SCHEMA;
        let fail = |e: Error| e.with_model(schema.model).with_operation(OPERATION);
        if schema.entity.is_none() {
            return Err(fail(Error::config(
                "a collection's entities need #[key(...)] templates",
            )));
        }
        let hash = <C::Anchor as Index>::hash_values(&hash).map_err(fail)?;
        let table = this.table_name::<C::Anchor>();
        let partition = Partition {
            model: schema.model,
            operation: OPERATION,
            table: &table,
            index: None,
            hash: &hash,
        };
        let mut out = CollectionItems {
            items: Vec::new(),
            skipped: 0,
        };
        partition
            .read(this, |item| {
                let Some(owner) = collection::owner(C::__ENTITIES, &item) else {
                    out.skipped += 1;
                    return Ok(());
                };
                if !include_expired && owner.is_expired(&item) {
                    return Ok(());
                }
                match C::decode(entity_name(owner), item) {
                    Some(decoded) => out
                        .items
                        .push(decoded.map_err(|e| e.with_operation(OPERATION))?),
                    None => out.skipped += 1,
                }
                Ok(())
            })
            .await?;
        Ok(out)
    }
}

impl<C: Collection> IntoFuture for CollectionQuery<C>
where
    <C::Anchor as Index>::HashKey: Send,
{
    type Output = Result<CollectionItems<C>>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}
