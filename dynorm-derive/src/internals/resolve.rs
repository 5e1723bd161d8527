//! The resolve stage: turns the parsed struct into the facts that `check` validates and the
//! expansion prints, each computed once.
//!
//! Field names written in attributes (`range_key = "placed_at"`, `{team_id}` in a template,
//! `#[combine(fields = [..])]`) become field positions here, and an unknown name is reported
//! here, once. A reference that does not resolve is left out of the facts; since it was
//! reported, nothing is expanded from them but the fallback.

use quote::format_ident;
use syn::ext::IdentExt;
use syn::{Attribute, Ident, LitStr, Type, Visibility};

use crate::internals::ast::{self, Container};
use crate::internals::attr::{
    DateStorage, DefaultValue, FieldRef, IndexDecl, KeyDecl, ProjectDecl,
};
use crate::internals::case::RenameRule;
use crate::internals::symbol::did_you_mean;
use crate::internals::template::{self, Part as WrittenPart};
use crate::internals::types::{self, Shape};
use crate::internals::Ctxt;

/// The name stored in the entity attribute when `#[dynorm(entity_attribute)]` is absent.
const DEFAULT_ENTITY_ATTRIBUTE: &str = "__entity";

/// Everything the derive knows about a model.
pub struct Model<'a> {
    /// The struct's name.
    pub ident: &'a Ident,
    /// The struct's visibility.
    pub vis: &'a Visibility,
    /// The model's name in errors and schemas: the struct's name without `r#`.
    pub name: String,
    /// The base table name.
    pub table: String,
    /// `#[dynorm(prefix)]`.
    pub prefix: Option<String>,
    /// `#[dynorm(suffix)]`.
    pub suffix: Option<String>,
    /// Every field, in declaration order (the same order as the parsed fields).
    pub fields: Vec<Field<'a>>,
    /// The table's key; `None` only when it could not be found, which was reported.
    pub primary: Option<PrimaryKey<'a>>,
    /// The name of the typed key struct: `OrderKey`.
    pub key_struct: Ident,
    /// The fields of the typed key struct, in order, each once.
    pub key_fields: Vec<usize>,
    /// The entity name and every key template, for a single-table model.
    pub entity: Option<Entity<'a>>,
    /// The secondary indexes, in `Schema::indexes` order: global indexes declared with
    /// `#[index]`, then those declared with `#[key(index = ..)]`, then local indexes.
    pub indexes: Vec<Index<'a>>,
    /// The `#[combine]` fields.
    pub combines: Vec<Combine<'a>>,
    /// The `#[version]` field.
    pub version: Option<usize>,
    /// The `#[ttl]` field.
    pub ttl: Option<usize>,
    /// The `#[dynorm(default = ..)]` fields, in field order.
    pub defaults: Vec<Generated>,
    /// The `#[dynorm(updated_at)]` field.
    pub updated_at: Option<Generated>,
}

/// One field, with what its type and attributes mean.
pub struct Field<'a> {
    /// The field as parsed, for its attributes' spans.
    pub ast: &'a ast::Field<'a>,
    /// The Rust name, possibly raw (`r#type`).
    pub member: &'a Ident,
    /// The type as written.
    pub ty: &'a Type,
    /// The type of a present value: the type inside `Option<..>`, or the type itself.
    pub present: &'a Type,
    /// Whether the type is an `Option`.
    pub optional: bool,
    /// The shape of the present type.
    pub shape: Shape,
    /// Whether the present type is `String`.
    pub string: bool,
    /// The DynamoDB attribute name, after `rename` and `rename_all`.
    pub name: String,
    /// How a present value is encoded and decoded.
    pub codec: Codec,
    /// The name of the field's `Attr` constant: `STATUS` for `status`.
    pub constant: Ident,
    /// Whether an update may write the field: not `read_only`, and not a source of the
    /// table's key templates.
    pub writable: bool,
}

/// How a field's present value is encoded and decoded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// A date in an explicit storage (`#[dynorm(date)]`, or epoch seconds for `#[ttl]`).
    Date(DateStorage),
    /// `Vec<u8>`, stored as binary.
    Bytes,
    /// Chosen at compile time by the runtime: native types, else serde.
    Dispatch,
}

impl Codec {
    /// The date storage, for a field that has an explicit one.
    pub fn date_storage(self) -> Option<DateStorage> {
        match self {
            Codec::Date(storage) => Some(storage),
            Codec::Bytes | Codec::Dispatch => None,
        }
    }
}

