//! `chrono::DateTime<Utc>` storage: fixed-width ISO text, epoch milliseconds or seconds.
//!
//! The ISO form is always `YYYY-MM-DDTHH:MM:SS.mmmZ`, 24 characters in UTC, so stored
//! dates sort as text. Precision below a millisecond is dropped on write.

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Datelike, TimeZone, Timelike, Utc};

use super::{AttrError, AttrValue, DateStorage, KeyScalar, ScalarType};

/// chrono's millisecond RFC 3339 text of a date, which [`iso_text`] writes for years 0000 to
/// 9999: the reference of the tests.
#[cfg(test)]
pub fn to_iso(value: &DateTime<Utc>) -> String {
    value.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Refuses a year whose ISO text would not sort with the others: only years 0000 to 9999
/// have four digits and no sign.
#[inline]
pub(crate) fn check_sortable_year(year: i32) -> Result<(), AttrError> {
    if (0..=9999).contains(&year) {
        Ok(())
    } else {
        Err(unsortable_year(year))
    }
}

/// Why a year is refused, out of the conversions' way.
#[cold]
#[inline(never)]
fn unsortable_year(year: i32) -> AttrError {
    AttrError::new(format!(
        "the year {year} is outside 0000 to 9999, where ISO text sorts as dates do; \
         store it as a number with #[dynorm(date = \"seconds\")]"
    ))
}

/// The fixed-width ISO text of a date, `YYYY-MM-DDTHH:MM:SS.mmmZ`, or why it would not sort
/// as the date does. The text is chrono's `to_rfc3339_opts(SecondsFormat::Millis, true)`
/// (a leap second is second 60, as chrono writes it), written digit by digit into a
/// buffer of 24 bytes: the year is checked first, so every part has its fixed width.
fn iso_text(value: &DateTime<Utc>) -> Result<String, AttrError> {
    let at = value.naive_utc();
    let year = at.year();
    check_sortable_year(year)?;
    let (mut second, mut nanos) = (at.second(), at.nanosecond());
    if nanos >= 1_000_000_000 {
        second += 1;
        nanos -= 1_000_000_000;
    }
    let mut text = *b"0000-00-00T00:00:00.000Z";
    for (at, width, value) in [
        (0, 4, year.unsigned_abs()),
        (5, 2, at.month()),
        (8, 2, at.day()),
        (11, 2, at.hour()),
        (14, 2, at.minute()),
        (17, 2, second),
        (20, 3, nanos / 1_000_000),
    ] {
        let mut value = value;
        for digit in text[at..at + width].iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
    // The room chrono's text had: the string takes as much memory as before, and the
    // allocator serves it from the same size class.
    let mut bytes = Vec::with_capacity(38);
    bytes.extend_from_slice(&text);
    // ASCII digits and separators only, so the text is always UTF-8.
    String::from_utf8(bytes).map_err(|e| AttrError::new(e.to_string()))
}

/// Encodes a date in the given storage.
#[inline]
pub fn encode(
    value: &DateTime<Utc>,
    storage: DateStorage,
) -> Result<Option<AttributeValue>, AttrError> {
    Ok(Some(match storage {
        DateStorage::Iso => AttributeValue::S(iso_text(value)?),
        DateStorage::Milliseconds => AttributeValue::N(
            itoa::Buffer::new()
                .format(value.timestamp_millis())
                .to_owned(),
        ),
        DateStorage::Seconds => {
            AttributeValue::N(itoa::Buffer::new().format(value.timestamp()).to_owned())
        }
    }))
}

/// Decodes a date stored in the given storage.
pub fn decode(
    value: Option<AttributeValue>,
    storage: DateStorage,
) -> Result<DateTime<Utc>, AttrError> {
    let value = value.ok_or_else(AttrError::missing)?;
    match storage {
        DateStorage::Iso => DateTime::<Utc>::from_attr(value),
        DateStorage::Milliseconds => {
            let millis = i64::from_attr(value)?;
            Utc.timestamp_millis_opt(millis).single().ok_or_else(|| {
                AttrError::new(format!("{millis} is out of range for epoch milliseconds"))
            })
        }
        DateStorage::Seconds => {
            let seconds = i64::from_attr(value)?;
            Utc.timestamp_opt(seconds, 0).single().ok_or_else(|| {
                AttrError::new(format!("{seconds} is out of range for epoch seconds"))
            })
        }
    }
}

impl AttrValue for DateTime<Utc> {
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::S(iso_text(self)?))
    }

    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::S(text) => DateTime::parse_from_rfc3339(&text)
                .map(|date| date.with_timezone(&Utc))
                .map_err(|e| {
                    AttrError::new(format!("expected an ISO 8601 date, found `{text}` ({e})"))
                }),
            other => Err(AttrError::mismatch("an ISO 8601 date string (S)", &other)),
        }
    }
}

