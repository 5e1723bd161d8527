//! DynamoDB's limits on values, each checked by one function: numbers (range, precision,
//! finiteness), item size, and sets without duplicates.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{AttrError, Item};

/// DynamoDB's limit on the size of one item, attribute names included.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The most significant digits a DynamoDB number can have.
const MAX_DIGITS: usize = 38;
/// The largest decimal exponent of a DynamoDB number: 9.99..E+125.
const MAX_EXPONENT: i64 = 125;
/// The smallest decimal exponent of a non-zero DynamoDB number: 1E-130.
const MIN_EXPONENT: i64 = -130;

/// Checks a number's text against DynamoDB's limits: finite, zero or of magnitude between
/// 1E-130 and 9.9999999999999999999999999999999999999E+125, and at most 38 significant
/// digits. The text is what dynorm writes: an optional sign, digits, an optional fraction
/// and an optional exponent (`-12.5e-3`).
pub fn check_number(text: &str) -> Result<(), AttrError> {
    let refuse = |why: &str| {
        Err(AttrError::new(format!(
            "{text} cannot be stored: a DynamoDB number {why}"
        )))
    };
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => match unsigned[at + 1..].parse::<i64>() {
            Ok(exponent) => (&unsigned[..at], exponent),
            Err(_) => return refuse("must be finite and written in decimal"),
        },
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return refuse("must be finite and written in decimal");
    }
    // The significant digits, and the decimal exponent of the first of them.
    // Read in place: the digits are `whole` then `fraction`.
    let (whole_digits, fraction_digits) = (whole.as_bytes(), fraction.as_bytes());
    let digit = |i: usize| match whole_digits.get(i) {
        Some(&d) => d,
        None => fraction_digits[i - whole_digits.len()],
    };
    let count = whole_digits.len() + fraction_digits.len();
    let Some(first) = (0..count).position(|i| digit(i) != b'0') else {
        return Ok(()); // zero
    };
    let last = (0..count).rposition(|i| digit(i) != b'0').unwrap_or(first);
    let significant = last - first + 1;
    if significant > MAX_DIGITS {
        return refuse(&format!(
            "has at most {MAX_DIGITS} significant digits, and this has {significant}"
        ));
    }
    let magnitude = whole.len() as i64 - 1 - first as i64 + exponent;
    if magnitude > MAX_EXPONENT {
        return refuse("is at most 9.9999999999999999999999999999999999999E+125 in magnitude");
    }
    if magnitude < MIN_EXPONENT {
        return refuse("is zero or at least 1E-130 in magnitude");
    }
    Ok(())
}