/// The table's key.
pub enum PrimaryKey<'a> {
    /// The `#[hash_key]` field and the `#[range_key]` field, if any.
    Fields {
        /// The hash key field.
        hash: usize,
        /// The range key field.
        range: Option<usize>,
    },
    /// The templates of the `#[key(..)]` without `index`: a single-table entity.
    Templates {
        /// The hash key template.
        hash: Template<'a>,
        /// The range key template.
        range: Option<Template<'a>>,
    },
}

/// A key template with its fields resolved.
#[derive(Clone)]
pub struct Template<'a> {
    /// The template as written, for errors.
    pub literal: &'a LitStr,
    /// The physical attribute name, such as `pk`.
    pub attribute: String,
    /// Static text and field positions.
    pub parts: Vec<Part>,
}

/// One piece of a resolved template.
#[derive(Clone)]
pub enum Part {
    /// Text stored as written.
    Static(String),
    /// The stored value of the field at this position.
    Field(usize),
}

impl Template<'_> {
    /// The fields the template uses, in order.
    pub fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Field(position) => Some(*position),
            Part::Static(_) => None,
        })
    }

    /// The fields the template uses, each once, in order.
    pub fn distinct_fields(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for position in self.fields() {
            if !out.contains(&position) {
                out.push(position);
            }
        }
        out
    }

    /// The text before the first field: what every value of the template starts with.
    pub fn static_prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Static(text)) => text,
            _ => "",
        }
    }
}

/// A single-table model's entity name and key templates.
pub struct Entity<'a> {
    /// The entity name stored with each item.
    pub name: String,
    /// The attribute it is stored in.
    pub attribute: String,
    /// Every `#[key(..)]`, in declaration order.
    pub keys: Vec<KeyTemplates<'a>>,
}

/// One `#[key(..)]` with its templates resolved.
pub struct KeyTemplates<'a> {
    /// The declaring attribute, for errors.
    pub attr: &'a Attribute,
    /// The index it keys, or `None` for the table.
    pub index: Option<String>,
    /// The hash key template.
    pub hash: Template<'a>,
    /// The range key template.
    pub range: Option<Template<'a>>,
}

impl KeyTemplates<'_> {
    /// The templates: hash, then range.
    pub fn templates(&self) -> impl Iterator<Item = &Template<'_>> {
        std::iter::once(&self.hash).chain(&self.range)
    }
}

/// A secondary index.
pub struct Index<'a> {
    /// The declaring attribute, for errors.
    pub attr: &'a Attribute,
    /// The index name.
    pub name: String,
    /// The marker type queries name it by: `OrderByStatus`.
    pub marker: Ident,
    /// Whether it is a local index (else global).
    pub local: bool,
    /// Its key attributes.
    pub keys: IndexKeys<'a>,
    /// What it projects.
    pub projection: Projection,
}

/// The key attributes of an index.
pub enum IndexKeys<'a> {
    /// Model fields: one to four each.
    Fields {
        /// The partition key fields.
        hash: Vec<usize>,
        /// The sort key fields.
        range: Vec<usize>,
    },
    /// Key templates from `#[key(index = ..)]`.
    Templates {
        /// The partition key template.
        hash: Template<'a>,
        /// The sort key template.
        range: Option<Template<'a>>,
    },
}

/// What an index projects.
pub enum Projection {
    /// Every attribute.
    All,
    /// The table and index keys.
    KeysOnly,
    /// The keys and these other fields.
    Include(Vec<usize>),
}

/// A `#[combine]` field and its sources.
pub struct Combine<'a> {
    /// The combined field.
    pub field: usize,
    /// The source fields, in order.
    pub sources: Vec<Ref<'a>>,
    /// The text between the sources' values.
    pub separator: String,
}

/// A field reference resolved to its position, with the name as written for errors.
pub struct Ref<'a> {
    /// The field's position.
    pub field: usize,
    /// The name as written.
    pub written: &'a Ident,
}

/// An attribute dynorm fills in.
pub struct Generated {
    /// The field.
    pub field: usize,
    /// What it is set to.
    pub value: GeneratedValue,
}

/// A generated value.
#[derive(Clone, Copy)]
pub enum GeneratedValue {
    /// The current time, in this storage.
    Now(DateStorage),
    /// A new UUID v7.
    UuidV7,
}

impl Model<'_> {
    /// The `#[combine]` of the field at `position`, if it is combined.
    pub fn combine_of(&self, position: usize) -> Option<&Combine<'_>> {
        self.combines.iter().find(|c| c.field == position)
    }

    /// Whether the keys come from `#[key]` templates.
    pub fn uses_templates(&self) -> bool {
        self.entity.is_some()
    }
}

