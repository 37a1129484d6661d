//! Human durations in configuration files: `250ms`, `1.5s`, `2m`, `1h30m`, `0`.
//!
//! The same notation as the `stagger` command line (this is the logic of its
//! parser, so the two can share it). Digits are read exactly, with no float
//! rounding: `0.1s` is exactly 100 ms. [`format_duration`] writes the same
//! notation back, so `parse_duration(&format_duration(d)) == Ok(d)` for every
//! `Duration`.

use core::fmt;
use core::time::Duration;

const NANOS_PER_SEC: u128 = 1_000_000_000;
const NANOS_PER_MINUTE: u128 = 60 * NANOS_PER_SEC;
const NANOS_PER_HOUR: u128 = 60 * NANOS_PER_MINUTE;

/// The units the parser accepts, with their length in nanoseconds.
const UNITS: [(&str, u128); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", NANOS_PER_SEC),
    ("m", NANOS_PER_MINUTE),
    ("min", NANOS_PER_MINUTE),
    ("h", NANOS_PER_HOUR),
];

/// Fraction digits past this many are below a nanosecond for every unit, and
/// ignored; the bound keeps the arithmetic inside `u128`.
const MAX_FRACTION_DIGITS: usize = 18;

/// Why a duration did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DurationError {
    /// Nothing was given.
    Empty,
    /// A leading minus: a wait cannot be negative.
    Negative,
    /// A number with no unit, such as `250` (only a bare `0` may omit it).
    MissingUnit(String),
    /// A unit we do not know, such as `1x`.
    UnknownUnit(String),
    /// Not a number followed by a unit, such as `ms` or `1..5s`.
    Malformed,
    /// More than `Duration::MAX` (about 584 billion years).
    Overflow,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "expected a number and a unit (ns, us, ms, s, m, h), such as 250ms or 1.5s";
        match self {
            DurationError::Empty => write!(f, "empty duration: {EXPECTED}"),
            DurationError::Negative => f.write_str("a duration cannot be negative"),
            DurationError::MissingUnit(number) => write!(f, "missing unit after {number}: {EXPECTED}"),
            DurationError::UnknownUnit(unit) => write!(f, "unknown unit '{unit}': {EXPECTED}"),
            DurationError::Malformed => write!(f, "not a duration: {EXPECTED}"),
            DurationError::Overflow => {
                f.write_str("duration too large (the limit is about 584 billion years)")
            }
        }
    }
}

impl std::error::Error for DurationError {}

/// Parses one or more `<number><unit>` parts (`1.5s`, `1m30s`) or a bare `0`.
///
/// Numbers are decimal (`1.5`), units are `ns`, `us` (or `µs`), `ms`, `s`,
/// `m` (or `min`) and `h`. Digits below a nanosecond are dropped.
///
/// ```
/// use std::time::Duration;
/// use staggered::config::parse_duration;
///
/// assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
/// assert!(parse_duration("250").is_err(), "a unit is required");
/// ```
///
/// # Errors
/// A [`DurationError`] for an empty, negative, unit-less, unknown-unit,
/// malformed or too large duration. It never panics.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    if text.is_empty() {
        return Err(DurationError::Empty);
    }
    if text.starts_with('-') {
        return Err(DurationError::Negative);
    }
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = text;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let (number, after) = rest.split_at(number_len);
        let unit_len = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        if unit.is_empty() {
            return Err(DurationError::MissingUnit(prefix(number)));
        }
        let unit_ns = UNITS
            .iter()
            .find(|(name, _)| *name == unit)
            .map(|&(_, ns)| ns)
            .ok_or_else(|| DurationError::UnknownUnit(prefix(unit)))?;
        let part = scale(number, unit_ns)?;
        total = total.checked_add(part).ok_or(DurationError::Overflow)?;
        rest = after;
    }
    from_nanos(total).ok_or(DurationError::Overflow)
}

/// The most characters of the text an error keeps.
const QUOTED_CHARS: usize = 40;

/// `text`, or its first [`QUOTED_CHARS`] characters and `…`: an error
/// quotes a short prefix of a bad value, however long the value.
fn prefix(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `number` (decimal digits, at most one dot) times `unit_ns`, in whole nanoseconds.
fn scale(number: &str, unit_ns: u128) -> Result<u128, DurationError> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || fraction.contains('.') || (number.contains('.') && fraction.is_empty()) {
        return Err(DurationError::Malformed);
    }
    let whole_ns = digits(whole)?.checked_mul(unit_ns).ok_or(DurationError::Overflow)?;
    // Digits are ASCII, so this slice is on a char boundary.
    let fraction = &fraction[..fraction.len().min(MAX_FRACTION_DIGITS)];
    let denominator = 10u128.pow(fraction.len() as u32);
    let fraction_ns = digits(fraction)? * unit_ns / denominator;
    whole_ns.checked_add(fraction_ns).ok_or(DurationError::Overflow)
}

/// The value of a run of ASCII digits (empty is 0).
fn digits(text: &str) -> Result<u128, DurationError> {
    text.bytes().try_fold(0u128, |acc, b| {
        acc.checked_mul(10)
            .and_then(|acc| acc.checked_add(u128::from(b - b'0')))
            .ok_or(DurationError::Overflow)
    })
}

/// Whole nanoseconds to `Duration`, or `None` past `Duration::MAX`.
fn from_nanos(nanos: u128) -> Option<Duration> {
    let secs = u64::try_from(nanos / NANOS_PER_SEC).ok()?;
    Some(Duration::new(secs, (nanos % NANOS_PER_SEC) as u32))
}

