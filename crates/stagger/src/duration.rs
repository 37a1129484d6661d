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
    //! The library's parser held to every input the CLI has accepted or
    //! refused: these cases are a superset of the library's own.

    use super::*;
    use proptest::prelude::*;
    use staggered::config::DurationError;

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
            assert_eq!(parse(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn rejects_garbage_without_panicking() {
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
            assert_eq!(parse(text), Err(expected), "{text}");
        }
        assert_eq!(parse("18446744073709551615.999999999s"), Ok(Duration::MAX));
        assert!(parse("1s-").is_err());
        assert!(parse("NaNs").is_err());
    }

    #[test]
    fn errors_explain_the_expected_form() {
        let message = parse("1x").unwrap_err().to_string();
        assert!(message.contains("unknown unit 'x'") && message.contains("1.5s"), "{message}");
    }

    #[test]
    fn formats_readably() {
        let cases = [
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
        ];
        for (d, text) in cases {
            assert_eq!(format(d), text, "{d:?}");
        }
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

    proptest! {
        #[test]
        fn format_round_trips(secs in any::<u64>(), nanos in 0u32..1_000_000_000) {
            let d = Duration::new(secs, nanos);
            prop_assert_eq!(parse(&format(d)), Ok(d));
        }

        #[test]
        fn parse_never_panics(text in "\\PC{0,24}") {
            let _ = parse(&text);
        }

        #[test]
        fn parse_never_panics_on_near_misses(text in "[0-9.\\-µa-z]{0,24}") {
            let _ = parse(&text);
        }
    }
}
