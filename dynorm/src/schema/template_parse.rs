//! Key templates read backwards: the field values a stored key was rendered from, so that a
//! key read from a stream record (or anywhere else) becomes the model's typed key again.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::schema::convention::Convention;
use crate::schema::entity::{KeyCasing, KeyTemplate, TemplatePart};
use crate::schema::Schema;
use crate::value::{AttrError, Item};

impl KeyTemplate {
    /// The field values `value` was rendered from, or `None` when it does not fit the
    /// template. A field ends where the static text after it first appears (rendering
    /// refuses its first character in the field's value, except under ElectroDB's
    /// convention, which writes it); the last field takes the rest.
    pub(crate) fn parse(&self, value: &str) -> Option<Vec<(&'static str, String)>> {
        let mut rest = value;
        let mut fields = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                TemplatePart::Static(text) => rest = rest.strip_prefix(text)?,
                TemplatePart::Field(name) => {
                    let end = match self.parts.get(i + 1) {
                        Some(TemplatePart::Static(next)) => rest.find(next)?,
                        // Two fields side by side have no boundary to find.
                        Some(TemplatePart::Field(_)) => return None,
                        None => rest.len(),
                    };
                    let (text, tail) = rest.split_at(end);
                    if text.is_empty() {
                        return None;
                    }
                    fields.push((*name, text.to_owned()));
                    rest = tail;
                }
            }
        }
        rest.is_empty().then_some(fields)
    }

    /// Whether the template is written into the attribute of one of its own fields, as
    /// ElectroDB's attributes used as index keys are (`accountId` holds
    /// `prefix_{accountId}_postfix`).
    pub(crate) fn is_own(&self) -> bool {
        self.fields().any(|field| field == self.attribute)
    }

    /// The convention a key is rendered under. A key written into its own field's
    /// attribute is the only place the field's value is stored, so it must parse back:
    /// a value holding the text that follows it is refused under every convention
    /// (ElectroDB would write it, and then read back another value).
    pub(crate) fn strictness(&self, convention: Convention) -> Convention {
        match self.is_own() {
            true => Convention::Dynorm,
            false => convention,
        }
    }
}

/// Before a model decodes an item: a table key written into its own field's attribute
/// holds the key's text, and the field's value is parsed out of it (its case folded, when
/// the key folds case, as ElectroDB reads it back). Called by generated code only for
/// models with such a key.
pub fn read_own_keys(schema: &Schema, item: &mut Item) -> Result<()> {
    for template in table_templates(schema).filter(|template| template.is_own()) {
        let Some(AttributeValue::S(text)) = item.get(template.attribute) else {
            continue;
        };
        let fields = template.parse(text).ok_or_else(|| {
            Error::new(
                crate::ErrorKind::Conversion,
                format!(
                    "`{}` is {text:?}, which does not fit its key template",
                    template.attribute
                ),
            )
            .with_model(schema.model)
            .with_attribute(template.attribute)
        })?;
        for (name, value) in fields {
            item.insert(name.to_owned(), AttributeValue::S(value));
        }
    }
    Ok(())
}

/// Writes each table key that goes into its own field's attribute from the field's
/// value there, as a write stores it: `created` is an item of raw sources (an upsert's
/// item before it is created).
pub(crate) fn render_own_keys(schema: &Schema, item: &mut Item) -> Result<()> {
    let Some(entity) = schema.entity.as_ref() else {
        return Ok(());
    };
    for template in table_templates(schema).filter(|template| template.is_own()) {
        let convention = template.strictness(entity.convention);
        if let Some(text) = template.render(schema.model, convention, item)? {
            item.insert(template.attribute.to_owned(), AttributeValue::S(text));
        }
    }
    Ok(())
}

/// A value of a field whose attribute a table key is written into, as the attribute holds
/// it: the key's text, so that a condition on the field compares what is stored. The
/// template is the field's alone (the derive refuses another).
pub fn own_key_value(
    schema: &Schema,
    attribute: &'static str,
    value: Result<Option<AttributeValue>, AttrError>,
) -> Result<Option<AttributeValue>, AttrError> {
    let Some(value) = value? else {
        return Ok(None);
    };
    let Some((entity, template)) = schema.entity.as_ref().and_then(|entity| {
        table_templates(schema)
            .find(|t| t.attribute == attribute)
            .map(|t| (entity, t))
    }) else {
        return Ok(Some(value));
    };
    let item = Item::from([(attribute.to_owned(), value)]);
    match template.render(schema.model, template.strictness(entity.convention), &item) {
        Ok(Some(text)) => Ok(Some(AttributeValue::S(text))),
        Ok(None) => Ok(None),
        Err(error) => Err(AttrError::new(error.message())),
    }
}

/// The table's key templates of a schema, hash first; empty when it has none.
fn table_templates(schema: &Schema) -> impl Iterator<Item = &'static KeyTemplate> + '_ {
    schema
        .entity
        .iter()
        .flat_map(|entity| entity.keys.iter())
        .filter(|template| template.index.is_none())
}

