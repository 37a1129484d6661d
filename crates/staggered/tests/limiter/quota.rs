//! Announced quotas from hostile headers: whatever a server writes in its
//! rate-limit fields, reading them never panics, and no wait the limiter
//! then names is longer than its bound or than the time to the reset. A
//! `RateLimit` field of several policies, with numbers over RFC 8941's
//! whole range and any parameters around them, reads as the tightest
//! policy an exact oracle picks.

use std::cmp::Ordering;
use std::time::{Duration, UNIX_EPOCH};

use http::{HeaderMap, HeaderName, HeaderValue};
use proptest::prelude::*;
use staggered::classify::quota::{ratelimit, ratelimit_with_policy, x_ratelimit};
use staggered::limiter::{AdaptiveLimiter, MAX_QUOTA_RESET, MAX_QUOTA_WAIT};
use staggered::test_util::MockClock;
use staggered::Quota;

/// Text shaped like the fields (digits, quotes, `;r=`, `t=`, commas) more
/// often than not, and sometimes any text at all.
fn field_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ \"a-z0-9;=,.:?*()@%-]{0,40}",
        ("[0-9]{1,20}", "[0-9]{1,20}").prop_map(|(r, t)| format!("\"p\";r={r};t={t}")),
        "[0-9]{0,25}(\\.[0-9]{0,12})?",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_header_value_panics_or_waits_past_the_bound(
        ratelimit in field_text(),
        policy in field_text(),
        remaining in field_text(),
        reset in field_text(),
        seconds_now in 0u64..4_000_000_000,
        steps in proptest::collection::vec(0u64..2_000_000, 1..20),
    ) {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("ratelimit", &ratelimit),
            ("ratelimit-policy", &policy),
            ("x-ratelimit-remaining", &remaining),
            ("x-ratelimit-reset", &reset),
        ] {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        }
        let now = UNIX_EPOCH + Duration::from_secs(seconds_now);
        let Some(quota) = staggered::http::quota(&headers, now) else { return Ok(()) };
        let clock = MockClock::new();
        let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
        limiter.announce(quota);
        let mut since = Duration::ZERO;
        for step in steps {
            if let Err(wait) = limiter.try_acquire() {
                prop_assert!(!wait.is_zero());
                prop_assert!(wait <= MAX_QUOTA_WAIT, "{quota:?}: waits {wait:?}");
                prop_assert!(
                    wait <= quota.reset.saturating_sub(since) + Duration::from_micros(1),
                    "{quota:?}: waits {wait:?} at {since:?}, past the reset"
                );
                prop_assert!(quota.reset <= MAX_QUOTA_RESET, "{quota:?}: a reset past a day paces nothing");
            }
            let step = Duration::from_micros(step);
            clock.advance(step);
            since += step;
        }
    }
}

/// The largest integer RFC 8941 allows: fifteen digits.
const MAX_INTEGER: u64 = 999_999_999_999_999;

/// An integer over RFC 8941's whole range, as often one at its top or a
/// small one (so that rates tie, and counts and resets are zero).
fn integer() -> impl Strategy<Value = u64> {
    prop_oneof![0..=MAX_INTEGER, (MAX_INTEGER - 2)..=MAX_INTEGER, 0u64..6]
}

/// A parameter's value, of each kind RFC 8941 has.
#[derive(Debug, Clone)]
enum Value {
    Integer(u64),
    Negative(u64),
    Decimal,
    Text,
    Token,
    Bytes,
    /// A key with no value: the boolean true.
    True,
}

impl Value {
    fn written(&self) -> String {
        match self {
            Value::Integer(n) => format!("={n}"),
            Value::Negative(n) => format!("=-{n}"),
            Value::Decimal => "=12.5".into(),
            Value::Text => "=\"r=1;t=1\"".into(),
            Value::Token => "=tok/en".into(),
            Value::Bytes => "=:cmF0ZQ==:".into(),
            Value::True => String::new(),
        }
    }
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => integer().prop_map(Value::Integer),
        1 => (1..=MAX_INTEGER).prop_map(Value::Negative),
        1 => Just(Value::Decimal),
        1 => Just(Value::Text),
        1 => Just(Value::Token),
        1 => Just(Value::Bytes),
        1 => Just(Value::True),
    ]
}

/// A parameter: a one-letter key of `letters` or a longer key (which
/// names nothing), and a value.
fn parameter(letters: &'static str) -> impl Strategy<Value = (String, Value)> {
    let one = proptest::sample::select(letters.chars().collect::<Vec<_>>()).prop_map(String::from);
    (prop_oneof![3 => one, 1 => "[a-z*][a-z0-9_.*-]{1,3}"], value())
}

/// A member's parameters: any before its `r` and `t` (`r` and `t` among
/// them, which the member's own override), its `r` and `t` (each now and
/// then left out), and any but `r` and `t` after.
fn member() -> impl Strategy<Value = Vec<(String, Value)>> {
    let before = proptest::collection::vec(parameter("abcdefghijklmnopqrstuvwxyz"), 0..6);
    let after = proptest::collection::vec(parameter("abcdefghijklmnopqsuvwxyz"), 0..6);
    let own = |key: &'static str| {
        proptest::option::weighted(0.95, integer().prop_map(move |n| (key.to_owned(), Value::Integer(n))))
    };
    (before, own("r"), own("t"), after)
        .prop_map(|(before, r, t, after)| before.into_iter().chain(r).chain(t).chain(after).collect())
}

