//! The resolve stage: turns the parsed struct into the facts that `check` validates and the
//! expansion prints, each computed once.
//!
//! Field names written in attributes (`range_key = "placed_at"`, `{team_id}` in a template,
//! `#[combine(fields = [..])]`) become field positions here, and an unknown name is reported
//! here, once. A reference that does not resolve is left out of the facts; since it was
//! reported, nothing is expanded from them but the fallback.

mod convention;
mod field;
mod index;
mod key;
mod resolver;

pub use convention::Convention;
pub use field::{Codec, Field};
pub use index::{marker, Index, IndexKeys, Projection};
pub use key::{Casing, Entity, KeyTemplates, Part, PrimaryKey, Template};
use resolver::Resolver;

use quote::format_ident;
use syn::ext::IdentExt;
use syn::{Ident, LitStr, Visibility};

use crate::internals::ast::{self, Container};
use crate::internals::attr::{
    ident_from_text, CountDecl, DateStorage, DefaultValue, FieldRef, RelationDecl, RelationKind,
    UniqueDecl,
};
use crate::internals::Ctxt;

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
    /// `#[dynorm(stream)]`: the stream view type, one of `symbol::STREAM_VIEWS`.
    pub stream: Option<String>,
    /// Every field, in declaration order (the same order as the parsed fields).
    pub fields: Vec<Field<'a>>,
    /// The table's key; `None` only when it could not be found, which was reported.
    pub primary: Option<PrimaryKey<'a>>,
    /// The name of the typed key struct: `OrderKey`.
    pub key_struct: Ident,
    /// The name of the insert type: `NewOrder`.
    pub insert_struct: Ident,
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
    pub defaults: Vec<Generated<'a>>,
    /// The `#[dynorm(updated_at)]` field.
    pub updated_at: Option<Generated<'a>>,
    /// The `#[relation]`s, with their own fields resolved.
    pub relations: Vec<Relation<'a>>,
    /// The `#[unique]` constraints, with their fields resolved.
    pub uniques: Vec<Unique<'a>>,
    /// The stable name the guards of `uniques` are keyed by: `#[dynorm(unique_name)]`,
    /// else the entity name given with `#[dynorm(entity)]`; never the type's name.
    pub unique_owner: Option<String>,
    /// The `#[count]`s, with this model's fields resolved; the parent's fields are
    /// checked by the compiler, through the parent's `Attr` constants.
    pub counts: Vec<Count<'a>>,
    /// `#[dynorm(shape = ..)]`: the current shape, where it is stored, and the types of
    /// the earlier shapes.
    pub shape: Option<Shape<'a>>,
    /// `#[dynorm(max_item_bytes = N)]`: the largest item the model writes, in bytes.
    pub max_item_bytes: Option<usize>,
}

/// A model's versioned shape.
pub struct Shape<'a> {
    /// The current shape, from 1.
    pub current: u32,
    /// The attribute that stores an item's shape.
    pub attribute: String,
    /// The types of shapes 1 to `current - 1`, in order.
    pub upcasts: Vec<&'a syn::Type>,
}

/// A `#[count]`: this model's fields, by position.
pub struct Count<'a> {
    /// The declaration.
    pub decl: &'a CountDecl,
    /// This model's fields that name the parent.
    pub fields: Vec<usize>,
}

/// A `#[unique]` constraint: its fields and its scope, by position.
pub struct Unique<'a> {
    /// The declaration, for errors.
    pub decl: &'a UniqueDecl,
    /// The fields whose values are unique together.
    pub fields: Vec<usize>,
    /// The fields that scope it.
    pub scope: Vec<usize>,
}

/// A `#[relation]`: its own fields resolved; the related model's fields are checked by the
/// compiler, through the related model's `Attr` constants.
pub struct Relation<'a> {
    /// The declaration.
    pub decl: &'a RelationDecl,
    /// The name of the generated function.
    pub name: Ident,
    /// `one` or `many`.
    pub kind: RelationKind,
    /// The related model.
    pub target: &'a syn::Path,
    /// This model's fields, by position.
    pub fields: Vec<usize>,
}

/// A `#[combine]` field and its sources.
pub struct Combine<'a> {
    /// The combined field.
    pub field: usize,
    /// The source fields, in order.
    pub sources: Vec<Ref<'a>>,
    /// The text between the sources' values (`#[combine]`).
    pub separator: String,
    /// The function computing the field from its sources (`watch`), instead of joining.
    pub compute: Option<&'a syn::Path>,
}

