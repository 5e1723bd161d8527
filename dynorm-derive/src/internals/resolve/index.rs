//! Secondary indexes: their keys, projection and marker type.

use quote::format_ident;
use syn::{Attribute, Ident};

use super::resolver::Resolver;
use super::{KeyTemplates, PrimaryKey, Template};
use crate::internals::attr::{IndexDecl, ProjectDecl};

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

impl Index<'_> {
    /// The index's own key fields: partition, then sort. Empty for a templated index.
    pub fn key_fields(&self) -> Vec<usize> {
        match &self.keys {
            IndexKeys::Fields { hash, range } => hash.iter().chain(range).copied().collect(),
            IndexKeys::Templates { .. } => Vec::new(),
        }
    }
}

impl<'a> Resolver<'_, 'a> {
    /// Every secondary index, in schema order.
    pub(super) fn indexes(
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
            .filter_map(|keys| self.templated_index(keys, model));
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

impl<'a> Resolver<'_, 'a> {
    /// A global index declared with `#[key(index = ..)]`. Its keys are text built from
    /// fields, so what it projects is what it names.
    fn templated_index(&self, keys: &KeyTemplates<'a>, model: &str) -> Option<Index<'a>> {
        let name = keys.index.clone()?;
        let projection = match keys.project {
            None | Some(ProjectDecl::All) => Projection::All,
            Some(ProjectDecl::KeysOnly) => Projection::KeysOnly,
            Some(ProjectDecl::Include(references)) => Projection::Include(self.fields(references)),
        };
        Some(Index {
            attr: keys.attr,
            marker: marker(model, &name),
            name,
            local: false,
            keys: IndexKeys::Templates {
                hash: keys.hash.clone(),
                range: keys.range.clone(),
            },
            projection,
        })
    }
}

/// The marker type of index `index` of `model`: `byStatus` of `Order` is `OrderByStatus`.
/// The one place index type names are made: the schema hands the name to the runtime
/// (`IndexSchema::type_name`) for its messages.
pub fn marker(model: &str, index: &str) -> Ident {
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
