//! Announced quotas from hostile headers: whatever a server writes in its
//! rate-limit fields, reading them never panics, and no wait the limiter
//! then names is longer than its bound or than the time to the reset.

use std::time::{Duration, UNIX_EPOCH};

use http::{HeaderMap, HeaderName, HeaderValue};
use proptest::prelude::*;
use staggered::limiter::{AdaptiveLimiter, MAX_QUOTA_RESET, MAX_QUOTA_WAIT};
use staggered::test_util::MockClock;

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
