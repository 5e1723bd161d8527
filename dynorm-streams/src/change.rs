//! A typed change: a stream record decoded as a model, or as a collection enum.

// Records come from the consumer (feature `consumer`) or from Lambda events (feature
// `lambda`); with neither, nothing here is called, and it stays compiled as it is.
#![cfg_attr(not(any(feature = "consumer", feature = "lambda")), allow(dead_code))]

use dynorm::__ext::error::Context as _;
use std::fmt;

use std::time::SystemTime;

use crate::record::{EventName, Record};
use dynorm::__ext::error::{Error, Result};
use dynorm::__ext::schema::entity::KeyCasing;
use dynorm::__ext::schema::template_parse::key_fits;
use dynorm::__ext::schema::unique;
use dynorm::__ext::schema::{entity_name, Collection, Keyed, Model, ModelKey, Schema, View};
use dynorm::__ext::value::Item;

/// What a change did, with the images the stream's view type `V` carries: `T` where the
/// view has the image, [`NoImage`](crate::NoImage) where it does not.
pub enum ChangeKind<T: Send + 'static, V: View> {
    /// A new item was written.
    Insert {
        /// The item after the change.
        new: V::New<T>,
    },
    /// An existing item was replaced or updated.
    Modify {
        /// The item before the change.
        old: V::Old<T>,
        /// The item after the change.
        new: V::New<T>,
    },
    /// A user (or an application) deleted the item.
    Remove {
        /// The item before the change.
        old: V::Old<T>,
    },
    /// DynamoDB's time to live deleted the item: a removal by the `dynamodb.amazonaws.com`
    /// service principal, never confused with a user's delete.
    Expire {
        /// The item before the change.
        old: V::Old<T>,
    },
}

/// A change to one item, decoded: what happened, the item's key, and where the change sits
/// in the stream.
#[non_exhaustive]
pub struct Change<T: Keyed, V: View> {
    /// What happened, with the images the view type carries.
    pub kind: ChangeKind<T, V>,
    /// The item's typed key, read from the record's key attributes: the model's key (such
    /// as `AccountKey { id }`), or for a collection the entity's key in the collection's
    /// key enum. Every view type carries it, keys-only included.
    pub key: T::Key,
    /// The record's sequence number: unique in its shard and increasing within it.
    pub sequence_number: String,
    /// When the change was made, to the second (as DynamoDB reports it).
    pub approximate_creation_time: Option<SystemTime>,
    /// The record's unique id.
    pub event_id: String,
}

impl<T: Keyed, V: View> Change<T, V> {
    /// `"INSERT"`, `"MODIFY"`, `"REMOVE"` or `"EXPIRE"`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            ChangeKind::Insert { .. } => "INSERT",
            ChangeKind::Modify { .. } => "MODIFY",
            ChangeKind::Remove { .. } => "REMOVE",
            ChangeKind::Expire { .. } => "EXPIRE",
        }
    }

    /// Whether the item is gone after this change (removed or expired).
    pub fn is_removal(&self) -> bool {
        matches!(
            self.kind,
            ChangeKind::Remove { .. } | ChangeKind::Expire { .. }
        )
    }
}

impl<T, V> fmt::Debug for ChangeKind<T, V>
where
    T: Send + 'static,
    V: View,
    V::New<T>: fmt::Debug,
    V::Old<T>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Insert { new } => f.debug_struct("Insert").field("new", new).finish(),
            Self::Modify { old, new } => f
                .debug_struct("Modify")
                .field("old", old)
                .field("new", new)
                .finish(),
            Self::Remove { old } => f.debug_struct("Remove").field("old", old).finish(),
            Self::Expire { old } => f.debug_struct("Expire").field("old", old).finish(),
        }
    }
}

