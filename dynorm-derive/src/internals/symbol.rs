//! The name of every attribute and attribute key the derive accepts, and the one
//! "unknown key, did you mean" message every parser reports.

use std::fmt::{self, Display};

use syn::{Ident, Path};

/// An attribute or attribute key, compared against parsed paths with `==`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Symbol(&'static str);

impl Symbol {
    /// The name as written in the attribute.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

// Attributes.

/// `#[hash_key]` on a field; also `hash_key = [..]` in a struct's `#[index]`.
pub const HASH_KEY: Symbol = Symbol("hash_key");
/// `#[range_key]` on a field; also `range_key = ..` in `#[index]`.
pub const RANGE_KEY: Symbol = Symbol("range_key");
/// `#[version]` on an integer field.
pub const VERSION: Symbol = Symbol("version");
/// `#[ttl]` on a date field.
pub const TTL: Symbol = Symbol("ttl");
/// `#[combine(...)]` on a string field.
pub const COMBINE: Symbol = Symbol("combine");
/// `#[dynorm(...)]` on the struct or a field.
pub const DYNORM: Symbol = Symbol("dynorm");
/// `#[index(...)]` on a field or the struct; also `index = ".."` in `#[key]`.
pub const INDEX: Symbol = Symbol("index");
/// `#[key(...)]` on the struct: key templates.
pub const KEY: Symbol = Symbol("key");
/// `#[relation(...)]` on the struct.
pub const RELATION: Symbol = Symbol("relation");
/// `#[unique]` on a field, or `#[unique(fields = [..])]` on the struct.
pub const UNIQUE: Symbol = Symbol("unique");
/// `#[unique(scope = ..)]`
pub const SCOPE: Symbol = Symbol("scope");
/// `#[count(parent = Team, into = member_count, fields = [..], references = [..])]` on the struct.
pub const COUNT: Symbol = Symbol("count");
/// `#[count(parent = Team)]`
pub const PARENT: Symbol = Symbol("parent");
/// `#[count(into = member_count)]`
pub const INTO: Symbol = Symbol("into");
/// `#[serde(...)]`, whose `rename_all` and `rename` `#[derive(Value)]` honours.
pub const SERDE: Symbol = Symbol("serde");

// `#[dynorm(...)]` on the struct.

/// `#[dynorm(table = "...")]`
pub const TABLE: Symbol = Symbol("table");
/// `#[dynorm(entity = "...")]`
pub const ENTITY: Symbol = Symbol("entity");
/// `#[dynorm(entity_attribute = "...")]`
pub const ENTITY_ATTRIBUTE: Symbol = Symbol("entity_attribute");
/// `#[dynorm(prefix = "...")]`
pub const PREFIX: Symbol = Symbol("prefix");
/// `#[dynorm(suffix = "...")]`
pub const SUFFIX: Symbol = Symbol("suffix");
/// `#[dynorm(rename_all = "...")]`
pub const RENAME_ALL: Symbol = Symbol("rename_all");
/// `#[dynorm(stream = "keys_only" | "new_image" | "old_image" | "new_and_old_images")]`
pub const STREAM: Symbol = Symbol("stream");
/// `#[dynorm(convention = "dynorm" | "electrodb" | "dynamodb-toolbox")]`
pub const CONVENTION: Symbol = Symbol("convention");
/// `#[dynorm(shape = 3)]`
pub const SHAPE: Symbol = Symbol("shape");
/// `#[dynorm(upcasts = [..])]`
pub const UPCASTS: Symbol = Symbol("upcasts");
/// `#[dynorm(shape_attribute = "...")]`
pub const SHAPE_ATTRIBUTE: Symbol = Symbol("shape_attribute");
/// `#[dynorm(service = "...")]`: ElectroDB's service name.
pub const SERVICE: Symbol = Symbol("service");
/// `#[dynorm(entity_version = "...")]`: ElectroDB's entity version.
pub const ENTITY_VERSION: Symbol = Symbol("entity_version");
/// `#[dynorm(timestamps)]`: DynamoDB-Toolbox's `_ct` and `_md`.
pub const TIMESTAMPS: Symbol = Symbol("timestamps");
/// `#[dynorm(max_item_bytes = 4096)]`: the largest item the model writes.
pub const MAX_ITEM_BYTES: Symbol = Symbol("max_item_bytes");
/// `#[dynorm(unique_name = "...")]`: the stable name guard items of `#[unique]` use.
pub const UNIQUE_NAME: Symbol = Symbol("unique_name");

// `#[key(...)]`

/// `#[key(casing = "none" | "lower" | "upper" | "default")]`; also on the struct, for every key.
pub const CASING: Symbol = Symbol("casing");
/// `#[key(collection = "...")]`: ElectroDB's collection, in default sort keys.
pub const COLLECTION: Symbol = Symbol("collection");

// `#[dynorm(...)]` on a field.

/// `#[dynorm(rename = "...")]`
pub const RENAME: Symbol = Symbol("rename");
/// `#[dynorm(date = "iso" | "milliseconds" | "seconds")]`
pub const DATE: Symbol = Symbol("date");
/// `#[dynorm(default = "now" | "uuid_v7")]`
pub const DEFAULT: Symbol = Symbol("default");
/// `#[dynorm(read_only)]`
pub const READ_ONLY: Symbol = Symbol("read_only");
/// `#[dynorm(updated_at)]`
pub const UPDATED_AT: Symbol = Symbol("updated_at");
/// `#[dynorm(set = f)]`: the value is stored as `f` makes it (with `watch`: computed).
pub const SET: Symbol = Symbol("set");
/// `#[dynorm(get = f)]`: the value is read as `f` makes it.
pub const GET: Symbol = Symbol("get");
/// `#[dynorm(watch = [a, b], set = f)]`: computed from other fields on every write.
pub const WATCH: Symbol = Symbol("watch");

// `#[index(...)]`

/// `#[index(name = "...")]`
pub const NAME: Symbol = Symbol("name");
/// `#[index(local)]`
pub const LOCAL: Symbol = Symbol("local");
/// `#[index(project = [..] | false | true)]`
pub const PROJECT: Symbol = Symbol("project");

// `#[combine(...)]`

/// `#[combine(fields = [..])]`
pub const FIELDS: Symbol = Symbol("fields");
/// `#[combine(sep = "#")]`
pub const SEP: Symbol = Symbol("sep");

// `#[relation(...)]`

/// `#[relation(one = User)]`
pub const ONE: Symbol = Symbol("one");
/// `#[relation(many = Comment)]`
pub const MANY: Symbol = Symbol("many");
/// `#[relation(references = [..])]`
pub const REFERENCES: Symbol = Symbol("references");
/// `#[relation(allow_scan)]`
pub const ALLOW_SCAN: Symbol = Symbol("allow_scan");

/// The keys `#[relation(...)]` accepts.
pub const RELATION_KEYS: &[Symbol] = &[NAME, ONE, MANY, FIELDS, REFERENCES, ALLOW_SCAN];
/// The keys `#[dynorm(...)]` accepts on the struct.
pub const CONTAINER_KEYS: &[Symbol] = &[
    TABLE,
    PREFIX,
    SUFFIX,
    RENAME_ALL,
    ENTITY,
    ENTITY_ATTRIBUTE,
    STREAM,
    CONVENTION,
    SERVICE,
    ENTITY_VERSION,
    TIMESTAMPS,
    CASING,
    SHAPE,
    UPCASTS,
    SHAPE_ATTRIBUTE,
    MAX_ITEM_BYTES,
    UNIQUE_NAME,
];
/// The values `#[dynorm(convention = ...)]` accepts.
pub const CONVENTIONS: &[&str] = &["dynorm", "electrodb", "dynamodb-toolbox"];
/// The values `#[key(casing = ...)]` accepts.
pub const CASINGS: &[&str] = &["none", "lower", "upper", "default"];
/// The values `#[dynorm(stream = "...")]` accepts.
pub const STREAM_VIEWS: &[&str] = &["keys_only", "new_image", "old_image", "new_and_old_images"];
/// The keys `#[dynorm(...)]` accepts on a field.
pub const FIELD_KEYS: &[Symbol] = &[
    RENAME, DATE, DEFAULT, READ_ONLY, UPDATED_AT, SET, GET, WATCH,
];
/// The keys `#[index(...)]` accepts on a field.
pub const FIELD_INDEX_KEYS: &[Symbol] = &[NAME, RANGE_KEY, LOCAL, PROJECT];
/// The keys `#[index(...)]` accepts on the struct.
pub const CONTAINER_INDEX_KEYS: &[Symbol] = &[NAME, HASH_KEY, RANGE_KEY, PROJECT];
/// The keys `#[unique(...)]` accepts on a field.
pub const FIELD_UNIQUE_KEYS: &[Symbol] = &[SCOPE];
/// The keys `#[unique(...)]` accepts on the struct.
pub const CONTAINER_UNIQUE_KEYS: &[Symbol] = &[FIELDS, SCOPE];
/// The keys `#[count(...)]` accepts.
pub const COUNT_KEYS: &[Symbol] = &[PARENT, INTO, FIELDS, REFERENCES];
/// The keys `#[combine(...)]` accepts.
pub const COMBINE_KEYS: &[Symbol] = &[FIELDS, SEP];

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

/// The closest candidate to `unknown`, when one is close enough to be a likely typo, else
/// one that is `unknown` with words added (`milliseconds` for `millis`, `entity_version`
/// for `version`).
pub fn did_you_mean<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .map(|candidate| (edit_distance(unknown, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= ((candidate.len() + 1) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate);
    close.or_else(|| {
        candidates
            .into_iter()
            .find(|candidate| extends(candidate, unknown))
    })
}

/// Whether `candidate` is `short` with text added after it, or with words added before it.
fn extends(candidate: &str, short: &str) -> bool {
    short.len() >= 3
        && candidate.len() > short.len()
        && (candidate.starts_with(short)
            || candidate
                .strip_suffix(short)
                .is_some_and(|head| head.ends_with('_')))
}

/// The Levenshtein distance between two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// The message for an unknown key of `#[{place} ...]`, with a suggestion where one fits.
pub fn unknown_key_message(unknown: &str, known: &[Symbol], place: &str) -> String {
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match did_you_mean(unknown, known.iter().map(|k| k.as_str())) {
        Some(suggestion) => format!(
            "unknown dynorm {place} attribute `{unknown}`; did you mean `{suggestion}`? (expected one of {list})"
        ),
        None => format!("unknown dynorm {place} attribute `{unknown}` (expected one of {list})"),
    }
}

/// The message for a string value outside a fixed set, with a suggestion where one fits.
pub fn unknown_value_message(given: &str, known: &[&str]) -> String {
    let list = known
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ");
    match did_you_mean(given, known.iter().copied()) {
        Some(suggestion) => {
            format!("unknown value \"{given}\"; did you mean \"{suggestion}\"? (expected one of {list})")
        }
        None => format!("unknown value \"{given}\" (expected one of {list})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(symbols: &[Symbol]) -> Vec<&'static str> {
        symbols.iter().map(|s| s.as_str()).collect()
    }

    #[test]
    fn suggests_close_keys_only() {
        let container = names(CONTAINER_KEYS);
        let field = names(FIELD_KEYS);
        assert_eq!(did_you_mean("tabel", container.clone()), Some("table"));
        assert_eq!(
            did_you_mean("rename_al", container.clone()),
            Some("rename_all")
        );
        assert_eq!(did_you_mean("renam", field), Some("rename"));
        assert_eq!(did_you_mean("throughput", container), None);
        assert_eq!(did_you_mean("zz", ["id"]), None);
    }

    #[test]
    fn suggests_longer_names_of_the_same_word() {
        let container = names(CONTAINER_KEYS);
        assert_eq!(
            did_you_mean("version", container.clone()),
            Some("entity_version")
        );
        assert_eq!(
            did_you_mean("millis", ["iso", "milliseconds", "seconds"]),
            Some("milliseconds")
        );
        assert_eq!(did_you_mean("sion", container.clone()), None);
        assert_eq!(did_you_mean("id", ["id_of"]), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
