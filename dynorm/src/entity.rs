//! Single-table design at run time: rendering key templates, the entity discriminator,
//! and the checks a table shared by several entities needs.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::model::{Item, Schema};

/// One piece of a key template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplatePart {
    /// Text stored as written: never case-folded.
    Static(&'static str),
    /// The stored value of this attribute.
    Field(&'static str),
}

/// A key attribute built from a template, such as `pk = "TEAM#{teamId}"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyTemplate {
    /// The index it keys, or `None` for the table.
    pub index: Option<&'static str>,
    /// The physical attribute.
    pub attribute: &'static str,
    /// Whether it is the hash key (else the range key).
    pub is_hash: bool,
    /// The template.
    pub parts: &'static [TemplatePart],
}

impl KeyTemplate {
    /// The text every value starts with.
    pub const fn static_prefix(&self) -> &'static str {
        match self.parts.first() {
            Some(TemplatePart::Static(text)) => text,
            _ => "",
        }
    }

    /// Renders the template from an item's attributes; `None` when a field is absent.
    pub fn render(&self, model: &'static str, item: &Item) -> Result<Option<String>> {
        let mut out = String::new();
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                TemplatePart::Static(text) => out.push_str(text),
                TemplatePart::Field(name) => {
                    let text = match item.get(*name) {
                        Some(AttributeValue::S(s)) => s.as_str(),
                        Some(AttributeValue::N(n)) => n.as_str(),
                        Some(AttributeValue::Null(_)) | None => return Ok(None),
                        Some(other) => {
                            return Err(Error::validation(format!(
                                "`{name}` is {}; only strings and numbers can be part of key `{}`",
                                crate::value::describe(other),
                                self.attribute
                            ))
                            .with_model(model)
                            .with_attribute(*name))
                        }
                    };
                    if let Some(TemplatePart::Static(next)) = self.parts.get(i + 1) {
                        let separator = next.chars().next().unwrap_or_default();
                        if text.contains(separator) {
                            return Err(Error::validation(format!(
                                "the value of `{name}` contains {separator:?}, which follows it in key `{}`, so the key would be ambiguous",
                                self.attribute
                            ))
                            .with_model(model)
                            .with_attribute(*name));
                        }
                    }
                    if text.is_empty() {
                        // Not there yet: a `default` may generate it on create.
                        return Ok(None);
                    }
                    out.push_str(text);
                }
            }
        }
        Ok(Some(out))
    }
}

impl KeyTemplate {
    /// The error for a key that cannot be rendered: it names the field with no value.
    fn missing(&self, model: &'static str, item: &Item) -> Error {
        let field = self
            .parts
            .iter()
            .find_map(|part| match part {
                TemplatePart::Field(name) => match item.get(*name) {
                    Some(AttributeValue::S(s)) if !s.is_empty() => None,
                    Some(AttributeValue::N(_)) => None,
                    _ => Some(*name),
                },
                TemplatePart::Static(_) => None,
            })
            .unwrap_or(self.attribute);
        Error::validation(format!(
            "key `{}` is built from `{field}`, which has no value",
            self.attribute
        ))
        .with_model(model)
        .with_attribute(field)
    }
}

/// The entity a single-table model is: its name, where the name is stored, and its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entity {
    /// The entity name stored with each item.
    pub name: &'static str,
    /// The attribute that stores it.
    pub attribute: &'static str,
    /// Every key template, the table's and the indexes'.
    pub keys: &'static [KeyTemplate],
}

impl Entity {
    fn templates<'a>(
        &self,
        index: Option<&'a str>,
    ) -> impl Iterator<Item = &'static KeyTemplate> + 'a {
        self.keys.iter().filter(move |k| k.index == index)
    }

    /// Whether a stored item is of this entity.
    pub fn holds(&self, item: &Item) -> bool {
        matches!(item.get(self.attribute), Some(AttributeValue::S(name)) if name == self.name)
    }

    /// The entity name of a stored item, if it has one.
    pub fn of(attribute: &str, item: &Item) -> Option<String> {
        match item.get(attribute) {
            Some(AttributeValue::S(name)) => Some(name.clone()),
            _ => None,
        }
    }
}

