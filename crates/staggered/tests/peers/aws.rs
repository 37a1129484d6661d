//! The AWS SDKs: botocore (boto/botocore at 0e6e2404,
//! `botocore/retries/standard.py`, `quota.py`,
//! `tests/unit/retries/test_standard_retry_v2_1.py`) and smithy-rs
//! (smithy-lang/smithy-rs at 56ee88c5,
//! `aws-smithy-runtime/src/client/retries/strategy/standard.rs` and
//! `token_bucket.rs`).
//!
//! Retry behaviour 2.1: `t_i = U[0, 1) * min(scale * 2^(i-1), 20 s)`, scale
//! 1 s after a throttling error and 50 ms otherwise (25 ms for DynamoDB),
//! 3 attempts; `x-amz-retry-after` clamped to `[t_i, t_i + 5 s]`; a quota of
//! 500 where a retry costs 14, a throttled one 5, a first-try success gives
//! 1 back and a retried success what its last retry took. Before 2.1: scale
//! 1 s for every error, a retry costs 5 and a timeout 10, and a hint is
//! waited up to `max_backoff`. The peers' tests fix the random factor at 1;
//! ours use the `exponential` strategy for that (the same formula without
//! the draw), and check that `full` jitter draws below it.

use std::time::{Duration, SystemTime};

use http::{HeaderMap, HeaderValue};
use staggered::compose::ByKind;
use staggered::http::hint;
use staggered::{
    Action, Backoff, Budget, Decision, Failure, HintPolicy, Limits, StopReason, Strategy, TokenBucket,
};

use super::{ms, policy, run, secs};

/// `scale * 2^(i-1)` capped at 20 s, `attempts` calls; `full` draws `U[0, 1)` of it.
fn aws(strategy: Strategy, scale: Duration, attempts: u32) -> Backoff {
    Backoff::builder(strategy)
        .with_base(scale)
        .with_multiplier(2.0)
        .with_max_delay(secs(20))
        .with_max_attempts(attempts)
        .build()
        .unwrap()
}

/// The 2.1 quota: 500 tokens, 14 a retry (a timeout too), 5 a throttled one.
fn quota_2_1() -> TokenBucket {
    TokenBucket::builder().with_retry_cost(14).with_timeout_cost(14).with_throttled_cost(5).build()
}

#[test]
fn backoff_2_1_with_the_random_factor_at_one() {
    // test_range_of_exponential_backoff: attempts 1 to 11.
    let published = [50, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 20_000, 20_000].map(ms);
    let envelope: Vec<Duration> = aws(Strategy::Exponential, ms(50), 12).delays().collect();
    assert_eq!(envelope, published);
    // The real thing draws U[0, 1) of that: test_exponential_backoff_with_jitter.
    let full = aws(Strategy::Full, ms(50), 12);
    for (bounds, max) in full.bounds().zip(published) {
        assert_eq!((bounds.min, bounds.max), (Duration::ZERO, max));
    }
    for seed in 0..100 {
        let third = full.delays_seeded(seed).nth(2).unwrap();
        assert!(third <= ms(200), "attempt 3 waits at most 0.2 s: {third:?}");
    }
}

#[test]
fn throttling_errors_start_at_one_second_in_the_same_decision() {
    // smithy-rs v2_1_non_throttling_uses_50ms_backoff and
    // v2_1_throttling_uses_1s_backoff, mixed in one operation: each retry
    // takes the i-th delay of its kind.
    let schedule = ByKind::new(aws(Strategy::Exponential, ms(50), 5), aws(Strategy::Exponential, secs(1), 5));
    let script = [Failure::TRANSIENT, Failure::THROTTLED, Failure::THROTTLED, Failure::TRANSIENT];
    let (waits, outcome) = run(&policy(schedule), &script);
    assert_eq!(waits, [ms(50), secs(2), secs(4), ms(400)]);
    assert_eq!(outcome, Ok(5));
}

/// The wait of retry 1 (`t_i` = 50 ms at a random factor of 1) after a
/// failure whose response carried `x-amz-retry-after: value`, if any.
fn first_wait(hint_policy: HintPolicy, value: Option<&str>, max_hint: Option<Duration>) -> Action {
    let mut headers = HeaderMap::new();
    if let Some(value) = value {
        headers.insert("x-amz-retry-after", HeaderValue::from_str(value).unwrap());
    }
    let failure = Failure::TRANSIENT.with_optional_hint(hint(&headers, SystemTime::now()));
    let limits = Limits::NONE.with_hint_policy(hint_policy).with_max_hint(max_hint);
    Decision::for_schedule(&aws(Strategy::Exponential, ms(50), 3), limits, &quota_2_1())
        .on_failure(&failure, Duration::ZERO)
}

#[test]
fn x_amz_retry_after_2_1() {
    // test_x_amz_retry_after_header_is_honored: 1500 -> 1.5 s, 0 -> 0.05 s,
    // 10000 -> 5.05 s, "invalid" and "-100" -> 0.05 s.
    for (value, wait) in
        [("1500", ms(1500)), ("0", ms(50)), ("10000", ms(5050)), ("invalid", ms(50)), ("-100", ms(50))]
    {
        assert_eq!(first_wait(HintPolicy::AWS, Some(value), None), Action::Retry(wait), "{value}");
    }
    // smithy-rs: 3 s -> 3 s, 10 ms -> 50 ms, 10 s -> 5.05 s.
    for (hint_ms, wait) in [(3000, ms(3000)), (10, ms(50)), (10_000, ms(5050))] {
        let value = hint_ms.to_string();
        assert_eq!(first_wait(HintPolicy::AWS, Some(&value), None), Action::Retry(wait));
    }
}

