//! How reports write numbers and durations for people: `1e308` rather than
//! its 309 digits, `95%`, `1.068s`, and milliseconds for CSV.

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

/// How many significant digits a duration has in a table, a note or a log
/// line for people: every one a command computes (a delay, a percentile, a
/// total, a wait, a recovery) is rounded to them, exact or estimated alike,
/// so that no figure claims a precision its neighbours lack. Four keep a
/// whole-millisecond interval below 10 s exact (`1.687s`). The records
/// (CSV, JSON) keep every digit; a parameter is written as it was given.
pub const DURATION_DIGITS: u32 = 4;

/// A duration a command computed, as its tables, notes and logs write it:
/// rounded half up to [`DURATION_DIGITS`] significant digits, in the
/// largest unit that keeps it at least 1, trailing zeros dropped
/// (`52.07ms`, `1.068s`, `1m24.95s`; `1.1s` is 1.100 s).
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::view::format_rounded;
/// assert_eq!(format_rounded(Duration::from_nanos(1_067_730_000)), "1.068s");
/// assert_eq!(format_rounded(Duration::from_millis(1_100)), "1.1s");
/// assert_eq!(format_rounded(Duration::from_micros(84_951_000)), "1m24.95s");
/// ```
pub fn format_rounded(d: Duration) -> String {
    format_significant(d, DURATION_DIGITS)
}

/// Writes `d` like [`format_duration`], rounded (half up) to `significant`
/// digits so that a table stays readable: `1.23457s` rather than
/// `1.234567891s`; rounded down where up would pass `Duration::MAX`.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(staggered_sim::view::format_significant(Duration::from_nanos(1_234_567_891), 6), "1.23457s");
/// ```
pub fn format_significant(d: Duration, significant: u32) -> String {
    format_duration(round_significant(d, significant))
}

/// `d` rounded half up to `significant` decimal digits of nanoseconds,
/// or down where up would pass `Duration::MAX`, so that it keeps as
/// few digits.
fn round_significant(d: Duration, significant: u32) -> Duration {
    let nanos = d.as_nanos();
    let digits = nanos.checked_ilog10().map_or(1, |log| log + 1);
    if digits <= significant {
        return d;
    }
    let step = 10u128.pow(digits - significant);
    let rounded = (nanos / step + u128::from(nanos % step >= step / 2)) * step;
    from_nanos(rounded).unwrap_or_else(|| from_nanos(nanos / step * step).unwrap_or(Duration::MAX))
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
        // Rounding up past the largest Duration rounds down instead.
        assert_eq!(round_significant(Duration::MAX, 5), Duration::from_secs(18_446_000_000_000_000_000));
        assert_eq!(from_nanos(u128::MAX), None);
    }

    #[test]
    fn computed_durations_have_four_significant_digits_in_every_unit() {
        let cases = [
            (Duration::ZERO, "0s"),
            (Duration::from_nanos(1_234), "1.234µs"),
            (Duration::from_micros(52_069), "52.07ms"),
            (Duration::from_micros(843_500), "843.5ms"),
            (Duration::from_nanos(1_687_500_000), "1.688s"),
            (Duration::from_nanos(19_210_500_000), "19.21s"),
            (Duration::from_millis(43_222), "43.22s"),
            (Duration::from_millis(999_960), "16m40s"),
            (Duration::from_secs(12_345), "3h25m50s"),
            (Duration::MAX, "5122222222222222h13m20s"),
        ];
        for (d, text) in cases {
            assert_eq!(format_rounded(d), text, "{d:?}");
        }
    }

    #[test]
    fn millis_have_three_decimals() {
        assert_eq!(millis(Duration::from_nanos(1_234_567_499)), "1234.567");
        assert_eq!(millis(Duration::from_nanos(1_234_567_500)), "1234.568");
        assert_eq!(millis(Duration::ZERO), "0.000");
    }
}