fn entity(schema: &Schema) -> Result<&Entity> {
    schema
        .entity
        .as_ref()
        .ok_or_else(|| Error::config("the model has no #[key] templates").with_model(schema.model))
}

/// Adds the physical keys and the entity name to an item. An index whose template lacks a
/// value is left out: the item is not in that (sparse) index. A table key that lacks a
/// value is an error when `strict`, and left out otherwise (a `default` may fill it on
/// create; every write renders the keys again, strictly).
pub fn write_entity_keys(schema: &Schema, item: &mut Item, strict: bool) -> Result<()> {
    let entity = entity(schema)?;
    let mut rendered = Vec::new();
    for template in entity.templates(None) {
        match template.render(schema.model, item)? {
            Some(text) => rendered.push((template.attribute, text)),
            None if strict => return Err(template.missing(schema.model, item)),
            None => {}
        }
    }
    let indexes: Vec<&str> = entity.keys.iter().filter_map(|k| k.index).collect();
    for index in indexes {
        let mut index_keys = Vec::new();
        for template in entity.templates(Some(index)) {
            match template.render(schema.model, item)? {
                Some(text) => index_keys.push((template.attribute, text)),
                None => {
                    index_keys.clear();
                    break;
                }
            }
        }
        rendered.extend(index_keys);
    }
    for (attribute, text) in rendered {
        item.insert(attribute.to_owned(), AttributeValue::S(text));
    }
    item.insert(
        entity.attribute.to_owned(),
        AttributeValue::S(entity.name.to_owned()),
    );
    Ok(())
}

/// Checks that an item is of this entity before it is decoded.
pub fn check_entity(schema: &Schema, item: &Item) -> Result<()> {
    let entity = entity(schema)?;
    match Entity::of(entity.attribute, item) {
        Some(name) if name == entity.name => Ok(()),
        found => Err(Error::new(
            crate::error::ErrorKind::Conversion,
            match found {
                Some(name) => format!("the item is a `{name}`, not a `{}`", entity.name),
                None => format!(
                    "the item has no entity name, so it is not a `{}`",
                    entity.name
                ),
            },
        )
        .with_model(schema.model)
        .with_attribute(entity.attribute)),
    }
}

/// The table key of an entity, from the attributes of its key fields.
pub fn entity_key(schema: &Schema, fields: &Item) -> Result<Item> {
    let entity = entity(schema)?;
    let mut key = Item::new();
    for template in entity.templates(None) {
        let text = template
            .render(schema.model, fields)?
            .ok_or_else(|| template.missing(schema.model, fields))?;
        key.insert(template.attribute.to_owned(), AttributeValue::S(text));
    }
    Ok(key)
}

/// The hash key of the table (`index = None`) or an index, from the attributes of its fields.
pub fn template_hash_values(
    schema: &Schema,
    index: Option<&str>,
    fields: &Item,
) -> Result<Vec<(&'static str, AttributeValue)>> {
    let entity = entity(schema)?;
    let mut out = Vec::new();
    for template in entity.templates(index).filter(|t| t.is_hash) {
        let text = template
            .render(schema.model, fields)?
            .ok_or_else(|| template.missing(schema.model, fields))?;
        out.push((template.attribute, AttributeValue::S(text)));
    }
    Ok(out)
}

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
const fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && overlaps(a, b)
}

/// The table's template for the hash (`hash = true`) or range key of an entity.
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
        crate::table::shared_create_table_input(Self::ENTITIES, None)
    }

    /// [`create_table_input`](Self::create_table_input) as CLI JSON.
    fn create_table_json() -> String {
        crate::table::to_cli_json(&Self::create_table_input())
    }
}

/// Declares a table that several single-table entities share, checked at compile time.
///
/// ```
/// use dynorm::{Model, SharedTable};
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

        impl $crate::SharedTable for $name {
            const ENTITIES: &'static [&'static $crate::Schema] = &[$(&<$entity as $crate::Model>::SCHEMA),+];
        }

        const _: () = $crate::__private::check_shared_table(<$name as $crate::SharedTable>::ENTITIES);
    };
}