/// Whether a key fits the schema's table key templates (always, for a model without
/// templates): on a shared table, whether the key can be an item of this entity.
pub fn key_fits(schema: &Schema, key: &Item) -> bool {
    table_templates(schema).all(|template| match key.get(template.attribute) {
        Some(AttributeValue::S(text)) => template.parse(text).is_some(),
        _ => false,
    })
}

/// The field values a templated table key was rendered from, as strings: the input of a
/// generated `from_key_item`. A key whose template folds case loses the values' case; when
/// `key` also holds a field's own attribute, that value is taken instead.
pub fn template_key_sources(schema: &Schema, key: &Item) -> Result<Item> {
    let mut sources = Item::new();
    for template in table_templates(schema) {
        let refused = |why: String| {
            Error::validation(why)
                .with_model(schema.model)
                .with_attribute(template.attribute)
        };
        let text = match key.get(template.attribute) {
            Some(AttributeValue::S(text)) => text,
            Some(other) => {
                return Err(refused(format!(
                    "key `{}` is {}, and a templated key is a string",
                    template.attribute,
                    crate::value::describe(other)
                )))
            }
            None => {
                return Err(refused(format!(
                    "the key has no `{}` attribute",
                    template.attribute
                )))
            }
        };
        let fields = template.parse(text).ok_or_else(|| {
            refused(format!(
                "key `{}` is {text:?}, which does not fit its template",
                template.attribute
            ))
        })?;
        for (name, value) in fields {
            if template.casing != KeyCasing::None && name != template.attribute {
                // The key folded the value's case; the source attribute, when the caller
                // has it (a stream record's image), holds it as written (unless it is the
                // key's own attribute, which holds the key's text).
                if let Some(stored) = key.get(name) {
                    sources.insert(name.to_owned(), stored.clone());
                    continue;
                }
            }
            match sources.get(name) {
                Some(AttributeValue::S(seen)) if *seen != value => {
                    return Err(refused(format!(
                        "the key gives `{name}` two values, {seen:?} and {value:?}"
                    )))
                }
                _ => {
                    sources.insert(name.to_owned(), AttributeValue::S(value));
                }
            }
        }
    }
    Ok(sources)
}

/// Decodes a value parsed out of a key template. Rendering wrote the text of a string or
/// a number alike, so a value that does not decode as a string is read as a number.
pub fn template_field<T>(
    value: Option<AttributeValue>,
    decode: impl Fn(Option<AttributeValue>) -> Result<T, AttrError>,
) -> Result<T, AttrError> {
    match value {
        Some(AttributeValue::S(text)) => decode(Some(AttributeValue::S(text.clone())))
            .or_else(|as_string| decode(Some(AttributeValue::N(text))).map_err(|_| as_string)),
        other => decode(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AttrValue;

    const MEMBER: KeyTemplate = KeyTemplate {
        index: None,
        attribute: "sk",
        is_hash: false,
        parts: &[
            TemplatePart::Static("MEMBER#"),
            TemplatePart::Field("user_id"),
            TemplatePart::Static("#"),
            TemplatePart::Field("since"),
        ],
        casing: KeyCasing::None,
    };

    #[test]
    fn a_rendered_key_parses_back_into_its_fields() {
        let item: Item = [
            ("user_id".to_owned(), AttributeValue::S("ada".into())),
            ("since".to_owned(), AttributeValue::N("2024".into())),
        ]
        .into();
        let rendered = MEMBER
            .render(
                "Member",
                crate::schema::convention::Convention::Dynorm,
                &item,
            )
            .unwrap()
            .unwrap();
        assert_eq!(rendered, "MEMBER#ada#2024");
        assert_eq!(
            MEMBER.parse(&rendered).unwrap(),
            [("user_id", "ada".to_owned()), ("since", "2024".to_owned())]
        );
    }

    #[test]
    fn a_key_of_another_shape_does_not_fit() {
        for other in [
            "TEAM#ada#2024",
            "MEMBER#",
            "MEMBER#ada",
            "MEMBER##2024",
            "MEMBER#ada#",
        ] {
            assert_eq!(MEMBER.parse(other), None, "{other}");
        }
        let last_takes_the_rest = MEMBER.parse("MEMBER#ada#20#24").unwrap();
        assert_eq!(last_takes_the_rest[1], ("since", "20#24".to_owned()));
    }

    #[test]
    fn a_parsed_number_is_read_as_a_number() {
        let decode = |value: Option<AttributeValue>| i64::from_attr(value.unwrap());
        let number = template_field(Some(AttributeValue::S("2024".into())), decode);
        assert_eq!(number.unwrap(), 2024);
        let text = template_field(Some(AttributeValue::S("2024".into())), |value| {
            String::from_attr(value.unwrap())
        });
        assert_eq!(text.unwrap(), "2024");
        assert!(template_field(Some(AttributeValue::S("ada".into())), decode).is_err());
    }
}