impl KeyScalar for DateTime<Utc> {
    const SCALAR_TYPE: ScalarType = ScalarType::S;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_form_has_a_fixed_width() {
        let whole = Utc.with_ymd_and_hms(2026, 11, 6, 9, 30, 0).unwrap();
        assert_eq!(to_iso(&whole), "2026-11-06T09:30:00.000Z");
        let fine = whole + chrono::Duration::nanoseconds(123_456_789);
        assert_eq!(to_iso(&fine), "2026-11-06T09:30:00.123Z");
    }

    #[test]
    fn iso_text_is_chronos_text() {
        // Every 7th day of four centuries at a time that moves with the day, the first
        // and last instants of the years that can be stored, and leap seconds.
        let start = Utc
            .with_ymd_and_hms(1900, 1, 1, 0, 0, 0)
            .unwrap()
            .timestamp_millis();
        let mut dates: Vec<DateTime<Utc>> = (0..146_097i64)
            .step_by(7)
            .map(|day| {
                let millis = start + day * 86_400_000 + day * 7_919_123 % 86_400_000;
                Utc.timestamp_millis_opt(millis).unwrap()
            })
            .collect();
        for year in [0, 1, 999, 1000, 1969, 1970, 2000, 9999] {
            let first = Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).unwrap();
            let last = Utc.with_ymd_and_hms(year, 12, 31, 23, 59, 59).unwrap()
                + chrono::Duration::nanoseconds(999_999_999);
            dates.extend([first, last]);
        }
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 1_987_654_321)
            .unwrap()
            .and_utc();
        dates.push(leap);
        for date in dates {
            assert_eq!(iso_text(&date).unwrap(), to_iso(&date), "{date:?}");
        }
        assert_eq!(iso_text(&leap).unwrap(), "2016-12-31T23:59:60.987Z");
    }

    #[test]
    fn numeric_storages_round_trip() {
        let date = Utc.timestamp_millis_opt(1_762_421_400_123).unwrap();
        let millis = encode(&date, DateStorage::Milliseconds).unwrap();
        assert_eq!(millis, Some(AttributeValue::N("1762421400123".into())));
        assert_eq!(decode(millis, DateStorage::Milliseconds).unwrap(), date);
        let seconds = encode(&date, DateStorage::Seconds).unwrap();
        assert_eq!(seconds, Some(AttributeValue::N("1762421400".into())));
    }

    #[test]
    fn iso_text_is_refused_where_it_would_not_sort() {
        let edge = |y| Utc.with_ymd_and_hms(y, 1, 1, 0, 0, 0).unwrap();
        for year in [-1, 10_000] {
            let error = encode(&edge(year), DateStorage::Iso).unwrap_err();
            assert!(error.message().contains(&year.to_string()), "{error:?}");
            assert!(edge(year).to_attr().is_err());
            assert!(chrono::NaiveDate::from_ymd_opt(year, 1, 1)
                .unwrap()
                .to_attr()
                .is_err());
            // As numbers they sort, and are stored.
            assert!(encode(&edge(year), DateStorage::Seconds).is_ok());
        }
        let mut texts: Vec<String> = [0, 1, 999, 2026, 9999]
            .map(|y| to_iso(&edge(y)))
            .into_iter()
            .collect();
        let sorted = texts.clone();
        texts.sort();
        assert_eq!(texts, sorted, "years 0000 to 9999 sort as text");
        assert!(encode(&edge(9999), DateStorage::Iso).is_ok());
        assert!(encode(&edge(0), DateStorage::Iso).is_ok());
    }
}
