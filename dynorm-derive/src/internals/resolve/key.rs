//! The table's key and the key templates of single-table models.

use syn::ext::IdentExt;
use syn::{Attribute, LitStr};

use super::Resolver;
use crate::internals::attr::KeyDecl;
use crate::internals::template::{self, Part as WrittenPart};

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

impl<'a> Resolver<'_, 'a> {
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
    pub(super) fn key_templates(&self, decl: &'a KeyDecl) -> KeyTemplates<'a> {
        KeyTemplates {
            attr: &decl.attr,
            index: decl.index.as_ref().map(LitStr::value),
            hash: self.template(&decl.hash),
            range: decl.range.as_ref().map(|range| self.template(range)),
        }
    }

    /// The table's key: the first `#[key]` without `index`, else the first `#[hash_key]`
    /// and `#[range_key]` fields. Reports a model without one.
    pub(super) fn primary_key(&self, key_templates: &[KeyTemplates<'a>]) -> Option<PrimaryKey<'a>> {
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
}
