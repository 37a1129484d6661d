//! How reports write numbers and durations for people: `1e308` rather than
//! its 309 digits, `95%`, `1.23457s`, and milliseconds for CSV.

use std::time::Duration;

pub use staggered::config::format_duration;

/// A number as a person writes it: `5`, `2.5`, and `1e300` rather than
/// its 301 digits.
///
/// ```
/// assert_eq!(staggered_sim::view::number(1e308), "1e308");
/// assert_eq!(staggered_sim::view::number(0.25), "0.25");
/// ```
pub fn number(value: f64) -> String {
    if value.abs() >= 1e15 {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

/// A fraction as a percentage, as a person writes it: `1%`, `0.25%`, `95%`
/// (the float noise of `100 * f` rounded away).
///
/// ```
/// assert_eq!(staggered_sim::view::percent(0.07), "7%");
/// ```
pub fn percent(fraction: f64) -> String {
    format!("{}%", number((100.0 * fraction * 1e9).round() / 1e9))
}

/// Names as a sentence lists them: `a`, `a and b`, `a, b and c`.
///
/// ```
/// assert_eq!(staggered_sim::view::list(["full", "equal", "none"]), "full, equal and none");
/// ```
pub fn list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Writes `d` like [`format_duration`], rounded (half up) to `significant`
/// digits so that a table stays readable: `1.23457s` rather than
/// `1.234567891s`; saturating at `Duration::MAX`.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(staggered_sim::view::format_significant(Duration::from_nanos(1_234_567_891), 6), "1.23457s");
/// ```
pub fn format_significant(d: Duration, significant: u32) -> String {
    format_duration(round_significant(d, significant))
}

/// `d` rounded half up to `significant` decimal digits of nanoseconds,
/// saturating at `Duration::MAX`.
fn round_significant(d: Duration, significant: u32) -> Duration {
    let nanos = d.as_nanos();
    let digits = nanos.checked_ilog10().map_or(1, |log| log + 1);
    if digits <= significant {
        return d;
    }
    let step = 10u128.pow(digits - significant);
    let rounded = (nanos / step + u128::from(nanos % step >= step / 2)) * step;
    from_nanos(rounded).unwrap_or(Duration::MAX)
}

/// Whole nanoseconds to `Duration`, or `None` past `Duration::MAX`.
pub(crate) fn from_nanos(nanos: u128) -> Option<Duration> {
    const NANOS_PER_SEC: u128 = 1_000_000_000;
    let secs = u64::try_from(nanos / NANOS_PER_SEC).ok()?;
    Some(Duration::new(secs, (nanos % NANOS_PER_SEC) as u32))
}

/// Milliseconds with three decimals (microsecond precision, rounded half
/// up), as CSV wants them: `1234.567`.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(staggered_sim::view::millis(Duration::from_nanos(1_234_567_500)), "1234.568");
/// ```
pub fn millis(d: Duration) -> String {
    let micros = (d.as_nanos() + 500) / 1_000;
    format!("{}.{:03}", micros / 1_000, micros % 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_percentages_read_as_typed() {
        assert_eq!(number(5.0), "5");
        assert_eq!(number(1e15), "1e15");
        assert_eq!(number(-2.5e300), "-2.5e300");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.01), "1%");
        assert_eq!(percent(0.0025), "0.25%");
        assert_eq!(percent(0.00001), "0.001%");
        assert_eq!(percent(0.95), "95%");
        assert_eq!(list(["a"]), "a");
        assert_eq!(list(["a", "b"]), "a and b");
        assert_eq!(list([]), "");
    }

    #[test]
    fn durations_round_to_significant_digits() {
        assert_eq!(format_significant(Duration::from_nanos(1_234_567_891), 6), "1.23457s");
        assert_eq!(format_significant(Duration::from_micros(2_530_500), 6), "2.5305s");
        assert_eq!(format_significant(Duration::from_nanos(999_999_600), 6), "1s");
        assert_eq!(format_significant(Duration::from_nanos(42), 6), "42ns");
        assert_eq!(round_significant(Duration::MAX, 6), Duration::from_secs(18_446_700_000_000_000_000));
        // Rounding up past the largest Duration saturates.
        assert_eq!(round_significant(Duration::MAX, 5), Duration::MAX);
        assert_eq!(from_nanos(u128::MAX), None);
    }

    #[test]
    fn millis_have_three_decimals() {
        assert_eq!(millis(Duration::from_nanos(1_234_567_499)), "1234.567");
        assert_eq!(millis(Duration::from_nanos(1_234_567_500)), "1234.568");
        assert_eq!(millis(Duration::ZERO), "0.000");
    }
}
