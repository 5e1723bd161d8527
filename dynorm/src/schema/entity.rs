//! Single-table design at run time: rendering key templates and the entity discriminator.

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::convention::{self, Convention};
use crate::value::Item;

/// How a rendered key is case-folded, as ElectroDB's `casing` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyCasing {
    /// Stored as rendered.
    None,
    /// Lowercased, text and values alike: ElectroDB's default.
    Lower,
    /// Uppercased, text and values alike.
    Upper,
}

impl KeyCasing {
    /// Folds a value rendered into a key; the static text is folded by the derive.
    pub(crate) fn fold<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self {
            KeyCasing::None => text.into(),
            KeyCasing::Lower => text.to_lowercase().into(),
            KeyCasing::Upper => text.to_uppercase().into(),
        }
    }
}

/// One piece of a key template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplatePart {
    /// Text stored as written (the derive has already applied the key's casing).
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
    /// How field values are case-folded.
    pub casing: KeyCasing,
}

impl KeyTemplate {
    /// The attributes the template is built from, in order.
    pub fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().filter_map(|part| match part {
            TemplatePart::Field(name) => Some(*name),
            TemplatePart::Static(_) => None,
        })
    }

    /// The text every value starts with.
    pub const fn static_prefix(&self) -> &'static str {
        match self.parts.first() {
            Some(TemplatePart::Static(text)) => text,
            _ => "",
        }
    }

    /// Renders the template from an item's attributes; `None` when a field is absent.
    /// `convention` decides whether a value may hold the text that follows it in the
    /// template: dynorm's and DynamoDB-Toolbox's refuse it (the key would be ambiguous),
    /// ElectroDB's writes it as ElectroDB does.
    pub(crate) fn render(
        &self,
        model: &'static str,
        convention: Convention,
        item: &Item,
    ) -> Result<Option<String>> {
        let rendered = self.render_parts(model, convention, item)?;
        Ok((rendered.present == rendered.fields).then_some(rendered.text))
    }

    /// Renders the template up to its first field without a value, as ElectroDB's
    /// `_makeKey` does, and counts the fields that have one.
    pub(super) fn render_parts(
        &self,
        model: &'static str,
        convention: Convention,
        item: &Item,
    ) -> Result<Rendered> {
        let mut out = String::new();
        let (mut fields, mut present, mut stopped) = (0, 0, false);
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                TemplatePart::Static(text) if !stopped => out.push_str(text),
                TemplatePart::Static(_) => {}
                TemplatePart::Field(name) => {
                    fields += 1;
                    let text = match item.get(*name) {
                        Some(AttributeValue::S(s)) => self.casing.fold(s),
                        Some(AttributeValue::N(n)) => n.as_str().into(),
                        Some(AttributeValue::Bool(b)) => bool_text(*b).into(),
                        Some(AttributeValue::Null(_)) | None => {
                            stopped = true;
                            continue;
                        }
                        Some(other) => {
                            return Err(Error::validation(format!(
                                "`{name}` is {}; only strings, numbers and booleans can be part of key `{}`",
                                crate::value::describe(other),
                                self.attribute
                            ))
                            .with_model(model)
                            .with_attribute(*name))
                        }
                    };
                    if let (Some(TemplatePart::Static(next)), false) = (
                        self.parts.get(i + 1),
                        matches!(convention, Convention::ElectroDb { .. }),
                    ) {
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
                        stopped = true;
                        continue;
                    }
                    present += 1;
                    if !stopped {
                        out.push_str(&text);
                    }
                }
            }
        }
        Ok(Rendered {
            text: out,
            fields,
            present,
        })
    }
}

/// What equalities on the leading fields of a range key template fix of its keys.
#[derive(Debug, PartialEq)]
pub(crate) struct LeadingKey {
    /// The key's text up to the first field without an equality, that field's label
    /// included (`$task_1#project_core#employee_`), or the whole key.
    pub text: String,
    /// Whether every field had one: the key is then `text` itself.
    pub complete: bool,
    /// The fields whose equality the text enforces exactly, so that a filter need not
    /// test them again: stored as written (no casing folds the key) and holding no
    /// character of the text that follows them.
    pub enforced: Vec<&'static str>,
}