impl Index<'_> {
    /// The index's own key fields: partition, then sort. Empty for a templated index.
    pub fn key_fields(&self) -> Vec<usize> {
        match &self.keys {
            IndexKeys::Fields { hash, range } => hash.iter().chain(range).copied().collect(),
            IndexKeys::Templates { .. } => Vec::new(),
        }
    }
}

/// Resolves everything, reporting what does not resolve.
pub fn resolve<'a>(cx: &Ctxt, cont: &'a Container<'a>) -> Model<'a> {
    let resolver = Resolver { cx, cont };
    let mut fields: Vec<Field> = cont
        .fields
        .iter()
        .map(|field| Field::new(field, cont.attrs.rename_all))
        .collect();
    let name = cont.ident.unraw().to_string();
    let key_templates: Vec<KeyTemplates> = cont
        .keys
        .iter()
        .map(|decl| resolver.key_templates(decl))
        .collect();
    let primary = resolver.primary_key(&key_templates);
    let key_fields = match &primary {
        Some(PrimaryKey::Fields { hash, range }) => std::iter::once(*hash).chain(*range).collect(),
        Some(PrimaryKey::Templates { hash, range }) => {
            let templates = std::iter::once(hash).chain(range);
            let mut out: Vec<usize> = Vec::new();
            for position in templates.flat_map(Template::fields) {
                if !out.contains(&position) {
                    out.push(position);
                }
            }
            // The table's key is rendered from these fields, so no update may change them.
            for &position in &out {
                fields[position].writable = false;
            }
            out
        }
        None => Vec::new(),
    };
    let indexes = resolver.indexes(&primary, &key_templates, &key_fields, &name);
    let entity = cont.uses_templates().then(|| Entity {
        name: lit_or(&cont.attrs.entity, &name),
        attribute: lit_or(&cont.attrs.entity_attribute, DEFAULT_ENTITY_ATTRIBUTE),
        keys: key_templates,
    });
    let combines = cont
        .fields
        .iter()
        .enumerate()
        .filter_map(|(position, field)| {
            let combine = field.attrs.combine.as_ref()?;
            Some(Combine {
                field: position,
                sources: combine
                    .fields
                    .iter()
                    .filter_map(|source| resolver.reference(source))
                    .collect(),
                separator: combine.separator.value(),
            })
        })
        .collect();
    let first = |marked: fn(&ast::Field) -> bool| cont.fields.iter().position(marked);
    let generated_now = |position: usize| GeneratedValue::Now(fields[position].date_storage());
    let defaults = cont
        .fields
        .iter()
        .enumerate()
        .filter_map(|(position, field)| {
            let value = match field.attrs.default.as_ref()?.0 {
                DefaultValue::Now => generated_now(position),
                DefaultValue::UuidV7 => GeneratedValue::UuidV7,
            };
            Some(Generated {
                field: position,
                value,
            })
        })
        .collect();
    let updated_at = first(|f| f.attrs.updated_at.is_some()).map(|position| Generated {
        field: position,
        value: generated_now(position),
    });
    Model {
        ident: cont.ident,
        vis: cont.vis,
        table: lit_or(&cont.attrs.table, &name),
        prefix: cont.attrs.prefix.as_ref().map(LitStr::value),
        suffix: cont.attrs.suffix.as_ref().map(LitStr::value),
        name,
        primary,
        key_struct: format_ident!("{}Key", cont.ident),
        key_fields,
        entity,
        indexes,
        combines,
        version: first(|f| f.attrs.version.is_some()),
        ttl: first(|f| f.attrs.ttl.is_some()),
        defaults,
        updated_at,
        fields,
    }
}

/// The literal's value, or `default`.
fn lit_or(literal: &Option<LitStr>, default: &str) -> String {
    literal
        .as_ref()
        .map_or_else(|| default.to_owned(), LitStr::value)
}

impl<'a> Field<'a> {
    fn new(ast: &'a ast::Field<'a>, rename_all: Option<RenameRule>) -> Self {
        let optional_inner = types::option_inner(ast.ty);
        let present = optional_inner.unwrap_or(ast.ty);
        let shape = types::shape(present);
        let plain = ast.ident.unraw().to_string();
        let name = match (&ast.attrs.rename, rename_all) {
            (Some(rename), _) => rename.value(),
            (None, Some(rule)) => rule.apply(&plain),
            (None, None) => plain.clone(),
        };
        let codec = match (&ast.attrs.date, &ast.attrs.ttl) {
            (Some((storage, _)), _) => Codec::Date(*storage),
            (None, Some(_)) => Codec::Date(DateStorage::Seconds),
            (None, None) if shape == Shape::Bytes => Codec::Bytes,
            (None, None) => Codec::Dispatch,
        };
        Field {
            ast,
            member: ast.ident,
            ty: ast.ty,
            present,
            optional: optional_inner.is_some(),
            shape,
            string: types::is_string(present),
            name,
            codec,
            // An uppercased identifier is an identifier, and never a keyword.
            constant: format_ident!("{}", plain.to_ascii_uppercase()),
            writable: ast.attrs.read_only.is_none(),
        }
    }

