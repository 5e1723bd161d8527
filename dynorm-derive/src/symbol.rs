//! The names of every attribute and attribute key the derive accepts.

/// `#[hash_key]` on a field.
pub const HASH_KEY: &str = "hash_key";
/// `#[range_key]` on a field.
pub const RANGE_KEY: &str = "range_key";
/// `#[version]` on an integer field.
pub const VERSION: &str = "version";
/// `#[ttl]` on a date field.
pub const TTL: &str = "ttl";
/// `#[combine(...)]` on a string field.
pub const COMBINE: &str = "combine";
/// `#[dynorm(...)]` on the struct or a field.
pub const DYNORM: &str = "dynorm";

/// `#[dynorm(table = "...")]`
pub const TABLE: &str = "table";
/// `#[dynorm(entity = "...")]`
pub const ENTITY: &str = "entity";
/// `#[dynorm(entity_attribute = "...")]`
pub const ENTITY_ATTRIBUTE: &str = "entity_attribute";
/// `#[dynorm(prefix = "...")]`
pub const PREFIX: &str = "prefix";
/// `#[dynorm(suffix = "...")]`
pub const SUFFIX: &str = "suffix";
/// `#[dynorm(rename_all = "...")]`
pub const RENAME_ALL: &str = "rename_all";
/// `#[dynorm(rename = "...")]`
pub const RENAME: &str = "rename";
/// `#[dynorm(date = "iso" | "millis" | "seconds")]`
pub const DATE: &str = "date";

/// `#[dynorm(default = "now" | "uuid_v7")]`
pub const DEFAULT: &str = "default";
/// `#[dynorm(read_only)]`
pub const READ_ONLY: &str = "read_only";
/// `#[dynorm(updated_at)]`
pub const UPDATED_AT: &str = "updated_at";

/// The keys `#[dynorm(...)]` accepts on the struct.
pub const CONTAINER_KEYS: &[&str] = &[TABLE, PREFIX, SUFFIX, RENAME_ALL, ENTITY, ENTITY_ATTRIBUTE];
/// The keys `#[dynorm(...)]` accepts on a field.
pub const FIELD_KEYS: &[&str] = &[RENAME, DATE, DEFAULT, READ_ONLY, UPDATED_AT];

/// The closest known key to `unknown`, when one is close enough to be a likely typo.
pub fn did_you_mean<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|candidate| (edit_distance(unknown, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= ((candidate.len() + 1) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
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

/// The message for an unknown key, with a suggestion where one fits.
pub fn unknown_key_message(unknown: &str, known: &[&str], place: &str) -> String {
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match did_you_mean(unknown, known) {
        Some(suggestion) => format!(
            "unknown dynorm {place} attribute `{unknown}`; did you mean `{suggestion}`? (expected one of {list})"
        ),
        None => format!("unknown dynorm {place} attribute `{unknown}` (expected one of {list})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(did_you_mean("tabel", CONTAINER_KEYS), Some(TABLE));
        assert_eq!(did_you_mean("rename_al", CONTAINER_KEYS), Some(RENAME_ALL));
        assert_eq!(did_you_mean("renam", FIELD_KEYS), Some(RENAME));
        assert_eq!(did_you_mean("throughput", CONTAINER_KEYS), None);
        assert_eq!(did_you_mean("zz", &["id"]), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