impl KeyTemplate {
    /// A field's value as the key's text holds it: a string that is not empty (folded as
    /// the key folds it), a number, or a boolean; `None` for any other value.
    pub(crate) fn value_text<'v>(&self, value: &'v AttributeValue) -> Option<Cow<'v, str>> {
        match value {
            AttributeValue::S(s) if !s.is_empty() => Some(self.casing.fold(s)),
            AttributeValue::N(n) => Some(n.as_str().into()),
            AttributeValue::Bool(b) => Some(bool_text(*b).into()),
            _ => None,
        }
    }

    /// The key prefix that equalities on its leading fields fix, as ElectroDB builds a
    /// query on some of a sort key's composite attributes: the text up to the first field
    /// without one, that field's label included. `value` gives a field's equality value.
    pub(crate) fn leading<'v>(
        &self,
        value: impl Fn(&str) -> Option<&'v AttributeValue>,
    ) -> LeadingKey {
        let mut text = String::new();
        let mut enforced = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            let name = match part {
                TemplatePart::Static(static_text) => {
                    text.push_str(static_text);
                    continue;
                }
                TemplatePart::Field(name) => *name,
            };
            let rendered = match value(name).and_then(|v| self.value_text(v)) {
                Some(rendered) => rendered,
                None => {
                    return LeadingKey {
                        text,
                        complete: false,
                        enforced,
                    }
                }
            };
            let next = match self.parts.get(i + 1) {
                Some(TemplatePart::Static(next)) => next.chars().next(),
                _ => None,
            };
            // A folded key holds other values' keys too (`Core` and `core`).
            let exact = self.casing == KeyCasing::None
                && next.is_none_or(|separator| !rendered.contains(separator));
            if exact {
                enforced.push(name);
            }
            text.push_str(&rendered);
        }
        LeadingKey {
            text,
            complete: true,
            enforced,
        }
    }
}

