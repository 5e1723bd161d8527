//! The current time, as dynorm stores it, without depending on a calendar crate: epoch
//! seconds for `#[ttl]` checks, and the fixed-width ISO text of DynamoDB-Toolbox's
//! timestamps.

use std::cell::Cell;
use std::time::{SystemTime, UNIX_EPOCH};

thread_local! {
    /// A time fixed for this thread (`dynorm_test::FixedClock`), read instead of the
    /// system's.
    static FIXED: Cell<Option<SystemTime>> = const { Cell::new(None) };
}

/// Now: the system's time, or the time fixed for this thread.
pub(crate) fn now() -> SystemTime {
    FIXED.with(Cell::get).unwrap_or_else(SystemTime::now)
}

/// Fixes this thread's clock at `time` (`None`: the system's again), and returns what it
/// was fixed at before.
pub fn fix(time: Option<SystemTime>) -> Option<SystemTime> {
    FIXED.with(|fixed| fixed.replace(time))
}

/// Seconds since the Unix epoch, now (0 for a clock set before 1970).
pub(crate) fn epoch_seconds() -> i64 {
    now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of a time at or after the epoch: what JavaScript's
/// `toISOString()` writes, and `chrono`'s millisecond RFC 3339 form.
pub fn iso_millis(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn iso_text_matches_the_calendar() {
        let at = |seconds: u64, millis: u64| {
            iso_millis(UNIX_EPOCH + Duration::from_millis(seconds * 1000 + millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 7), "2000-02-29T00:00:00.007Z");
        assert_eq!(at(1_762_421_400, 123), "2025-11-06T09:30:00.123Z");
        assert_eq!(at(4_102_444_799, 999), "2099-12-31T23:59:59.999Z");
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn iso_text_is_chronos_for_every_day_of_four_centuries() {
        use chrono::{TimeZone, Utc};
        for day in (0..146_097u64).step_by(7) {
            let seconds = day * 86_400 + 45_296;
            let ours = iso_millis(UNIX_EPOCH + Duration::from_secs(seconds));
            let theirs = Utc.timestamp_opt(seconds as i64, 0).unwrap();
            assert_eq!(ours, crate::value::date::to_iso(&theirs));
        }
    }
}
