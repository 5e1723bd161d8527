//! Tables that several single-table entities share: the declaration macro and its
//! compile-time checks.

use crate::schema::convention::Convention;
use crate::schema::entity::{Entity, KeyTemplate};
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

/// The table's template for the hash (`hash = true`) or range key of an entity.
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

const fn primary_template(entity: &Entity, hash: bool) -> Option<&KeyTemplate> {
    let mut i = 0;
    while i < entity.keys.len() {
        let key = &entity.keys[i];
        if key.index.is_none() && key.is_hash == hash {
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
/// prefixes could produce the same key. A failure stops the build with its message.
pub const fn check_shared_table(schemas: &[&Schema]) {
    let mut i = 0;
    while i < schemas.len() {
        let a = schemas[i];
        let Some(ea) = &a.entity else {
            panic!("every entity of a shared table needs #[key(...)] templates");
        };
        let mut j = i + 1;
        while j < schemas.len() {
            let b = schemas[j];
            let Some(eb) = &b.entity else {
                panic!("every entity of a shared table needs #[key(...)] templates");
            };
            if !same(a.table, b.table) {
                panic!("the entities of a shared table must all name the same table");
            }
            if !same(a.hash_key.name, b.hash_key.name) {
                panic!("the entities of a shared table must use the same hash key attribute");
            }
            match (&a.range_key, &b.range_key) {
                (Some(ra), Some(rb)) if same(ra.name, rb.name) => {}
                (None, None) => {}
                _ => panic!("the entities of a shared table must use the same range key attribute"),
            }
            if !same_convention(&ea.convention, &eb.convention) {
                panic!("the entities of a shared table must follow one convention: dynorm's, ElectroDB's or DynamoDB-Toolbox's");
            }
            if !same(ea.attribute, eb.attribute) {
                panic!(
                    "the entities of a shared table must store their names in the same attribute"
                );
            }
            if same(ea.name, eb.name) {
                panic!("two entities of a shared table have the same entity name");
            }
            if could_collide(primary_template(ea, true), primary_template(eb, true))
                && could_collide(primary_template(ea, false), primary_template(eb, false))
            {
                panic!("two entities of a shared table have key templates whose static prefixes could produce the same key");
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
                            panic!("two entities of a shared table define the same index with different keys");
                        }
                    }
                    y += 1;
                }
                x += 1;
            }
            j += 1;
        }
        i += 1;
    }
}

/// A table shared by several entities, declared with [`shared_table!`](crate::shared_table).
pub trait SharedTable {
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

        impl $crate::schema::SharedTable for $name {
            const ENTITIES: &'static [&'static $crate::schema::Schema] = &[$(&<$entity as $crate::Model>::SCHEMA),+];
        }

        const _: () = $crate::__private::check_shared_table(<$name as $crate::schema::SharedTable>::ENTITIES);
    };
}