/// A `bool` as a key's text holds it: `true` or `false`, as ElectroDB writes it.
pub(crate) const fn bool_text(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

/// A key template rendered up to its first field without a value.
pub(super) struct Rendered {
    /// The key, complete when every field has a value.
    pub(super) text: String,
    /// How many fields the template has.
    pub(super) fields: usize,
    /// How many of them have a value.
    pub(super) present: usize,
}

impl KeyTemplate {
    /// The first field without a value, or the key attribute when every field has one.
    pub(super) fn first_missing(&self, item: &Item) -> &'static str {
        self.parts
            .iter()
            .find_map(|part| match part {
                TemplatePart::Field(name) => match item.get(*name) {
                    Some(AttributeValue::S(s)) if !s.is_empty() => None,
                    Some(AttributeValue::N(_)) => None,
                    _ => Some(*name),
                },
                TemplatePart::Static(_) => None,
            })
            .unwrap_or(self.attribute)
    }

    /// The error for a key that cannot be rendered: it names the field with no value.
    pub(super) fn missing(&self, model: &'static str, item: &Item) -> Error {
        let field = self.first_missing(item);
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
    /// How items carry their identity: dynorm's way, ElectroDB's or DynamoDB-Toolbox's.
    pub convention: Convention,
    /// Every key template, the table's and the indexes'.
    pub keys: &'static [KeyTemplate],
}

impl Entity {
    /// The range key template of index `index` (`None`: the table), if it is one.
    pub(crate) fn range_template(&self, index: Option<&str>) -> Option<&'static KeyTemplate> {
        self.keys.iter().find(|k| k.index == index && !k.is_hash)
    }

    pub(super) fn templates<'a>(
        &self,
        index: Option<&'a str>,
    ) -> impl Iterator<Item = &'static KeyTemplate> + 'a {
        self.keys.iter().filter(move |k| k.index == index)
    }

    /// Whether a stored item is of this entity: its name matches, and under ElectroDB's
    /// convention, its version too. Queries, scans, collections and streams keep the items
    /// this holds.
    pub fn holds(&self, item: &Item) -> bool {
        convention::text(item, self.attribute) == Some(self.name)
            && self
                .convention
                .version()
                .is_none_or(|(attribute, version)| {
                    convention::text(item, attribute) == Some(version)
                })
    }

    /// Whether a read by key takes a stored item as this entity's: as [`holds`](Self::holds),
    /// and under DynamoDB-Toolbox's convention also an item without an entity name.
    pub(crate) fn accepts(&self, item: &Item) -> bool {
        self.holds(item)
            || (self.convention.name_optional_on_read() && !item.contains_key(self.attribute))
    }

    /// Takes a stored item as this entity's whatever its identity attributes say: writes
    /// its name and version over them, as a read that ignores identity decodes it.
    pub(crate) fn adopt(&self, item: &mut Item) {
        item.insert(
            self.attribute.to_owned(),
            AttributeValue::S(self.name.to_owned()),
        );
        if let Some((attribute, version)) = self.convention.version() {
            item.insert(attribute.to_owned(), AttributeValue::S(version.to_owned()));
        }
    }

    /// Writes the attributes that say which entity the item is, on every whole-item write:
    /// the name, the version (ElectroDB) and the times (DynamoDB-Toolbox with `timestamps`).
    pub(super) fn write_identity(&self, item: &mut Item) {
        self.adopt(item);
        if self.convention.timestamps() {
            let now = convention::toolbox_now();
            item.insert(convention::TOOLBOX_CREATED.to_owned(), now.clone());
            item.insert(convention::TOOLBOX_MODIFIED.to_owned(), now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ElectroDB's `sk: { composite: ["project", "employee"] }` of entity `task`.
    const TASK_SK: KeyTemplate = KeyTemplate {
        index: None,
        attribute: "sk",
        is_hash: false,
        parts: &[
            TemplatePart::Static("$task_1#project_"),
            TemplatePart::Field("project"),
            TemplatePart::Static("#employee_"),
            TemplatePart::Field("emp"),
        ],
        casing: KeyCasing::Lower,
    };

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_owned())
    }

    #[test]
    fn leading_fields_fix_the_key_up_to_the_next_label_as_electrodb_queries() {
        let values = [("project", s("Core"))];
        let leading = TASK_SK.leading(|f| values.iter().find(|(n, _)| *n == f).map(|(_, v)| v));
        assert_eq!(leading.text, "$task_1#project_core#employee_");
        assert!(!leading.complete);
        // The key is lowercased, so `Core` and `core` share it: the filter stays.
        assert!(leading.enforced.is_empty());

        let none = TASK_SK.leading(|_| None);
        assert_eq!(
            (none.text.as_str(), none.complete),
            ("$task_1#project_", false)
        );

        let values = [("project", s("ops")), ("emp", s("cy"))];
        let all = TASK_SK.leading(|f| values.iter().find(|(n, _)| *n == f).map(|(_, v)| v));
        assert_eq!(
            (all.text.as_str(), all.complete),
            ("$task_1#project_ops#employee_cy", true)
        );
    }

    #[test]
    fn an_exact_key_part_needs_no_filter_unless_it_holds_the_separator() {
        let template = KeyTemplate {
            casing: KeyCasing::None,
            ..TASK_SK
        };
        let values = [("project", s("Core")), ("emp", s("a#b"))];
        let leading = template.leading(|f| values.iter().find(|(n, _)| *n == f).map(|(_, v)| v));
        assert_eq!(leading.text, "$task_1#project_Core#employee_a#b");
        assert_eq!(leading.enforced, ["project", "emp"]);
        let values = [("project", s("Core#API"))];
        let leading = template.leading(|f| values.iter().find(|(n, _)| *n == f).map(|(_, v)| v));
        assert_eq!(leading.text, "$task_1#project_Core#API#employee_");
        assert!(
            leading.enforced.is_empty(),
            "`#` follows the project in the key"
        );
    }
}
