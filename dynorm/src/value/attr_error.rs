//! The error of converting one attribute value, with the path inside it.

use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

/// One step of a path inside an attribute: a map key or a list index.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathSegment {
    /// A key of an M value.
    Key(String),
    /// An index of an L value.
    Index(usize),
}

/// Why one attribute value could not be converted, and where inside it.
///
/// The model and the attribute name are added when it becomes an [`Error`](crate::Error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrError {
    /// Innermost segment last.
    path: Vec<PathSegment>,
    message: String,
}

impl AttrError {
    /// An error with a free-form message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            path: Vec::new(),
            message: message.into(),
        }
    }

    /// The value had the wrong DynamoDB type.
    pub fn mismatch(expected: &str, found: &AttributeValue) -> Self {
        Self::new(format!("expected {expected}, found {}", describe(found)))
    }

    /// The attribute is absent from the item, and the field is not optional.
    pub fn missing() -> Self {
        Self::new("the attribute is missing from the item, and the field is not an Option")
    }

    /// Prefixes the path with a map key, as the error travels outwards.
    pub fn in_key(mut self, key: &str) -> Self {
        self.path.insert(0, PathSegment::Key(key.to_owned()));
        self
    }

    /// Prefixes the path with a list index, as the error travels outwards.
    pub fn in_index(mut self, index: usize) -> Self {
        self.path.insert(0, PathSegment::Index(index));
        self
    }

    /// An error at a path serde reported, outermost segment first.
    pub(crate) fn at_serde_path<'a>(
        message: impl Into<String>,
        path: impl DoubleEndedIterator<Item = &'a serde_path_to_error::Segment>,
    ) -> Self {
        path.rev()
            .fold(Self::new(message), |error, segment| match segment {
                serde_path_to_error::Segment::Seq { index } => error.in_index(*index),
                serde_path_to_error::Segment::Map { key } => error.in_key(key),
                serde_path_to_error::Segment::Enum { variant } => error.in_key(variant),
                serde_path_to_error::Segment::Unknown => error,
            })
    }

    /// The path inside the attribute, outermost first.
    pub fn path(&self) -> &[PathSegment] {
        &self.path
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The attribute path rendered after `attribute`, such as `tags[2]` or `address.city`.
    pub(crate) fn render_path(&self, attribute: &str) -> String {
        let mut out = attribute.to_owned();
        for segment in &self.path {
            match segment {
                PathSegment::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                PathSegment::Index(index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

impl fmt::Display for AttrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "at `{}`: {}",
                self.render_path("").trim_start_matches('.'),
                self.message
            )
        }
    }
}

impl std::error::Error for AttrError {}

/// A short description of an attribute value's type, such as `a number (N)`.
pub fn describe(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::B(_) => "binary (B)",
        AttributeValue::Bool(_) => "a boolean (BOOL)",
        AttributeValue::Null(_) => "null (NULL)",
        AttributeValue::L(_) => "a list (L)",
        AttributeValue::M(_) => "a map (M)",
        AttributeValue::Ss(_) => "a string set (SS)",
        AttributeValue::Ns(_) => "a number set (NS)",
        AttributeValue::Bs(_) => "a binary set (BS)",
        _ => "an unknown attribute type",
    }
}

/// A short, readable rendering of a value, for plans and messages.
pub fn show(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".to_owned(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        other => format!("{other:?}"),
    }
}
