//! The one door generated code uses: the derive's output names only `::dynorm::__private`
//! paths. Not a public API: it may change in any release.

pub use crate::expr::{Optional, ReadOnly, Required, Writable};
pub use crate::relation::checks::{check_reachable, field_pair};
pub use crate::relation::{Many, One, RelationSchema};
pub use crate::schema::collection::entity_name;
pub use crate::schema::collection_check::check_collection;
pub use crate::schema::combine::combined_text;
pub use crate::schema::combine::Combine;
pub use crate::schema::convention::Convention;
pub use crate::schema::entity::{Entity, KeyCasing, KeyTemplate, TemplatePart};
pub use crate::schema::entity_keys::{
    check_entity, entity_key, template_hash_values, write_entity_keys, MissingTableKey,
};
pub use crate::schema::generated::{Generated, GeneratedValue};
pub use crate::schema::index_schema::{IndexKind, IndexSchema, Projection};
pub use crate::schema::key_attribute::KeyAttribute;
pub use crate::schema::key_signature::KeySignature;
pub use crate::schema::shape::{decode_shape, shape_fields, Shape};
pub use crate::schema::shared_table::check_shared_table;
pub use crate::schema::stream_view::{KeysOnly, NewAndOldImages, NewImage, OldImage, StreamView};
pub use crate::schema::table_schema::{Count, Schema};
pub use crate::schema::template_parse::{
    own_key_value, read_own_keys, template_field, template_key_sources,
};
pub use crate::schema::unique::check_guards;
pub use crate::schema::unique_constraint::Unique;
pub use crate::schema::Derived;
pub use crate::schema::{BatchWritable, FromItem, Index, Insertable, Keyed, ModelKey, Streamed};
pub use crate::value::default_of::DefaultOf;
pub use crate::value::scalar::bytes;
pub use crate::value::DateStorage;
// For `dynorm_test::FixedClock`, not generated code.
pub use crate::schema::collection::Member;
pub use crate::value::clock::fix as fix_clock;
pub use crate::Item;
pub use crate::{Attr, Collection, Error, Model, Result};

pub use crate::value::feature_native::feature_native;

/// Date storage, for `DateTime<Utc>` fields.
#[cfg(feature = "chrono")]
pub mod date {
    pub use crate::value::date::{decode, encode};
}
pub use crate::value::field_codec::{
    optional, Decode, DecodeNative, DecodeSerde, Encode, EncodeNative, EncodeSerde,
};
pub use crate::value::{AttrError, KeyScalar, ScalarType};
pub use aws_sdk_dynamodb::types::AttributeValue;

/// The name of the attribute a `#[count]` adds to, which must hold a number.
pub const fn count_attribute<M, T: crate::expr::Numeric, O, W>(
    attr: &Attr<M, T, O, W>,
) -> &'static str {
    attr.name()
}

/// What `Index::hash_values` returns.
pub type HashValues = Result<Vec<(&'static str, AttributeValue)>, Error>;

/// The hash key values of a partition key made of one attribute.
#[inline]
pub fn hash_value(
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> HashValues {
    Ok(vec![(name, key_value(model, name, value)?)])
}

/// Writes one encoded field into an item, or reports which attribute failed. Always
/// inlined: the encoded value is then written into the map where it is made, not moved
/// through a `Result`.
#[inline(always)]
pub fn insert(
    item: &mut Item,
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<(), Error> {
    match value {
        Ok(Some(value)) => {
            item.insert(name.to_owned(), value);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => Err(Error::unstorable(model, name, e)),
    }
}

/// An encoded value, or which attribute could not be stored.
#[inline]
pub fn stored(
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<Option<AttributeValue>, Error> {
    value.map_err(|e| Error::unstorable(model, name, e))
}

/// Names the model and attribute of a decoding error.
#[inline]
pub fn field<T>(
    model: &'static str,
    name: &'static str,
    value: Result<T, AttrError>,
) -> Result<T, Error> {
    value.map_err(|e| Error::conversion(model, name, e))
}

/// A key value for a query, or which attribute could not be encoded.
#[inline]
pub fn key_value(
    model: &'static str,
    name: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<AttributeValue, Error> {
    match value {
        Ok(Some(value)) => Ok(value),
        Ok(None) => Err(Error::validation("a key value cannot be empty")
            .with_model(model)
            .with_attribute(name)),
        Err(e) => Err(Error::unstorable(model, name, e)),
    }
}

/// The stored value of a `#[combine]` or `watch` attribute, from its sources' stored
/// values: `Some(None)` when it computes no value (the item then has no such attribute),
/// and `None` when a source dynorm generates (a `default`, `updated_at`) has no value yet:
/// the item then keeps the field's own value, since every whole-item write builds the
/// attribute again after setting them.
pub fn combine(
    model: &'static str,
    combine: &Combine,
    item: &Item,
    generated: &[&'static str],
) -> Result<Option<Option<AttributeValue>>, Error> {
    if generated.iter().any(|g| !item.contains_key(*g)) {
        return Ok(None);
    }
    combine.value(model, item).map(Some)
}

/// An item holding the stored values of `sources`, as a `watch` attribute's function reads
/// them.
pub fn sources_of(item: &Item, sources: &[&'static str]) -> Item {
    sources
        .iter()
        .filter_map(|s| Some(((*s).to_owned(), item.get(*s)?.clone())))
        .collect()
}