/// Writes `d` exactly, in the largest unit that keeps it at least 1: `0s`,
/// `750ns`, `2.5µs`, `843.5ms`, `1.6875s`, and `1m30.5s`, `2h` from one
/// minute on. Trailing zeros are dropped.
pub fn format_duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    match nanos {
        0 => "0s".to_owned(),
        1..1_000 => format!("{nanos}ns"),
        1_000..1_000_000 => format!("{}µs", decimal(nanos, 1_000)),
        1_000_000..NANOS_PER_SEC => format!("{}ms", decimal(nanos, 1_000_000)),
        NANOS_PER_SEC..NANOS_PER_MINUTE => format!("{}s", decimal(nanos, NANOS_PER_SEC)),
        _ => {
            let hours = nanos / NANOS_PER_HOUR;
            let minutes = nanos % NANOS_PER_HOUR / NANOS_PER_MINUTE;
            let seconds = nanos % NANOS_PER_MINUTE;
            let mut text = String::new();
            if hours > 0 {
                text += &format!("{hours}h");
            }
            if minutes > 0 {
                text += &format!("{minutes}m");
            }
            if seconds > 0 {
                text += &format!("{}s", decimal(seconds, NANOS_PER_SEC));
            }
            text
        }
    }
}

/// `nanos / unit` as a decimal with the trailing zeros dropped; `unit` is a
/// power of ten.
fn decimal(nanos: u128, unit: u128) -> String {
    let whole = nanos / unit;
    let fraction = nanos % unit;
    if fraction == 0 {
        return whole.to_string();
    }
    let width = unit.ilog10() as usize;
    let fraction = format!("{fraction:0width$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_every_unit_and_decimals_exactly() {
        let cases = [
            ("0", Duration::ZERO),
            ("0s", Duration::ZERO),
            ("250ms", ms(250)),
            ("1.5s", ms(1500)),
            ("0.1s", ms(100)),
            ("2m", Duration::from_secs(120)),
            ("1.5min", Duration::from_secs(90)),
            ("1h", Duration::from_secs(3600)),
            ("10us", Duration::from_micros(10)),
            ("2.5µs", Duration::from_nanos(2500)),
            ("7ns", Duration::from_nanos(7)),
            ("1m30.5s", ms(90_500)),
            ("1.0000000009s", Duration::new(1, 0)),
            ("007ms", ms(7)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn rejects_garbage_and_overflow_without_panicking() {
        let cases = [
            ("", DurationError::Empty),
            ("-1s", DurationError::Negative),
            ("250", DurationError::MissingUnit("250".into())),
            ("1x", DurationError::UnknownUnit("x".into())),
            ("1 s", DurationError::UnknownUnit(" s".into())),
            ("ms", DurationError::Malformed),
            ("1..5s", DurationError::Malformed),
            ("1.s", DurationError::Malformed),
            (".5s", DurationError::Malformed),
            ("1.2.3s", DurationError::Malformed),
            ("99999999999999999999999999999999999999999s", DurationError::Overflow),
            ("18446744073709551616s", DurationError::Overflow),
            ("5124095576030432h", DurationError::Overflow),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Err(expected), "{text}");
        }
        assert_eq!(parse_duration("18446744073709551615.999999999s"), Ok(Duration::MAX));
        assert!(parse_duration("1s-").is_err());
        assert!(parse_duration("NaNs").is_err());
    }

    #[test]
    fn errors_quote_a_short_prefix_of_the_text() {
        let long = format!("1{}", "x".repeat(1 << 20));
        let DurationError::UnknownUnit(unit) = parse_duration(&long).unwrap_err() else {
            panic!("not a unit error")
        };
        assert_eq!(unit.chars().count(), QUOTED_CHARS + 1, "{unit}");
        assert!(parse_duration(&"7".repeat(1 << 20)).unwrap_err().to_string().len() < 200);
    }

    #[test]
    fn errors_explain_the_expected_form() {
        let message = parse_duration("1x").unwrap_err().to_string();
        assert!(message.contains("unknown unit 'x'") && message.contains("1.5s"), "{message}");
    }

    #[test]
    fn formats_readably() {
        for (d, text) in [
            (Duration::ZERO, "0s"),
            (Duration::from_nanos(750), "750ns"),
            (Duration::from_nanos(2500), "2.5µs"),
            (ms(250), "250ms"),
            (Duration::from_micros(843_500), "843.5ms"),
            (ms(1125), "1.125s"),
            (Duration::from_micros(2_530_500), "2.5305s"),
            (Duration::from_secs(60), "1m"),
            (ms(90_500), "1m30.5s"),
            (Duration::from_secs(15 * 60), "15m"),
            (Duration::from_secs(7200), "2h"),
            (Duration::from_secs(3601), "1h1s"),
        ] {
            assert_eq!(format_duration(d), text, "{d:?}");
        }
    }

    proptest! {
        #[test]
        fn format_round_trips(secs in any::<u64>(), nanos in 0u32..1_000_000_000) {
            let d = Duration::new(secs, nanos);
            prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
        }

        #[test]
        fn parse_never_panics(text in "\\PC{0,24}") {
            let _ = parse_duration(&text);
        }

        #[test]
        fn parse_never_panics_on_near_misses(text in "[0-9.\\-µa-z]{0,24}") {
            let _ = parse_duration(&text);
        }
    }
}
