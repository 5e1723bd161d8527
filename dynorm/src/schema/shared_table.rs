//! Tables that several single-table entities share: the declaration macro and its
//! compile-time checks.

use crate::schema::const_text::ConstText;
use crate::schema::convention::Convention;
use crate::schema::entity::{Entity, KeyTemplate};
use crate::schema::Derived;
use crate::schema::{table_definition, Schema};

/// Whether one of two texts starts with the other, in a const context.
const fn overlaps(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = if a.len() < b.len() { a.len() } else { b.len() };
    let mut i = 0;
    while i < n {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two texts are equal, in a const context.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && overlaps(a, b)
}

/// Whether two entities follow the same identity convention (the version and the
/// timestamps may differ per entity, as in the libraries themselves).
const fn same_convention(a: &Convention, b: &Convention) -> bool {
    matches!(
        (a, b),
        (Convention::Dynorm, Convention::Dynorm)
            | (Convention::ElectroDb { .. }, Convention::ElectroDb { .. })
            | (Convention::Toolbox { .. }, Convention::Toolbox { .. })
    )
}

/// The template of the hash (`hash = true`) or range key of `index` (`None`: the table),
/// in a const context.
pub(crate) const fn key_template(
    entity: &Entity,
    index: Option<&str>,
    hash: bool,
) -> Option<&'static KeyTemplate> {
    let mut i = 0;
    while i < entity.keys.len() {
        let key = &entity.keys[i];
        let on_index = match (key.index, index) {
            (None, None) => true,
            (Some(a), Some(b)) => same(a, b),
            _ => false,
        };
        if on_index && key.is_hash == hash {
            return Some(key);
        }
        i += 1;
    }
    None
}

/// Whether two templates could render the same value: one static prefix starts the other,
/// or both are the same fully static text.
const fn could_collide(a: Option<&KeyTemplate>, b: Option<&KeyTemplate>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => overlaps(a.static_prefix(), b.static_prefix()),
        (None, None) => true,
        _ => false,
    }
}

/// The compile-time checks of a shared table, run by [`shared_table!`](crate::shared_table):
/// every entity names the same table, keys and entity attribute; no two entities share a
/// name; the same index has the same keys everywhere; and no two entities' static key
/// prefixes could produce the same key. A failure stops the build with a message that
/// names the two models.
pub const fn check_shared_table(schemas: &[&Schema]) {
    let mut i = 0;
    while i < schemas.len() {
        if schemas[i].entity.is_none() {
            ConstText::new()
                .push("`")
                .push(schemas[i].model)
                .push("` is in a shared table, so it needs #[key(...)] templates")
                .fail();
        }
        let mut j = i + 1;
        while j < schemas.len() {
            check_pair(schemas[i], schemas[j]);
            j += 1;
        }
        i += 1;
    }
}

/// `` `A` `` and `` `B` ``: the start of a message about two models.
const fn pair(a: &Schema, b: &Schema) -> ConstText {
    ConstText::new()
        .push("`")
        .push(a.model)
        .push("` and `")
        .push(b.model)
        .push("`")
}

/// `` `name` ``, or `none`.
const fn quoted_or_none(text: ConstText, name: Option<&str>) -> ConstText {
    match name {
        Some(name) => text.push("`").push(name).push("`"),
        None => text.push("none"),
    }
}