/// Checks every number in a value, nested ones included, and that no set holds the same
/// element twice.
pub fn check_value(value: &AttributeValue) -> Result<(), AttrError> {
    match value {
        AttributeValue::N(n) => check_number(n),
        AttributeValue::Ns(members) => {
            for (index, n) in members.iter().enumerate() {
                check_number(n).map_err(|e| e.in_index(index))?;
            }
            no_duplicates(members.iter().map(|n| canonical_number(n)))
        }
        AttributeValue::Ss(members) => no_duplicates(members.iter().map(String::as_str)),
        AttributeValue::Bs(members) => no_duplicates(members.iter().map(|b| b.as_ref())),
        AttributeValue::L(list) => {
            for (index, element) in list.iter().enumerate() {
                check_value(element).map_err(|e| e.in_index(index))?;
            }
            Ok(())
        }
        AttributeValue::M(map) => {
            for (key, element) in map {
                check_value(element).map_err(|e| e.in_key(key))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A number's text with a trailing `.0` and leading `+` dropped, so that `1` and `1.0`
/// count as the same set element, as DynamoDB counts them.
fn canonical_number(text: &str) -> String {
    let text = text.strip_prefix('+').unwrap_or(text);
    match text.split_once('.') {
        Some((whole, fraction)) if !fraction.contains(['e', 'E']) => {
            let fraction = fraction.trim_end_matches('0');
            if fraction.is_empty() {
                whole.to_owned()
            } else {
                format!("{whole}.{fraction}")
            }
        }
        _ => text.to_owned(),
    }
}

fn no_duplicates<T: std::hash::Hash + Eq + std::fmt::Debug>(
    members: impl Iterator<Item = T>,
) -> Result<(), AttrError> {
    let mut seen = HashSet::new();
    for member in members {
        if let Some(twice) = seen.replace(member) {
            return Err(AttrError::new(format!(
                "the set holds {twice:?} twice; a DynamoDB set cannot"
            )));
        }
    }
    Ok(())
}

/// An item's size as DynamoDB counts it: each attribute's name plus its value, where a
/// number counts about one byte per two significant digits plus one, and lists and maps
/// add three bytes plus one per element.
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| attribute_size(name, value))
        .sum()
}

/// The bytes one attribute adds to an item's size: its name and its value.
pub fn attribute_size(name: &str, value: &AttributeValue) -> usize {
    name.len() + value_size(value)
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + value_size(e)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        _ => 1,
    }
}

/// A number's size: one byte per two significant digits, plus one. Leading and trailing
/// zeros are not significant: `1000000` and `0.000001` have one.
fn number_size(text: &str) -> usize {
    let mantissa = text
        .split(['e', 'E'])
        .next()
        .unwrap_or_default()
        .trim_start_matches(['-', '+']);
    let digits = |b: &u8| b.is_ascii_digit();
    let bytes = mantissa.as_bytes();
    let first = bytes.iter().position(|b| digits(b) && *b != b'0');
    let last = bytes.iter().rposition(|b| digits(b) && *b != b'0');
    let significant = match (first, last) {
        (Some(first), Some(last)) => bytes[first..=last].iter().filter(|b| digits(b)).count(),
        _ => 1,
    };
    significant.div_ceil(2) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_range_pass() {
        for ok in [
            "0",
            "-0",
            "1",
            "-12.5",
            "1e-130",
            "9.9999999999999999999999999999999999999E+125",
            "12345678901234567890123456789012345678",
            "100000000000000000000000000000000000000000",
            "0.000001",
            "1.7976931348623157e100",
        ] {
            assert!(check_number(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused() {
        for bad in [
            "1e126",
            "1.7976931348623157e308",
            "1e-131",
            "5e-324",
            "123456789012345678901234567890123456789",
            "340282366920938463463374607431768211455",
            "NaN",
            "inf",
            "",
            "-",
            "1.2.3",
        ] {
            assert!(check_number(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sets_with_the_same_element_twice_are_refused() {
        let twice = AttributeValue::Ns(vec!["1".into(), "1.0".into()]);
        assert!(check_value(&twice).is_err());
        let nested = AttributeValue::M(
            [(
                "x".to_owned(),
                AttributeValue::L(vec![AttributeValue::N("1e200".into())]),
            )]
            .into(),
        );
        let error = check_value(&nested).unwrap_err();
        assert_eq!(error.render_path("a"), "a.x[0]");
    }

    #[test]
    fn item_size_counts_names_and_values() {
        let item: Item = [
            ("ab".to_owned(), AttributeValue::S("xyz".into())),
            ("n".to_owned(), AttributeValue::N("12345".into())),
        ]
        .into();
        assert_eq!(item_size(&item), 2 + 3 + 1 + 4);
    }

    #[test]
    fn numbers_count_their_significant_digits() {
        for (text, significant) in [
            ("12345", 5),
            ("-12.5", 3),
            ("0", 1),
            ("1000000", 1),
            ("0.000001", 1),
            ("1.2e100", 2),
            ("100.0100", 5),
        ] {
            assert_eq!(
                number_size(text),
                usize::div_ceil(significant, 2) + 1,
                "{text}"
            );
        }
        let long_float = format!("1{}", "0".repeat(125));
        assert_eq!(number_size(&long_float), 2);
    }
}
