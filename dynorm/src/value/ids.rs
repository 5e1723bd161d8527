//! Ids and calendar types: `uuid::Uuid`, `chrono::NaiveDate` and, with the `decimal`
//! feature, `rust_decimal::Decimal`.
//!
//! A `Uuid` is stored as its canonical lowercase hyphenated text (S), a `NaiveDate` as ISO
//! text (`2026-11-06`, S), both sortable and usable as keys. A `Decimal` is a number (N),
//! written exactly, so that conditions compare it numerically.

#[cfg(any(feature = "chrono", feature = "uuid"))]
use aws_sdk_dynamodb::types::AttributeValue;
#[cfg(feature = "chrono")]
use chrono::NaiveDate;
#[cfg(feature = "uuid")]
use uuid::Uuid;

#[cfg(any(feature = "chrono", feature = "uuid"))]
use super::{AttrError, AttrValue, KeyScalar, ScalarType};

#[cfg(feature = "uuid")]
impl AttrValue for Uuid {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        Ok(AttributeValue::S(
            self.hyphenated()
                .encode_lower(&mut Uuid::encode_buffer())
                .to_owned(),
        ))
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::S(text) => Uuid::try_parse(&text)
                .map_err(|_| AttrError::new(format!("expected a UUID, found `{text}`"))),
            other => Err(AttrError::mismatch("a UUID string (S)", &other)),
        }
    }
}

#[cfg(feature = "uuid")]
impl KeyScalar for Uuid {
    const SCALAR_TYPE: ScalarType = ScalarType::S;
}

#[cfg(feature = "chrono")]
impl AttrValue for NaiveDate {
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, AttrError> {
        super::date::check_sortable_year(chrono::Datelike::year(self))?;
        Ok(AttributeValue::S(self.format("%Y-%m-%d").to_string()))
    }

    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
        match value {
            AttributeValue::S(text) => NaiveDate::parse_from_str(&text, "%Y-%m-%d")
                .map_err(|_| AttrError::new(format!("expected an ISO date, found `{text}`"))),
            other => Err(AttrError::mismatch("an ISO date string (S)", &other)),
        }
    }
}

#[cfg(feature = "chrono")]
impl KeyScalar for NaiveDate {
    const SCALAR_TYPE: ScalarType = ScalarType::S;
}

#[cfg(feature = "decimal")]
mod decimal {
    use aws_sdk_dynamodb::types::AttributeValue;
    use rust_decimal::Decimal;

    use crate::value::{limits, AttrError, AttrValue, KeyScalar, ScalarType};

    impl AttrValue for Decimal {
        #[inline]
        fn to_attr(&self) -> Result<AttributeValue, AttrError> {
            // `normalize` drops trailing zeros; the text is exact, never in an exponent.
            let text = self.normalize().to_string();
            limits::check_number(&text)?;
            Ok(AttributeValue::N(text))
        }

        #[inline]
        fn from_attr(value: AttributeValue) -> Result<Self, AttrError> {
            match value {
                AttributeValue::N(text) => text
                    .parse::<Decimal>()
                    .or_else(|_| Decimal::from_scientific(&text))
                    .map_err(|_| {
                        AttrError::new(format!(
                            "expected a number that fits a Decimal, found `{text}`"
                        ))
                    }),
                other => Err(AttrError::mismatch("a number (N)", &other)),
            }
        }
    }

    impl KeyScalar for Decimal {
        const SCALAR_TYPE: ScalarType = ScalarType::N;
    }
}

#[cfg(all(test, feature = "chrono", feature = "uuid"))]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_lowercase_hyphenated_text() {
        let id = Uuid::parse_str("0190C3A4-7B2E-7C3D-9E1F-0123456789AB").unwrap();
        let stored = id.to_attr().unwrap();
        assert_eq!(
            stored,
            AttributeValue::S("0190c3a4-7b2e-7c3d-9e1f-0123456789ab".into())
        );
        assert_eq!(Uuid::from_attr(stored).unwrap(), id);
        assert!(Uuid::from_attr(AttributeValue::S("nope".into())).is_err());
        assert!(Uuid::from_attr(AttributeValue::N("1".into())).is_err());
    }

    #[test]
    fn dates_are_iso_text() {
        let day = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap();
        let stored = day.to_attr().unwrap();
        assert_eq!(stored, AttributeValue::S("2026-01-05".into()));
        assert_eq!(NaiveDate::from_attr(stored).unwrap(), day);
    }

    #[cfg(feature = "decimal")]
    #[test]
    fn decimals_are_exact_numbers() {
        use rust_decimal::Decimal;
        let price: Decimal = "12.3400".parse().unwrap();
        let stored = price.to_attr().unwrap();
        assert_eq!(stored, AttributeValue::N("12.34".into()));
        assert_eq!(Decimal::from_attr(stored).unwrap(), price);
        let big: Decimal = "79228162514264337593543950335".parse().unwrap();
        assert_eq!(Decimal::from_attr(big.to_attr().unwrap()).unwrap(), big);
        assert_eq!(
            Decimal::from_attr(AttributeValue::N("1.5E+2".into())).unwrap(),
            Decimal::from(150)
        );
    }
}