/// The checks of two entities of one shared table.
const fn check_pair(a: &Schema, b: &Schema) {
    let (Some(ea), Some(eb)) = (&a.entity, &b.entity) else {
        // Reported by `check_shared_table`.
        return;
    };
    if !same(a.table, b.table) {
        pair(a, b)
            .push(" name the tables `")
            .push(a.table)
            .push("` and `")
            .push(b.table)
            .push("`: the entities of a shared table must all name the same table")
            .fail();
    }
    if !same(a.hash_key.name, b.hash_key.name) {
        pair(a, b)
            .push(" have the hash key attributes `")
            .push(a.hash_key.name)
            .push("` and `")
            .push(b.hash_key.name)
            .push("`: the entities of a shared table must use the same hash key attribute")
            .fail();
    }
    let (ra, rb) = (range_name(a), range_name(b));
    let same_range = match (ra, rb) {
        (Some(ra), Some(rb)) => same(ra, rb),
        (None, None) => true,
        _ => false,
    };
    if !same_range {
        let text = quoted_or_none(pair(a, b).push(" have the range key attributes "), ra);
        quoted_or_none(text.push(" and "), rb)
            .push(": the entities of a shared table must use the same range key attribute")
            .fail();
    }
    if !same_convention(&ea.convention, &eb.convention) {
        pair(a, b)
            .push(" follow different conventions: the entities of a shared table follow one convention, dynorm's, ElectroDB's or DynamoDB-Toolbox's")
            .fail();
    }
    if !same(ea.attribute, eb.attribute) {
        pair(a, b)
            .push(" store their entity names in `")
            .push(ea.attribute)
            .push("` and `")
            .push(eb.attribute)
            .push("`: the entities of a shared table must use the same attribute")
            .fail();
    }
    if same(ea.name, eb.name) {
        pair(a, b)
            .push(" have the same entity name `")
            .push(ea.name)
            .push("` in a shared table")
            .fail();
    }
    let (ha, hb) = (key_template(ea, None, true), key_template(eb, None, true));
    let (sa, sb) = (key_template(ea, None, false), key_template(eb, None, false));
    if could_collide(ha, hb) && could_collide(sa, sb) {
        let text = pair(a, b)
            .push(" have key templates whose static prefixes could produce the same key: ");
        let text = prefixes(text, ha, sa).push(" and ");
        prefixes(text, hb, sb)
            .push("; give one of them text of its own before its fields")
            .fail();
    }
    let mut x = 0;
    while x < a.indexes.len() {
        let mut y = 0;
        while y < b.indexes.len() {
            let (ia, ib) = (&a.indexes[x], &b.indexes[y]);
            if same(ia.name, ib.name) {
                let same_hash = ia.hash_key.len() == ib.hash_key.len()
                    && same(ia.hash_key[0].name, ib.hash_key[0].name);
                let same_range = ia.range_key.len() == ib.range_key.len()
                    && (ia.range_key.is_empty()
                        || same(ia.range_key[0].name, ib.range_key[0].name));
                if !same_hash || !same_range {
                    pair(a, b)
                        .push(" define index `")
                        .push(ia.name)
                        .push("` of their shared table with different keys")
                        .fail();
                }
            }
            y += 1;
        }
        x += 1;
    }
}

/// The range key attribute of a schema.
const fn range_name(schema: &Schema) -> Option<&'static str> {
    match &schema.range_key {
        Some(range) => Some(range.name),
        None => None,
    }
}

/// `` `ORG#`/`#META` ``: the static prefixes of an entity's table key templates.
const fn prefixes(
    text: ConstText,
    hash: Option<&KeyTemplate>,
    range: Option<&KeyTemplate>,
) -> ConstText {
    let text = match hash {
        Some(hash) => text.push("`").push(hash.static_prefix()).push("`"),
        None => text.push("none"),
    };
    match range {
        Some(range) => text.push("/`").push(range.static_prefix()).push("`"),
        None => text,
    }
}

/// A table shared by several entities, declared with [`shared_table!`](crate::shared_table).
pub trait SharedTable: Derived {
    /// The schema of every entity in the table.
    const ENTITIES: &'static [&'static Schema];

    /// The one `CreateTable` input for the table: the union of its entities' key
    /// attributes and indexes.
    fn create_table_input() -> aws_sdk_dynamodb::operation::create_table::CreateTableInput {
        table_definition::shared_create_table_input(Self::ENTITIES, None)
    }

    /// [`create_table_input`](Self::create_table_input) as CLI JSON.
    fn create_table_json() -> String {
        table_definition::to_cli_json(&Self::create_table_input())
    }
}

/// Declares a table that several single-table entities share, checked at compile time.
///
/// ```
/// use dynorm::Model;
/// use dynorm::schema::SharedTable;
///
/// #[derive(Model)]
/// #[dynorm(table = "App", entity = "team")]
/// #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
/// struct Team { team_id: String, name: String }
///
/// #[derive(Model)]
/// #[dynorm(table = "App", entity = "user")]
/// #[key(pk = "USER#{user_id}", sk = "#METADATA")]
/// struct User { user_id: String, name: String }
///
/// dynorm::shared_table!(pub struct AppTable { Team, User });
///
/// let input = AppTable::create_table_input();
/// assert_eq!(input.table_name(), Some("App"));
/// ```
#[macro_export]
macro_rules! shared_table {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($entity:ty),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $name;

        impl $crate::__private::Derived for $name {}
        impl $crate::schema::SharedTable for $name {
            const ENTITIES: &'static [&'static $crate::__private::Schema] = &[$(&<$entity as $crate::Model>::SCHEMA),+];
        }

        const _: () = $crate::__private::check_shared_table(<$name as $crate::schema::SharedTable>::ENTITIES);
    };
}