/// A field reference resolved to its position, with the name as written for errors.
pub struct Ref<'a> {
    /// The field's position.
    pub field: usize,
    /// The name as written.
    pub written: &'a Ident,
}

/// An attribute dynorm fills in.
pub struct Generated<'a> {
    /// The field.
    pub field: usize,
    /// What it is set to.
    pub value: GeneratedValue<'a>,
}

/// A generated value.
#[derive(Clone, Copy)]
pub enum GeneratedValue<'a> {
    /// The current time, in this storage.
    Now(DateStorage),
    /// A new UUID v7.
    UuidV7,
    /// The value of this expression, of the field's type.
    Fixed(&'a syn::Expr),
}

impl Model<'_> {
    /// The `#[combine]` of the field at `position`, if it is combined.
    pub fn combine_of(&self, position: usize) -> Option<&Combine<'_>> {
        self.combines.iter().find(|c| c.field == position)
    }

    /// Whether dynorm fills the field in on insert: a `default` it makes (a time, an id),
    /// `updated_at`, the version, or a `#[combine]`. A default given as a value is the
    /// caller's to set, and fills the field only when it is absent.
    pub fn is_generated(&self, position: usize) -> bool {
        self.defaults
            .iter()
            .any(|g| g.field == position && !matches!(g.value, GeneratedValue::Fixed(_)))
            || self
                .updated_at
                .as_ref()
                .is_some_and(|g| g.field == position)
            || self.version == Some(position)
            || self.combine_of(position).is_some()
    }

    /// Whether the keys come from `#[key]` templates.
    pub fn uses_templates(&self) -> bool {
        self.entity.is_some()
    }
}

