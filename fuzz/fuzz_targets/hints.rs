//! The server hint parsers: `Retry-After` (delta-seconds and HTTP-dates),
//! `x-amz-retry-after` and `grpc-retry-pushback-ms`, one value per line of
//! the input, each header given as many times as there are lines.
//!
//! Each value parses as an independent reading says (the standard
//! library's integer parser, `httpdate` for dates), a header given twice
//! reads as the hint module documents, and every hint's wait through the
//! retry decision stays within the policy's bound.

#![no_main]

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::header::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use staggered::hint::{amz_retry_after, grpc_retry_pushback, retry_after, retry_after_seconds};
use staggered::Hint;
use staggered_fuzz::hint::check_through_decisions;

/// The clocks HTTP-dates are read against: the epoch, RFC 9110's example
/// date (Sun, 06 Nov 1994 08:49:37 GMT) and 2100.
const NOWS: [u64; 3] = [0, 784_111_777, 4_102_444_800];

/// The most values read: a header given more than once reads the same
/// way at 3 values as at 300, and fewer keep each input fast.
const MAX_VALUES: usize = 8;

fuzz_target!(|data: &[u8]| {
    let values: Vec<&[u8]> = data.split(|&b| b == b'\n').take(MAX_VALUES).collect();
    let mut hints = HashSet::new();
    for value in &values {
        if let Ok(text) = std::str::from_utf8(value) {
            check_value(text, &mut hints);
        }
    }
    for now in NOWS {
        check_headers(&values, UNIX_EPOCH + Duration::from_secs(now), &mut hints);
    }
    // Each hint seen, once: a header's values repeat the lines'.
    for hint in hints {
        check_through_decisions(hint);
    }
});

/// One value, read by each parser.
fn check_value(text: &str, hints: &mut HashSet<Hint>) {
    let number = integer(text);
    assert_eq!(retry_after_seconds(text), number.map(|n| Hint::After(Duration::from_secs(n))), "{text:?}");
    assert_eq!(amz_retry_after(text), number.map(|n| Hint::After(Duration::from_millis(n))), "{text:?}");
    let pushback = number.map_or(Hint::Never, |n| Hint::After(Duration::from_millis(n)));
    assert_eq!(grpc_retry_pushback(text), pushback, "{text:?}");
    hints.insert(pushback);
    if let Some(n) = number {
        hints.insert(Hint::After(Duration::from_secs(n)));
    }
    for now in NOWS {
        let now = UNIX_EPOCH + Duration::from_secs(now);
        let hint = retry_after(text, now);
        match (number, httpdate::parse_http_date(text.trim())) {
            (Some(n), _) => assert_eq!(hint, Some(Hint::After(Duration::from_secs(n))), "{text:?}"),
            (None, Ok(date)) => {
                let Some(Hint::After(wait)) = hint else { panic!("the date {text:?} gave {hint:?}") };
                assert_eq!(wait, date.duration_since(now).unwrap_or_default(), "{text:?}");
                // A date is whole seconds: written back as an IMF-fixdate it reads the same.
                let written = httpdate::fmt_http_date(now + wait);
                assert_eq!(retry_after(&written, now), hint, "{text:?} as {written:?}");
                hints.insert(Hint::After(wait));
            }
            (None, Err(_)) => assert_eq!(hint, None, "{text:?}"),
        }
    }
}

/// The value as the standard library reads a non-negative integer, with
/// surrounding whitespace allowed, no sign, and saturating at `u64::MAX`.
fn integer(text: &str) -> Option<u64> {
    let digits = text.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u64>().unwrap_or(u64::MAX))
}

/// The values as one response's headers: each header alone, then all three
/// (gRPC's wins, then AWS's, then `Retry-After`).
fn check_headers(values: &[&[u8]], now: SystemTime, hints: &mut HashSet<Hint>) {
    let valid: Vec<HeaderValue> = values.iter().filter_map(|v| HeaderValue::from_bytes(v).ok()).collect();
    let texts: Vec<Option<&str>> = valid.iter().map(|value| value.to_str().ok()).collect();
    let map = |names: &[&'static str]| {
        let mut map = HeaderMap::new();
        for name in names {
            for value in &valid {
                map.append(HeaderName::from_static(name), value.clone());
            }
        }
        map
    };
    let longest = |hints: Vec<Option<Hint>>| hints.into_iter().flatten().max_by_key(order);

    let grpc = staggered::http::hint(&map(&["grpc-retry-pushback-ms"]), now);
    let expected = match texts.as_slice() {
        [] => None,
        [one] => Some(one.map_or(Hint::Never, grpc_retry_pushback)),
        _ => Some(Hint::Never),
    };
    assert_eq!(grpc, expected, "{texts:?}");

    let amz = staggered::http::hint(&map(&["x-amz-retry-after"]), now);
    assert_eq!(amz, longest(texts.iter().map(|t| t.and_then(amz_retry_after)).collect()), "{texts:?}");

    let http = staggered::http::hint(&map(&["retry-after"]), now);
    let each = texts.iter().map(|t| t.and_then(|t| retry_after(t, now))).collect();
    assert_eq!(http, longest(each), "{texts:?}");

    let all =
        staggered::http::hint(&map(&["retry-after", "x-amz-retry-after", "grpc-retry-pushback-ms"]), now);
    assert_eq!(all, grpc.or(amz).or(http), "{texts:?}");
    hints.extend([grpc, amz, http].into_iter().flatten());
}

/// "Never" outlasts any wait.
fn order(hint: &Hint) -> (bool, Duration) {
    match *hint {
        Hint::After(wait) => (false, wait),
        Hint::Never => (true, Duration::ZERO),
    }
}
