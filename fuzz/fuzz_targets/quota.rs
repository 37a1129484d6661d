//! The announced-quota parsers: the IETF `RateLimit` and `RateLimit-Policy`
//! fields and `X-RateLimit-Limit`, `-Remaining` and `-Reset`. The input's
//! lines are, in order, `RateLimit`, `RateLimit-Policy`,
//! `X-RateLimit-Remaining`, `X-RateLimit-Reset` and `X-RateLimit-Limit`.
//!
//! A quota read from `RateLimit` written back as one policy (behind 24
//! other parameters) reads the same, and a field that reads, listed twice,
//! reads as once; a looser policy added before or after it changes
//! nothing, and a spent one with the farthest reset is the quota; a
//! timestamp reset never reads as longer than the seconds it names; and
//! whatever the headers say, a limiter told the quota never names a wait
//! longer than its bound or than the time to the reset.
//!
//! `fuzz/quota.dict` gives libFuzzer the fields' pieces (names, `;r=`,
//! `;t=`, 15-digit numbers, separators), so that mutations reach fields of
//! many policies and parameters.

#![no_main]

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use http::header::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use staggered::classify::quota::{ratelimit, ratelimit_with_policy, x_ratelimit};
use staggered::limiter::{AdaptiveLimiter, MAX_QUOTA_RESET, MAX_QUOTA_WAIT};
use staggered::Quota;

/// The clocks timestamps are read against: the epoch, 2025 and 2100.
const NOWS: [u64; 3] = [0, 1_735_689_600, 4_102_444_800];

/// The largest integer RFC 8941 allows: fifteen digits.
const MAX_INTEGER: u64 = 999_999_999_999_999;

/// The header of each line of the input.
const NAMES: [&str; 5] =
    ["ratelimit", "ratelimit-policy", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-limit"];

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').take(NAMES.len()).collect();
    let text = |i: usize| lines.get(i).and_then(|line| std::str::from_utf8(line).ok());
    if let Some(field) = text(0) {
        check_ratelimit(field, text(1));
    }
    if let (Some(remaining), Some(reset)) = (text(2), text(3)) {
        for now in NOWS {
            check_x_ratelimit(text(4), remaining, reset, Duration::from_secs(now));
        }
    }
    let mut headers = HeaderMap::new();
    for (name, line) in NAMES.iter().zip(&lines) {
        if let Ok(value) = HeaderValue::from_bytes(line) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    for now in NOWS {
        if let Some(quota) = staggered::http::quota(&headers, UNIX_EPOCH + Duration::from_secs(now)) {
            check_pacing(quota);
        }
    }
});

fn check_ratelimit(field: &str, policy: Option<&str>) {
    let quota = ratelimit(field);
    let with_policy = ratelimit_with_policy(field, policy);
    // The policy field only ever adds the limit.
    assert_eq!(quota, with_policy.map(|q| Quota::new(q.remaining, q.reset)), "{field:?} {policy:?}");
    if let Some(quota) = quota {
        // A valid list listed twice has the same members: the same tightest.
        // (Not so for text that is no list: `"a` twice is a string.)
        assert_eq!(ratelimit(&format!("{field}, {field}")), Some(quota), "{field:?} twice");
        assert_eq!(quota.limit, None);
        assert_eq!(quota.reset.subsec_nanos(), 0, "t is whole seconds");
        // Written back behind every other one-letter parameter: a member
        // may have any number.
        let others: String = (b'a'..=b'z')
            .filter(|key| !b"rt".contains(key))
            .map(|key| format!(";{}=1", char::from(key)))
            .collect();
        let written = format!("\"p\"{others};r={};t={}", quota.remaining, quota.reset.as_secs());
        assert_eq!(ratelimit(&written), Some(quota), "{field:?} as {written:?}");
        // The same count a second nearer its reset is looser (more a
        // second, or with none left a shorter hold), wherever it goes.
        if let Some(t) = quota.reset.as_secs().checked_sub(1) {
            let looser = format!("\"z\";r={};t={t}", quota.remaining);
            for field in [format!("{looser}, {field}"), format!("{field}, {looser}")] {
                assert_eq!(ratelimit(&field), Some(quota), "{field:?}");
            }
        }
        // None left until the farthest reset a field can say is the tightest.
        let spent = format!("{field}, \"z\";r=0;t={MAX_INTEGER}");
        assert_eq!(ratelimit(&spent), Some(Quota::new(0, Duration::from_secs(MAX_INTEGER))), "{spent:?}");
    }
}

fn check_x_ratelimit(limit: Option<&str>, remaining: &str, reset: &str, now: Duration) {
    let Some(quota) = x_ratelimit(limit, remaining, reset, now) else { return };
    let whole: u64 = reset.trim().split('.').next().and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
    assert!(quota.reset.as_secs() <= whole, "{reset:?} at {now:?}: {quota:?}");
    assert_eq!(Some(quota.remaining), remaining.trim().parse::<u64>().ok().or(Some(u64::MAX)));
}

/// The quota through a limiter on virtual time: every wait it names is
/// above zero, at most its bound, and never past the reset.
fn check_pacing(quota: Quota) {
    let now = Rc::new(Cell::new(Duration::ZERO));
    let clock = {
        let now = Rc::clone(&now);
        move || now.get()
    };
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock).expect("the defaults are valid");
    limiter.announce(quota);
    for _ in 0..8 {
        match limiter.try_acquire() {
            Ok(()) => {}
            Err(wait) => {
                assert!(!wait.is_zero() && wait <= MAX_QUOTA_WAIT, "{quota:?}: {wait:?}");
                assert!(quota.reset <= MAX_QUOTA_RESET, "{quota:?}: a reset past a day paces nothing");
                let left = quota.reset.saturating_sub(now.get());
                assert!(wait <= left + Duration::from_micros(1), "{quota:?}: {wait:?} past the reset");
                now.set(now.get() + wait);
            }
        }
    }
}