#[test]
fn retry_after_before_2_1_is_capped_at_max_backoff() {
    // smithy-rs v2_0_retry_after_capped_at_max_backoff: 30 s -> 20 s.
    let capped = first_wait(HintPolicy::Capped, Some("30000"), Some(secs(20)));
    assert_eq!(capped, Action::Retry(secs(20)));
    // Our default would rather stop than knock before the server is ready.
    let ours = first_wait(HintPolicy::AtLeast, Some("30000"), Some(secs(20)));
    assert_eq!(ours, Action::Stop(StopReason::HintTooLong));
}

#[test]
fn retry_quota_2_1() {
    // TestRetryQuotaChecker (2.1): 500 -> 486 after a retry, back to 500 on a
    // success after it; a throttled retry costs 5; a first-try success gives 1.
    let quota = quota_2_1();
    assert!(quota.withdraw(&Failure::TRANSIENT));
    assert_eq!(quota.tokens(), 486);
    quota.deposit(2, Some(&Failure::TRANSIENT));
    assert_eq!(quota.tokens(), 500);
    assert!(quota.withdraw(&Failure::THROTTLED));
    assert_eq!(quota.tokens(), 495);
    quota.deposit(2, Some(&Failure::THROTTLED));
    assert_eq!(quota.tokens(), 500);
    assert!(quota.withdraw(&Failure::timeout()));
    assert_eq!(quota.tokens(), 486, "a timeout costs 14 too in 2.1");
    quota.deposit(1, None);
    assert_eq!(quota.tokens(), 487);
    // test_acquire_quota_fails: a quota of 14 takes one retry.
    let small = TokenBucket::builder().with_capacity(14).with_retry_cost(14).build();
    assert!(small.withdraw(&Failure::TRANSIENT) && !small.withdraw(&Failure::TRANSIENT));
    // botocore's RetryQuota itself: acquire and release any amount.
    let quota = TokenBucket::new();
    assert!(quota.try_acquire(50));
    assert_eq!(quota.tokens(), 450);
    quota.release(1000);
    assert_eq!(quota.tokens(), 500, "release never passes the capacity");
}

#[test]
fn dynamodb_2_1() {
    // test_dynamodb_base_backoff_and_increased_retries: 4 attempts, scale
    // 25 ms: delays 0.025, 0.05, 0.1 s and the quota 486, 472, 458.
    let quota = quota_2_1();
    let dynamodb = policy(aws(Strategy::Exponential, ms(25), 4)).with_budget(quota.clone());
    let (waits, outcome) = run(&dynamodb, &[Failure::TRANSIENT; 4]);
    assert_eq!(waits, [ms(25), ms(50), ms(100)]);
    assert_eq!(outcome, Err((StopReason::AttemptsExhausted, 4)));
    assert_eq!(quota.tokens(), 458);
}

#[test]
fn smithy_rs_standard_strategy_before_2_1() {
    // backoff_timing: 5 attempts at a static base: 1, 2, 4, 8 s, and the
    // default bucket at 495, 490, 485, 480; attempt 5 is not retried.
    let bucket = TokenBucket::new();
    let standard = policy(aws(Strategy::Exponential, secs(1), 5)).with_budget(bucket.clone());
    let (waits, outcome) = run(&standard, &[Failure::TRANSIENT; 5]);
    assert_eq!(waits, [secs(1), secs(2), secs(4), secs(8)]);
    assert_eq!((outcome, bucket.tokens()), (Err((StopReason::AttemptsExhausted, 5)), 480));
    // max_backoff_time: max_backoff 3 s gives 1, 2, 3, 3 s.
    let capped = aws(Strategy::Exponential, secs(1), 5).to_builder().with_max_delay(secs(3)).build().unwrap();
    assert_eq!(capped.delays().collect::<Vec<_>>(), [secs(1), secs(2), secs(3), secs(3)]);
    // The legacy costs: 5 a retry, 10 a timeout (what our defaults are).
    let bucket = TokenBucket::new();
    assert!(bucket.withdraw(&Failure::TRANSIENT) && bucket.withdraw(&Failure::timeout()));
    assert_eq!(bucket.tokens(), 485);
    // Our Aws preset is this schedule with the random factor: full jitter,
    // 1 s, 20 s, 3 attempts.
    assert_eq!(staggered::Preset::Aws.backoff(), aws(Strategy::Full, secs(1), 3));
}

#[test]
fn smithy_rs_token_bucket() {
    // test_bounded_permits_exhaustion: capacity 10, throttling cost 5: two permits.
    let bucket = TokenBucket::builder().with_capacity(10).build();
    let permits = (0..100).take_while(|_| bucket.withdraw(&Failure::THROTTLED)).count();
    assert_eq!(permits, 2);
    // test_fractional_tokens_accumulate_and_convert: reward 0.4, three
    // successes make one whole token.
    let bucket = TokenBucket::builder().with_capacity(10).with_success_reward(0.4).unwrap().build();
    assert!(bucket.withdraw(&Failure::timeout()));
    assert_eq!(bucket.tokens(), 0);
    for whole in [0, 0, 1] {
        bucket.deposit(1, None);
        assert_eq!(bucket.tokens(), whole);
    }
    // test_fractional_tokens_respect_max_capacity: reward 2.0, 20 successes, still 10.
    let bucket = TokenBucket::builder().with_capacity(10).with_success_reward(2.0).unwrap().build();
    (0..20).for_each(|_| bucket.deposit(1, None));
    assert_eq!(bucket.tokens(), 10);
}
