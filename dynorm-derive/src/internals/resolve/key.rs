//! The table's key and the key templates of single-table models.

use syn::ext::IdentExt;
use syn::{Attribute, LitStr};

use super::convention::Convention;
use super::resolver::Resolver;
use super::Field;
use crate::internals::attr::{KeyDecl, ProjectDecl};
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
    /// Static text (already case-folded) and field positions.
    pub parts: Vec<Part>,
    /// How field values are case-folded when the key is rendered.
    pub casing: Casing,
}

/// How a rendered key is case-folded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Casing {
    /// As rendered.
    None,
    /// Lowercased.
    Lower,
    /// Uppercased.
    Upper,
}

impl Casing {
    /// `casing = ".."` as written, or the convention's default: ElectroDB lowercases keys.
    fn of(written: Option<&LitStr>, convention: &Convention) -> Self {
        match written.map(LitStr::value).as_deref() {
            Some("none") => Casing::None,
            Some("lower") => Casing::Lower,
            Some("upper") => Casing::Upper,
            _ if matches!(convention, Convention::ElectroDb { .. }) => Casing::Lower,
            _ => Casing::None,
        }
    }

    /// Folds static text.
    fn fold(self, text: &str) -> String {
        match self {
            Casing::None => text.to_owned(),
            Casing::Lower => text.to_lowercase(),
            Casing::Upper => text.to_uppercase(),
        }
    }
}

/// What ElectroDB's default keys are built from, besides the fields.
struct DefaultKeyText {
    /// `$service` and, for a key without a sort key, the sort key's text.
    hash_prefix: String,
    /// `$entity_version`, or `$collection#entity_version`.
    range_prefix: String,
}

impl DefaultKeyText {
    /// The text ElectroDB puts before the fields: see its `_getPrefixes` (`scope` follows
    /// the rest of the partition key's prefix, after `_`).
    fn new(
        service: &str,
        entity: &str,
        version: &str,
        collection: Option<&str>,
        scope: Option<&str>,
        has_range: bool,
    ) -> Self {
        let entity_keys = match collection {
            Some(_) => format!("#{entity}_{version}"),
            None => format!("${entity}_{version}"),
        };
        let range_prefix = match collection {
            Some(collection) => format!("${collection}{entity_keys}"),
            None => entity_keys,
        };
        let mut hash_prefix = format!("${service}");
        if !has_range {
            hash_prefix.push_str(&range_prefix);
        }
        if let Some(scope) = scope {
            hash_prefix.push('_');
            hash_prefix.push_str(scope);
        }
        DefaultKeyText {
            hash_prefix,
            range_prefix,
        }
    }
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
    /// How items carry their identity.
    pub convention: Convention,
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
    /// What the index projects, as declared (`None`: every attribute).
    pub project: Option<&'a ProjectDecl>,
}

impl Template<'_> {
    /// The field whose stored attribute the key is written into, when it is one of the
    /// key's own fields (ElectroDB's attributes used as index keys).
    pub fn own_field(&self, fields: &[Field]) -> Option<usize> {
        self.fields()
            .find(|&position| fields[position].name == self.attribute)
    }
}

impl KeyTemplates<'_> {
    /// The templates: hash, then range.
    pub fn templates(&self) -> impl Iterator<Item = &Template<'_>> {
        std::iter::once(&self.hash).chain(&self.range)
    }
}

impl<'a> Resolver<'_, 'a> {
    /// A template with its fields resolved, and ElectroDB's default key text added to a
    /// list of fields (`prefix`, when the convention allows one).
    fn template(
        &self,
        written: &'a template::Template,
        fields: &[Field],
        casing: Casing,
        prefix: Option<&str>,
    ) -> Template<'a> {
        let mut parts: Vec<Part> = Vec::new();
        let push_text = |parts: &mut Vec<Part>, text: &str| match parts.last_mut() {
            Some(Part::Static(last)) => last.push_str(&casing.fold(text)),
            _ if text.is_empty() => {}
            _ => parts.push(Part::Static(casing.fold(text))),
        };
        let attribute = written.attribute.unraw().to_string();
        // ElectroDB's key of one attribute written into that attribute's own field is the
        // value alone (`_optimizeIndexKey`): `organizationId = [organization_id]`.
        let own = match written.parts.as_slice() {
            [WrittenPart::Field(reference)] if written.composite && prefix.is_some() => {
                self.field(reference).filter(|&position| {
                    // ElectroDB's attribute name and its `field` both name the key.
                    self.label(&fields[position]) == attribute && fields[position].name == attribute
                })
            }
            _ => None,
        };
        match (written.composite, prefix) {
            (true, Some(_)) if own.is_some() => parts.extend(own.map(Part::Field)),
            (true, Some(prefix)) => {
                push_text(&mut parts, prefix);
                for part in &written.parts {
                    let WrittenPart::Field(reference) = part else {
                        continue;
                    };
                    if let Some(position) = self.field(reference) {
                        let label = self.label(&fields[position]);
                        push_text(&mut parts, &format!("#{label}_"));
                        parts.push(Part::Field(position));
                    }
                }
            }
            (true, None) => self.cx.error_spanned_by(
                &written.literal,
                "a list of fields is ElectroDB's default key, which needs \
                 #[dynorm(convention = \"electrodb\", service = \"..\", entity_version = \"..\")]; \
                 otherwise write a template, such as \"TEAM#{team_id}\"",
            ),
            (false, _) => {
                for part in &written.parts {
                    match part {
                        WrittenPart::Static(text) => push_text(&mut parts, text),
                        WrittenPart::Field(reference) => {
                            if let Some(position) = self.field(reference) {
                                parts.push(Part::Field(position));
                            }
                        }
                    }
                }
            }
        }
        Template {
            literal: &written.literal,
            attribute,
            parts,
            casing,
        }
    }

    /// ElectroDB's label of a field's value in its default keys: the attribute's name in
    /// its model, which is the field's name after `rename_all`; `rename` is the stored
    /// name (ElectroDB's `field`), which the label ignores.
    fn label(&self, field: &Field) -> String {
        let plain = field.member.unraw().to_string();
        match self.cont.attrs.rename_all {
            Some(rule) => rule.apply(&plain),
            None => plain,
        }
    }

    /// A `#[key(..)]` with its templates resolved.
    pub(super) fn key_templates(
        &self,
        decl: &'a KeyDecl,
        fields: &[Field],
        convention: &Convention,
        model_casing: Option<&LitStr>,
        entity: &str,
    ) -> KeyTemplates<'a> {
        let casing = Casing::of(decl.casing.as_ref().or(model_casing), convention);
        let text = match convention {
            Convention::ElectroDb { service, version } => Some(DefaultKeyText::new(
                service,
                entity,
                version,
                decl.collection.as_ref().map(LitStr::value).as_deref(),
                decl.scope.as_ref().map(LitStr::value).as_deref(),
                decl.range.is_some(),
            )),
            _ => None,
        };
        let hash_prefix = text.as_ref().map(|t| t.hash_prefix.as_str());
        let range_prefix = text.as_ref().map(|t| t.range_prefix.as_str());
        KeyTemplates {
            attr: &decl.attr,
            index: decl.index.as_ref().map(LitStr::value),
            hash: self.template(&decl.hash, fields, casing, hash_prefix),
            range: decl
                .range
                .as_ref()
                .map(|range| self.template(range, fields, casing, range_prefix)),
            project: decl.project.as_ref(),
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
