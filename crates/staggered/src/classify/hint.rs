//! Server hints: parse `Retry-After`, `x-amz-retry-after` and
//! `grpc-retry-pushback-ms` into a [`Hint`], never panicking on hostile text.
//!
//! Parsing only reads the value; what a hint may do is the retry decision's
//! business (its [`HintPolicy`](crate::HintPolicy)): by default it waits at
//! least the hint, counts against `max_attempts` and the deadline, and stops
//! with [`StopReason::HintTooLong`](crate::StopReason) rather than shorten a
//! hint past the allowed maximum.
//!
//! # A header given more than once
//! - `grpc-retry-pushback-ms` twice means "do not retry" ([`Hint::Never`]),
//!   as gRPC's retry design (A6) says and grpc-go does, whatever the values:
//!   a server that cannot say one thing is not to be second-guessed. Like any
//!   retryable failure, it still counts against gRPC's retry throttle.
//! - `Retry-After` and `x-amz-retry-after` twice (a proxy that repeats or
//!   adds the header): the longest valid value wins, unreadable ones are
//!   skipped. Each value is something the server side asked for, and waiting
//!   the longest honours all of them; `max_hint` and the deadline still bound
//!   it. Neither HTTP nor the AWS SDKs say more: RFC 9110 only forbids
//!   sending the field twice, and botocore and smithy-rs read whichever value
//!   their header map hands them.

use core::time::Duration;

use crate::classify::Hint;

/// Parses a non-negative decimal integer, saturating at `u64::MAX`; `None` for
/// anything else (empty, sign, fraction, letters). Surrounding spaces are allowed.
fn parse_unsigned(value: &str) -> Option<u64> {
    let digits = value.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().fold(0u64, |n, b| n.saturating_mul(10).saturating_add(u64::from(b - b'0'))))
}

/// `Retry-After` in its delta-seconds form (`"120"`). `None` for anything that
/// is not a non-negative integer; a huge value saturates (the decision then
/// stops with `HintTooLong`).
pub fn retry_after_seconds(value: &str) -> Option<Hint> {
    parse_unsigned(value).map(|secs| Hint::After(Duration::from_secs(secs)))
}

/// `Retry-After` in either form: delta-seconds, or an HTTP-date (IMF-fixdate,
/// RFC 850 or asctime) read against `now`. A date in the past means "now"
/// (a zero hint). `None` for garbage.
#[cfg(feature = "std")]
pub fn retry_after(value: &str, now: std::time::SystemTime) -> Option<Hint> {
    if let Some(hint) = retry_after_seconds(value) {
        return Some(hint);
    }
    let when = httpdate::parse_http_date(value.trim()).ok()?;
    Some(Hint::After(when.duration_since(now).unwrap_or(Duration::ZERO)))
}

/// `x-amz-retry-after`: milliseconds as a non-negative integer. `None` otherwise.
pub fn amz_retry_after(value: &str) -> Option<Hint> {
    parse_unsigned(value).map(|ms| Hint::After(Duration::from_millis(ms)))
}

/// `grpc-retry-pushback-ms`: milliseconds. As gRPC specifies, a negative or
/// unparsable value means "do not retry" ([`Hint::Never`]).
pub fn grpc_retry_pushback(value: &str) -> Hint {
    match parse_unsigned(value) {
        Some(ms) => Hint::After(Duration::from_millis(ms)),
        None => Hint::Never,
    }
}

/// Every value of a `grpc-retry-pushback-ms` header or trailer, `None` for
/// a value that is not text: no value gives no hint, one value is read by
/// [`grpc_retry_pushback`] (text or not: unreadable is "do not retry"), and
/// more than one is [`Hint::Never`], as gRPC's retry design says.
pub fn grpc_retry_pushback_all<'a>(values: impl IntoIterator<Item = Option<&'a str>>) -> Option<Hint> {
    let mut values = values.into_iter();
    let first = values.next()?;
    if values.next().is_some() {
        return Some(Hint::Never);
    }
    Some(first.map_or(Hint::Never, grpc_retry_pushback))
}

/// Every value of an `x-amz-retry-after` header, `None` for a value that is
/// not text: the longest valid one, or `None` if none is valid (see the
/// [module docs](self) for why the longest).
pub fn amz_retry_after_all<'a>(values: impl IntoIterator<Item = Option<&'a str>>) -> Option<Hint> {
    longest(values.into_iter().map(|value| value.and_then(amz_retry_after)))
}