/// The non-negative integer `key` last has among `params`, as RFC 8941 reads
/// a key given twice.
fn last_integer(params: &[(String, Value)], key: &str) -> Option<u64> {
    match params.iter().rev().find(|(k, _)| k == key)?.1 {
        Value::Integer(n) => Some(n),
        _ => None,
    }
}

/// The oracle: of `(index, remaining, t)`, the least `remaining / t`
/// among those with `t` above zero, by exact rationals (each product is
/// below 10^30 < 2^128), the farther reset on an equal rate, then the
/// first; if every `t` is zero, the first.
fn tightest(policies: &[(usize, u64, u64)]) -> Option<(usize, u64, u64)> {
    let rate = |&(_, r, t): &(usize, u64, u64), &(_, r2, t2): &(usize, u64, u64)| {
        (u128::from(r) * u128::from(t2)).cmp(&(u128::from(r2) * u128::from(t)))
    };
    let order = |a: &&(usize, u64, u64), b: &&(usize, u64, u64)| -> Ordering {
        rate(a, b).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0))
    };
    policies.iter().filter(|p| p.2 > 0).min_by(order).or(policies.first()).copied()
}

/// Any `Duration`, its ends as often.
fn any_duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        (any::<u64>(), 0u32..1_000_000_000).prop_map(|(secs, nanos)| Duration::new(secs, nanos)),
        Just(Duration::ZERO),
        Just(Duration::MAX),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn the_tightest_policy_is_the_exact_least_rate(members in proptest::collection::vec(member(), 1..6)) {
        let field = members
            .iter()
            .enumerate()
            .map(|(i, params)| {
                let params: String = params.iter().map(|(key, value)| format!(";{key}{}", value.written())).collect();
                format!("\"m{i}\"{params}")
            })
            .collect::<Vec<_>>()
            .join(", ");
        // Each member's policy names its index as its `q`, after as many
        // other parameters.
        let policy = (0..members.len())
            .map(|i| format!("\"m{i}\";a=1;b=2;c=3;d=4;w=60;q={i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let policies: Vec<(usize, u64, u64)> = members
            .iter()
            .enumerate()
            .filter_map(|(i, params)| Some((i, last_integer(params, "r")?, last_integer(params, "t")?)))
            .collect();
        let expected = tightest(&policies).map(|(i, r, t)| (i, Quota::new(r, Duration::from_secs(t))));
        prop_assert_eq!(ratelimit(&field), expected.map(|(_, quota)| quota), "{}", field);
        prop_assert_eq!(
            ratelimit_with_policy(&field, Some(&policy)),
            expected.map(|(i, quota)| quota.with_limit(i as u64)),
            "{}", field
        );
    }

    #[test]
    fn no_x_ratelimit_text_panics(
        limit in field_text(),
        remaining in field_text(),
        reset in field_text(),
        now in any_duration(),
    ) {
        let Some(quota) = x_ratelimit(Some(&limit), &remaining, &reset, now) else { return Ok(()) };
        // What reads is the numbers written, saturating, and a reset no
        // longer than the seconds it says.
        prop_assert_eq!(quota.remaining, remaining.trim().parse::<u64>().unwrap_or(u64::MAX));
        let whole = reset.trim().split('.').next().and_then(|s| s.parse::<u64>().ok()).unwrap_or(u64::MAX);
        prop_assert!(quota.reset.as_secs() <= whole, "{:?} at {:?}: {:?}", reset, now, quota);
    }
}

#[test]
fn a_quota_paces_before_any_throttle_and_a_spent_one_waits_for_the_reset() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
    headers.insert("x-ratelimit-reset", HeaderValue::from_static("1735689630"));
    let now = UNIX_EPOCH + Duration::from_secs(1_735_689_600);
    let quota = staggered::http::quota(&headers, now).unwrap();
    assert_eq!(limiter.try_acquire(), Ok(()));
    limiter.announce(quota);
    // Spent, 30 s to the reset: the next attempt waits for it.
    let Err(wait) = limiter.try_acquire() else { panic!("a spent quota lets nothing through") };
    assert!(
        wait > Duration::from_secs(29) && wait <= Duration::from_secs(30) + Duration::from_nanos(1),
        "{wait:?}"
    );
    clock.advance(wait);
    assert_eq!(limiter.try_acquire(), Ok(()));
    assert!(!limiter.is_enabled(), "no throttle was needed");
}

#[test]
fn a_limiter_pacing_to_a_quota_says_so_in_its_metrics() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    assert!(!limiter.metrics().pacing);
    limiter.announce(Quota::new(10, Duration::from_secs(1)));
    let mut waits = 0;
    for _ in 0..10 {
        while let Err(wait) = limiter.try_acquire() {
            waits += 1;
            clock.advance(wait);
        }
    }
    let metrics = limiter.metrics();
    assert!(waits > 0, "paced");
    // Paced, never throttled: pacing, and the adaptation still off.
    assert!(metrics.pacing && !metrics.enabled, "{metrics:?}");
    // Past the reset the quota says nothing more.
    clock.advance(Duration::from_secs(1));
    assert!(!limiter.metrics().pacing);
}