impl<T, V> fmt::Debug for Change<T, V>
where
    T: Keyed,
    T::Key: fmt::Debug,
    V: View,
    V::New<T>: fmt::Debug,
    V::Old<T>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Change")
            .field("kind", &self.kind)
            .field("key", &self.key)
            .field("sequence_number", &self.sequence_number)
            .field("approximate_creation_time", &self.approximate_creation_time)
            .field("event_id", &self.event_id)
            .finish()
    }
}

/// How the items of one table decode into `T`: a model (skipping other entities of a
/// shared table) or a collection enum (skipping entities it does not list).
pub struct Decoder<T: Keyed> {
    /// The schema whose table the stream belongs to.
    pub(crate) schema: &'static Schema,
    /// The attribute that holds the entity name, for a shared table.
    entity_attribute: Option<&'static str>,
    /// Decodes an image of entity `entity` (`""` when the table has no entity
    /// attribute), or `None` for an entity `T` does not cover.
    decode: fn(&str, Item) -> Option<Result<T>>,
    /// Decodes the key attributes of an item of entity `entity`, when an image named it;
    /// without one (a keys-only stream), the entity is known by the key's shape. `None`
    /// for an entity `T` does not cover.
    decode_key: KeyDecoder<T::Key>,
}

/// Decodes key attributes as a typed key, given the entity when an image named it.
type KeyDecoder<K> = fn(Option<&str>, Item) -> Option<Result<K>>;

impl<T: Keyed> Clone for Decoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Keyed> Copy for Decoder<T> {}

impl<M: Model> Decoder<M> {
    /// Decodes items as `M`; on a shared table, items of other entities are skipped.
    pub fn model() -> Self {
        fn decode<M: Model>(entity: &str, item: Item) -> Option<Result<M>> {
            match M::SCHEMA.entity {
                Some(own) if own.name != entity || !own.holds(&item) => None,
                // The guard items of unique attributes, in a model's own table.
                None if unique::is_guard(&item) => None,
                _ => Some(M::from_item(item)),
            }
        }
        fn decode_key<M: Model>(entity: Option<&str>, key: Item) -> Option<Result<M::Key>> {
            // No model's own key addresses a guard, so a guard's key is never a model's.
            let ours = match (M::SCHEMA.entity, entity) {
                (Some(own), Some(entity)) => own.name == entity,
                (Some(_), None) => {
                    key_fits(&M::SCHEMA, &key) && !unique::is_guard_key(&M::SCHEMA, &key)
                }
                (None, _) => !unique::is_guard_key(&M::SCHEMA, &key),
            };
            ours.then(|| M::Key::from_key_item(key))
        }
        Self {
            schema: &M::SCHEMA,
            entity_attribute: M::SCHEMA.entity.map(|e| e.attribute),
            decode: decode::<M>,
            decode_key: decode_key::<M>,
        }
    }
}

impl<C: Collection> Decoder<C> {
    /// Decodes items of a shared table as the collection enum `C`, by the entity name;
    /// items of entities `C` does not list are skipped.
    pub fn collection() -> Self {
        fn decode<C: Collection>(_entity: &str, item: Item) -> Option<Result<C>> {
            let owner = dynorm::__ext::schema::collection::owner(C::__ENTITIES, &item)?;
            C::decode(dynorm::__ext::schema::entity_name(owner), item)
        }
        fn decode_key<C: Collection>(entity: Option<&str>, key: Item) -> Option<Result<C::Key>> {
            // Without an image, the first entity (in variant order) whose key templates
            // the key fits.
            let entity = match entity {
                Some(entity) => entity,
                None => C::__ENTITIES
                    .iter()
                    .find(|schema| key_fits(schema, &key))
                    .map(|schema| entity_name(schema))?,
            };
            C::__decode_key(entity, key)
        }
        let schema: &'static Schema = &<C::Anchor as Model>::SCHEMA;
        Self {
            schema,
            entity_attribute: schema.entity.map(|e| e.attribute),
            decode: decode::<C>,
            decode_key: decode_key::<C>,
        }
    }
}