    /// The storage of a generated date: the field's own, else ISO text.
    fn date_storage(&self) -> DateStorage {
        self.codec.date_storage().unwrap_or(DateStorage::Iso)
    }
}

/// Resolves names written in attributes against the struct's fields.
struct Resolver<'c, 'a> {
    cx: &'c Ctxt,
    cont: &'a Container<'a>,
}

impl<'a> Resolver<'_, 'a> {
    /// The position of the field `reference` names, or an error suggesting a close name.
    fn field(&self, reference: &FieldRef) -> Option<usize> {
        let wanted = reference.ident.unraw();
        let position = self
            .cont
            .fields
            .iter()
            .position(|f| f.ident.unraw() == wanted);
        if position.is_none() {
            let names: Vec<String> = self
                .cont
                .fields
                .iter()
                .map(|f| f.ident.to_string())
                .collect();
            let written = reference.ident.to_string();
            let hint = match did_you_mean(&written, names.iter().map(String::as_str)) {
                Some(close) => format!("; did you mean `{close}`?"),
                None => String::new(),
            };
            self.cx.error_spanned_by(
                &reference.ident,
                format!(
                    "model `{}` has no field `{}`{hint}",
                    self.cont.ident, reference.ident
                ),
            );
        }
        position
    }

    /// A reference with its position.
    fn reference(&self, reference: &'a FieldRef) -> Option<Ref<'a>> {
        Some(Ref {
            field: self.field(reference)?,
            written: &reference.ident,
        })
    }

    /// The positions of the fields in `references`.
    fn fields(&self, references: &[FieldRef]) -> Vec<usize> {
        references.iter().filter_map(|r| self.field(r)).collect()
    }

    /// A template with its fields resolved.
    fn template(&self, written: &'a template::Template) -> Template<'a> {
        Template {
            literal: &written.literal,
            attribute: written.attribute.unraw().to_string(),
            parts: written
                .parts
                .iter()
                .filter_map(|part| match part {
                    WrittenPart::Static(text) => Some(Part::Static(text.clone())),
                    WrittenPart::Field(reference) => self.field(reference).map(Part::Field),
                })
                .collect(),
        }
    }

    /// A `#[key(..)]` with its templates resolved.
    fn key_templates(&self, decl: &'a KeyDecl) -> KeyTemplates<'a> {
        KeyTemplates {
            attr: &decl.attr,
            index: decl.index.as_ref().map(LitStr::value),
            hash: self.template(&decl.hash),
            range: decl.range.as_ref().map(|range| self.template(range)),
        }
    }

    /// The table's key: the first `#[key]` without `index`, else the first `#[hash_key]`
    /// and `#[range_key]` fields. Reports a model without one.
    fn primary_key(&self, key_templates: &[KeyTemplates<'a>]) -> Option<PrimaryKey<'a>> {
        let cont = self.cont;
        if let Some(first) = key_templates.first() {
            let Some(primary) = key_templates.iter().find(|k| k.index.is_none()) else {
                self.cx.error_spanned_by(
                    first.attr,
                    "one #[key(...)] without `index` gives the table's keys, such as #[key(pk = \"TEAM#{team_id}\", sk = \"#METADATA\")]",
                );
                return None;
            };
            return Some(PrimaryKey::Templates {
                hash: primary.hash.clone(),
                range: primary.range.clone(),
            });
        }
        let Some(hash) = cont.fields.iter().position(|f| f.attrs.hash_key.is_some()) else {
            self.cx.error_spanned_by(
                cont.ident,
                format!(
                    "model `{}` has no hash key: mark one field with #[hash_key]",
                    cont.ident
                ),
            );
            return None;
        };
        let range = cont.fields.iter().enumerate().find_map(|(position, f)| {
            (position != hash && f.attrs.range_key.is_some()).then_some(position)
        });
        Some(PrimaryKey::Fields { hash, range })
    }

    /// Every secondary index, in schema order.
    fn indexes(
        &self,
        primary: &Option<PrimaryKey>,
        key_templates: &[KeyTemplates<'a>],
        table_keys: &[usize],
        model: &str,
    ) -> Vec<Index<'a>> {
        let cont = self.cont;
        let declared: Vec<Index> = cont
            .indexes
            .iter()
            .filter_map(|decl| self.declared_index(decl, primary, table_keys, model))
            .collect();
        let (locals, globals): (Vec<Index>, Vec<Index>) =
            declared.into_iter().partition(|i| i.local);
        let templated = key_templates
            .iter()
            .filter_map(|keys| templated_index(keys, model));
        globals.into_iter().chain(templated).chain(locals).collect()
    }

    /// An index declared with `#[index]`; `None` without a name (already reported).
    fn declared_index(
        &self,
        decl: &'a IndexDecl,
        primary: &Option<PrimaryKey>,
        table_keys: &[usize],
        model: &str,
    ) -> Option<Index<'a>> {
        let name = decl.name.as_ref()?.value();
        let mut hash = self.fields(&decl.hash);
        let range = self.fields(&decl.range);
        if decl.local {
            hash = self.local_hash_key(decl, &name, primary, &range);
        }
        let projection = match &decl.project {
            ProjectDecl::All => Projection::All,
            ProjectDecl::KeysOnly => Projection::KeysOnly,
            ProjectDecl::Include(references) => {
                let keys: Vec<usize> = table_keys
                    .iter()
                    .chain(&hash)
                    .chain(&range)
                    .copied()
                    .collect();
                let projected = self.fields(references);
                Projection::Include(
                    projected
                        .into_iter()
                        .filter(|p| !keys.contains(p))
                        .collect(),
                )
            }
        };
        Some(Index {
            attr: &decl.attr,
            marker: marker(model, &name),
            name,
            local: decl.local,
            keys: IndexKeys::Fields { hash, range },
            projection,
        })
    }

    /// A local index keeps the table's hash key: the hash key field, or nothing (reported)
    /// when the table has no range key to replace or the index sorts by the hash key.
    fn local_hash_key(
        &self,
        decl: &IndexDecl,
        name: &str,
        primary: &Option<PrimaryKey>,
        range: &[usize],
    ) -> Vec<usize> {
        let cont = self.cont;
        let table_range = match primary {
            Some(PrimaryKey::Fields { range, .. }) => range.is_some(),
            Some(PrimaryKey::Templates { .. }) => false,
            None => cont.fields.iter().any(|f| f.attrs.range_key.is_some()),
        };
        if !table_range {
            self.cx.error_spanned_by(
                &decl.attr,
                format!(
                    "local index `{name}` needs a table with a range key, and model `{}` has none: \
                     a local index shares the table's hash key and replaces its range key",
                    cont.ident
                ),
            );
            return Vec::new();
        }
        let Some(PrimaryKey::Fields { hash, .. }) = primary else {
            return Vec::new();
        };
        if range.contains(hash) {
            self.cx.error_spanned_by(
                &decl.attr,
                format!(
                    "local index `{name}` is on the table's hash key `{}`: a local index keeps the table's \
                     hash key and sorts by another attribute, so put it on that attribute",
                    cont.fields[*hash].ident
                ),
            );
            return Vec::new();
        }
        vec![*hash]
    }
}

/// A global index declared with `#[key(index = ..)]`.
fn templated_index<'a>(keys: &KeyTemplates<'a>, model: &str) -> Option<Index<'a>> {
    let name = keys.index.clone()?;
    Some(Index {
        attr: keys.attr,
        marker: marker(model, &name),
        name,
        local: false,
        keys: IndexKeys::Templates {
            hash: keys.hash.clone(),
            range: keys.range.clone(),
        },
        projection: Projection::All,
    })
}

/// The marker type of index `index` of `model`: `byStatus` of `Order` is `OrderByStatus`.
fn marker(model: &str, index: &str) -> Ident {
    // `model` is an identifier and the suffix only ASCII letters and digits, so the
    // result is an identifier.
    format_ident!("{}{}", model, upper_camel(index))
}

/// `byStatus` to `ByStatus`: ASCII letters and digits, each word capitalised.
fn upper_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            if upper {
                out.push(ch.to_ascii_uppercase());
            } else {
                out.push(ch);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::upper_camel;

    #[test]
    fn index_names_become_type_names() {
        assert_eq!(upper_camel("byStatus"), "ByStatus");
        assert_eq!(upper_camel("by-placed_at.v2"), "ByPlacedAtV2");
    }
}
