//! Human durations on the command line: `250ms`, `1.5s`, `2m`, `1h30m`, `0`.
//!
//! The parser and the formatter are the library's
//! ([`staggered::config::parse_duration`] and
//! [`staggered::config::format_duration`]), so a duration reads the same in
//! an option and in a `--config` file. It reads the digits exactly, with no
//! float rounding (`0.1s` is exactly 100 ms), and `parse(&format(d)) == Ok(d)`
//! for every `Duration`. What is here is the CLI's own: rounding for tables
//! and logs, and milliseconds for CSV.

use std::time::Duration;

pub use staggered::config::{format_duration as format, parse_duration as parse};

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// Whole nanoseconds to `Duration`, or `None` past `Duration::MAX`.
pub fn from_nanos(nanos: u128) -> Option<Duration> {
    let secs = u64::try_from(nanos / NANOS_PER_SEC).ok()?;
    Some(Duration::new(secs, (nanos % NANOS_PER_SEC) as u32))
}

/// Writes `d` like [`format()`], rounded (half up) to `significant` digits so
/// that a table stays readable: `1.234568s` rather than `1.234567891s`.
pub fn format_significant(d: Duration, significant: u32) -> String {
    format(round_significant(d, significant))
}

/// `d` rounded half up to `significant` decimal digits of nanoseconds,
/// saturating at `Duration::MAX`.
pub fn round_significant(d: Duration, significant: u32) -> Duration {
    let nanos = d.as_nanos();
    let digits = nanos.checked_ilog10().map_or(1, |log| log + 1);
    if digits <= significant {
        return d;
    }
    let step = 10u128.pow(digits - significant);
    let rounded = (nanos / step + u128::from(nanos % step >= step / 2)) * step;
    from_nanos(rounded).unwrap_or(Duration::MAX)
}

/// Milliseconds with three decimals (microsecond precision, rounded half up),
/// as CSV wants them: `1234.567`.
pub fn millis_3(d: Duration) -> String {
    let micros = (d.as_nanos() + 500) / 1_000;
    format!("{}.{:03}", micros / 1_000, micros % 1_000)
}

#[cfg(test)]
mod tests {
    //! The parser and formatter are the library's, tested there; these are
    //! the CLI's own helpers.

    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn rounds_to_significant_digits() {
        assert_eq!(format_significant(Duration::from_nanos(1_234_567_891), 6), "1.23457s");
        assert_eq!(format_significant(Duration::from_micros(2_530_500), 6), "2.5305s");
        assert_eq!(format_significant(Duration::from_nanos(999_999_600), 6), "1s");
        assert_eq!(format_significant(Duration::from_nanos(42), 6), "42ns");
        assert_eq!(round_significant(Duration::MAX, 6), Duration::from_secs(18_446_700_000_000_000_000));
        // Rounding up past the largest Duration saturates.
        assert_eq!(round_significant(Duration::MAX, 5), Duration::MAX);
    }

    #[test]
    fn millis_have_three_decimals() {
        assert_eq!(millis_3(Duration::from_nanos(1_234_567_499)), "1234.567");
        assert_eq!(millis_3(Duration::from_nanos(1_234_567_500)), "1234.568");
        assert_eq!(millis_3(Duration::ZERO), "0.000");
        assert_eq!(millis_3(ms(5)), "5.000");
    }

    #[test]
    fn from_nanos_saturates_to_none() {
        assert_eq!(from_nanos(1_500_000_000), Some(ms(1500)));
        assert_eq!(from_nanos(u128::MAX), None);
    }
}