/// Resolves everything, reporting what does not resolve.
pub fn resolve<'a>(cx: &Ctxt, cont: &'a Container<'a>) -> Model<'a> {
    let resolver = Resolver { cx, cont };
    let mut fields: Vec<Field> = cont
        .fields
        .iter()
        .map(|field| Field::new(field, cont.attrs.rename_all, cont.ident))
        .collect();
    let name = cont.ident.unraw().to_string();
    let convention = Convention::of(&cont.attrs);
    let entity_name = lit_or(&cont.attrs.entity, &name);
    let key_templates: Vec<KeyTemplates> = cont
        .keys
        .iter()
        .map(|decl| {
            let casing = cont.attrs.casing.as_ref();
            resolver.key_templates(decl, &fields, &convention, casing, &entity_name)
        })
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
        name: entity_name,
        attribute: lit_or(&cont.attrs.entity_attribute, convention.entity_attribute()),
        convention,
        keys: key_templates,
    });
    let combines = cont
        .fields
        .iter()
        .enumerate()
        .filter_map(|(position, field)| {
            let attrs = &field.attrs;
            let (sources, separator, compute) = match (&attrs.combine, &attrs.watch) {
                (Some(combine), _) => (&combine.fields, combine.separator.value(), None),
                (None, Some((watched, _))) => (watched, String::new(), attrs.set.as_ref()),
                (None, None) => return None,
            };
            Some(Combine {
                field: position,
                sources: sources
                    .iter()
                    .filter_map(|source| resolver.reference(source))
                    .collect(),
                separator,
                compute,
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
            let value = match &field.attrs.default.as_ref()?.0 {
                DefaultValue::Now => generated_now(position),
                DefaultValue::UuidV7 => GeneratedValue::UuidV7,
                DefaultValue::Fixed(expr) => GeneratedValue::Fixed(expr),
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
    let relations = cont
        .relations
        .iter()
        .filter_map(|decl| {
            let name = decl.name.as_ref()?;
            let (kind, target) = decl.target.as_ref()?;
            let fields = resolver.fields(&decl.fields);
            Some(Relation {
                decl,
                name: relation_name(cx, name)?,
                kind: *kind,
                target,
                fields,
            })
        })
        .collect();
    let uniques = cont
        .uniques
        .iter()
        .filter_map(|decl| {
            let fields = resolver.fields(&decl.fields);
            let scope = resolver.fields(&decl.scope);
            let resolved = fields.len() == decl.fields.len() && scope.len() == decl.scope.len();
            resolved.then_some(Unique {
                decl,
                fields,
                scope,
            })
        })
        .collect();
    let counts = cont
        .counts
        .iter()
        .filter_map(|decl| {
            let fields = resolver.fields(&decl.fields);
            (fields.len() == decl.fields.len()).then_some(Count { decl, fields })
        })
        .collect();
    let shape = resolver.shape();
    let max_item_bytes = max_item_bytes(cx, cont.attrs.max_item_bytes.as_ref());
    let unique_owner = cont
        .attrs
        .unique_name
        .as_ref()
        .or(cont.attrs.entity.as_ref())
        .map(LitStr::value);
    Model {
        max_item_bytes,
        relations,
        uniques,
        unique_owner,
        counts,
        shape,
        ident: cont.ident,
        vis: cont.vis,
        table: lit_or(&cont.attrs.table, &name),
        prefix: cont.attrs.prefix.as_ref().map(LitStr::value),
        suffix: cont.attrs.suffix.as_ref().map(LitStr::value),
        stream: cont.attrs.stream.as_ref().map(LitStr::value),
        name,
        primary,
        key_struct: format_ident!("{}Key", cont.ident),
        insert_struct: format_ident!("New{}", cont.ident),
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

/// A relation's function name: the literal parsed as an identifier (`"r#type"` is raw), or
/// an error when it is not one, such as a keyword (`"type"`).
fn relation_name(cx: &Ctxt, literal: &LitStr) -> Option<Ident> {
    let text = literal.value();
    match ident_from_text(&text, literal.span()) {
        Some(ident) => Some(ident),
        None => {
            let keyword = ident_from_text(&format!("r#{text}"), literal.span()).is_some();
            let hint = if keyword {
                format!("; `{text}` is a keyword, so write \"r#{text}\"")
            } else {
                String::new()
            };
            cx.error_spanned_by(
                literal,
                format!("a relation's name is the name of its function, so it must be a Rust identifier{hint}"),
            );
            None
        }
    }
}

/// DynamoDB's limit on the size of one item: 400 KB.
const DYNAMODB_MAX_ITEM_BYTES: usize = 400 * 1024;

/// `max_item_bytes = N`, when given: a whole number of bytes from 1 to DynamoDB's limit.
fn max_item_bytes(cx: &Ctxt, literal: Option<&syn::LitInt>) -> Option<usize> {
    let literal = literal?;
    match literal.base10_parse::<usize>() {
        Ok(bytes) if (1..=DYNAMODB_MAX_ITEM_BYTES).contains(&bytes) => Some(bytes),
        _ => {
            cx.error_spanned_by(
                literal,
                format!(
                    "`max_item_bytes` is a number of bytes from 1 to {DYNAMODB_MAX_ITEM_BYTES}: \
                     DynamoDB's limit for an item is 400 KB"
                ),
            );
            None
        }
    }
}

/// The literal's value, or `default`.
fn lit_or(literal: &Option<LitStr>, default: &str) -> String {
    literal
        .as_ref()
        .map_or_else(|| default.to_owned(), LitStr::value)
}

impl<'a> Resolver<'_, 'a> {
    /// A reference with its position.
    fn reference(&self, reference: &'a FieldRef) -> Option<Ref<'a>> {
        Some(Ref {
            field: self.field(reference)?,
            written: &reference.ident,
        })
    }

    /// The shape, when the container declares one: `shape = N` from 1, and exactly
    /// `N - 1` upcasts.
    fn shape(&self) -> Option<Shape<'a>> {
        let attrs = &self.cont.attrs;
        let Some(literal) = &attrs.shape else {
            if let Some((path, _)) = &attrs.upcasts {
                self.cx
                    .error_spanned_by(path, "`upcasts` needs the current `shape = N`");
            }
            return None;
        };
        let current = match literal.base10_parse::<u32>() {
            Ok(current) if current >= 1 => current,
            _ => {
                self.cx
                    .error_spanned_by(literal, "a shape is a whole number from 1");
                return None;
            }
        };
        let upcasts: Vec<&syn::Type> = attrs
            .upcasts
            .as_ref()
            .map(|(_, types)| types.iter().collect())
            .unwrap_or_default();
        if upcasts.len() as u64 != u64::from(current) - 1 {
            let at: &dyn quote::ToTokens = match &attrs.upcasts {
                Some((path, _)) => path,
                None => literal,
            };
            self.cx.error_spanned_by(
                at,
                format!(
                    "shape {current} needs the types of the {} earlier shape(s), oldest first: `upcasts = [..]` has {}",
                    current - 1,
                    upcasts.len()
                ),
            );
            return None;
        }
        let attribute = lit_or(&attrs.shape_attribute, "__shape");
        Some(Shape {
            current,
            attribute,
            upcasts,
        })
    }
}