/// Every value of a `Retry-After` header, `None` for a value that is not
/// text, read against `now`: the longest valid one, or `None` if none is
/// valid (see the [module docs](self) for why the longest).
#[cfg(feature = "std")]
pub fn retry_after_all<'a>(
    values: impl IntoIterator<Item = Option<&'a str>>,
    now: std::time::SystemTime,
) -> Option<Hint> {
    longest(values.into_iter().map(|value| value.and_then(|value| retry_after(value, now))))
}

/// The longest of some hints (`Never` outlasts any wait); `None` if there are none.
fn longest(hints: impl Iterator<Item = Option<Hint>>) -> Option<Hint> {
    hints.flatten().max_by_key(|hint| match *hint {
        Hint::After(wait) => (false, wait),
        Hint::Never => (true, Duration::ZERO),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_seconds_and_garbage() {
        assert_eq!(retry_after_seconds("120"), Some(Hint::After(Duration::from_secs(120))));
        assert_eq!(retry_after_seconds(" 0 "), Some(Hint::After(Duration::ZERO)));
        for bad in ["", "-1", "1.5", "abc", "1e9", "+3", "١٢"] {
            assert_eq!(retry_after_seconds(bad), None, "{bad:?}");
        }
        let huge = "9".repeat(400);
        assert_eq!(retry_after_seconds(&huge), Some(Hint::After(Duration::from_secs(u64::MAX))));
    }

    #[cfg(feature = "std")]
    #[test]
    fn http_dates() {
        use std::time::{SystemTime, UNIX_EPOCH};
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let later = "Sun, 06 Nov 1994 08:50:07 GMT";
        assert_eq!(retry_after(later, now), Some(Hint::After(Duration::from_secs(30))));
        assert_eq!(
            retry_after("Sunday, 06-Nov-94 08:49:47 GMT", now),
            Some(Hint::After(Duration::from_secs(10)))
        );
        assert_eq!(retry_after("Sun Nov  6 08:49:37 1994", now), Some(Hint::After(Duration::ZERO)));
        assert_eq!(retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now), Some(Hint::After(Duration::ZERO)));
        assert_eq!(retry_after("Sun, 06 Nov 1994 25:61:99 GMT", now), None);
        assert_eq!(retry_after("soon", SystemTime::now()), None);
    }

    #[test]
    fn amz_and_grpc() {
        assert_eq!(amz_retry_after("1500"), Some(Hint::After(Duration::from_millis(1500))));
        assert_eq!(amz_retry_after("-1"), None);
        assert_eq!(grpc_retry_pushback("250"), Hint::After(Duration::from_millis(250)));
        assert_eq!(grpc_retry_pushback("-1"), Hint::Never);
        assert_eq!(grpc_retry_pushback("later"), Hint::Never);
    }

    #[test]
    fn a_header_given_twice() {
        let ms = |n| Some(Hint::After(Duration::from_millis(n)));
        // gRPC: one value is read, two mean "do not retry", whatever they say.
        assert_eq!(grpc_retry_pushback_all([]), None);
        assert_eq!(grpc_retry_pushback_all([Some("100")]), ms(100));
        assert_eq!(grpc_retry_pushback_all([None]), Some(Hint::Never));
        assert_eq!(grpc_retry_pushback_all([Some("100"), Some("10")]), Some(Hint::Never));
        assert_eq!(grpc_retry_pushback_all([Some("100"), Some("100")]), Some(Hint::Never));
        // AWS and HTTP: the longest valid value.
        assert_eq!(amz_retry_after_all([Some("1500"), Some("x"), Some("3000"), None]), ms(3000));
        assert_eq!(amz_retry_after_all([Some("x"), None]), None);
        assert_eq!(amz_retry_after_all([]), None);
    }

    #[cfg(feature = "std")]
    #[test]
    fn retry_after_given_twice_waits_the_longest() {
        use std::time::UNIX_EPOCH;
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let secs = |n| Some(Hint::After(Duration::from_secs(n)));
        assert_eq!(retry_after_all([Some("5"), Some("120")], now), secs(120));
        assert_eq!(retry_after_all([Some("120"), Some("5")], now), secs(120));
        assert_eq!(retry_after_all([Some("5"), Some("Sun, 06 Nov 1994 08:50:07 GMT")], now), secs(30));
        assert_eq!(retry_after_all([Some("soon"), Some("7")], now), secs(7));
        assert_eq!(retry_after_all([Some("soon")], now), None);
    }
}