/// A record decoded: a change, or a record of an entity the target does not cover.
pub(crate) enum Decoded<C> {
    Change(Result<C>),
    Skipped,
}

impl<T: Keyed> Decoder<T> {
    /// The entity an item belongs to, by its entity attribute.
    fn entity_of<'a>(&self, item: &'a Item) -> &'a str {
        self.entity_attribute
            .and_then(|attribute| item.get(attribute))
            .and_then(|value| value.as_s().ok())
            .map_or("", String::as_str)
    }

    /// Decodes one record under view type `V`.
    pub(crate) fn decode<V: View>(&self, record: Record) -> Decoded<Change<T, V>> {
        let Record {
            event_name,
            keys,
            new_image,
            old_image,
            sequence_number,
            approximate_creation_time,
            event_id,
            by_ttl,
        } = record;
        // The entity, from whichever image the view carries; a keys-only record has none.
        let new_image = new_image.filter(|_| V::TYPE.has_new_image());
        let old_image = old_image.filter(|_| V::TYPE.has_old_image());
        let keys = with_key_sources(self.schema, keys, new_image.as_ref().or(old_image.as_ref()));
        let entity = new_image
            .as_ref()
            .or(old_image.as_ref())
            .map(|item| self.entity_of(item).to_owned());
        let schema = self.schema;
        let mut skipped = false;
        let mut decode = |item: Item| -> Result<T> {
            let entity = entity.as_deref().unwrap_or("");
            match (self.decode)(entity, item) {
                Some(decoded) => decoded,
                None => {
                    skipped = true;
                    Err(Error::new(dynorm::ErrorKind::Validation, "skipped"))
                }
            }
        };
        let missing = |which: &str| {
            Error::new(
                dynorm::ErrorKind::Validation,
                format!(
                "a {} stream record of `{}` has no {which} image, which its view type {} carries",
                event_name.as_str(),
                schema.model,
                V::TYPE
            ),
            )
            .at_model(schema.model)
            .at_operation("changes")
        };
        let new = |decode: &mut dyn FnMut(Item) -> Result<T>| {
            V::new_image(new_image, decode).unwrap_or_else(|| Err(missing("new")))
        };
        let old = |decode: &mut dyn FnMut(Item) -> Result<T>| {
            V::old_image(old_image, decode).unwrap_or_else(|| Err(missing("old")))
        };
        let kind = match event_name {
            EventName::Insert => new(&mut decode).map(|new| ChangeKind::Insert { new }),
            EventName::Modify => old(&mut decode)
                .and_then(|old| new(&mut decode).map(|new| ChangeKind::Modify { old, new })),
            EventName::Remove if by_ttl => old(&mut decode).map(|old| ChangeKind::Expire { old }),
            EventName::Remove => old(&mut decode).map(|old| ChangeKind::Remove { old }),
        };
        if skipped {
            return Decoded::Skipped;
        }
        let key = match (self.decode_key)(entity.as_deref(), keys) {
            Some(key) => key.map_err(|e| {
                e.at_operation("changes")
                    .in_context("in the key of a stream record")
            }),
            None => return Decoded::Skipped,
        };
        Decoded::Change(kind.and_then(|kind| {
            Ok(Change {
                kind,
                key: key?,
                sequence_number,
                approximate_creation_time,
                event_id,
            })
        }))
    }
}

/// The record's keys, with the image's attributes added when a key template folds case:
/// the folded key has lost the case of the values it was rendered from, and the image
/// has them as written.
fn with_key_sources(schema: &Schema, mut keys: Item, image: Option<&Item>) -> Item {
    let folds = schema
        .entity
        .is_some_and(|e| e.keys.iter().any(|k| k.casing != KeyCasing::None));
    if let (true, Some(image)) = (folds, image) {
        for (name, value) in image {
            keys.entry(name.clone()).or_insert_with(|| value.clone());
        }
    }
    keys
}
