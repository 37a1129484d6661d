//! gRPC: the retry design (gRFC A6) and grpc-go (grpc/grpc-go at 4793ad04,
//! `stream.go`'s `shouldRetry`, `test/retry_test.go`).
//!
//! A6's backoff: retry `n` waits `min(initialBackoff * multiplier^(n-1),
//! maxBackoff) * U[0.8, 1.2]` (the jitter after the cap): ours is
//! `proportional` with factor 0.2 and [`CapMode::Interval`]. A server
//! pushback is waited exactly and restarts the backoff
//! ([`HintPolicy::Pushback`]); a negative, unreadable or repeated pushback
//! means no retry, and counts against the throttle. The throttle is
//! [`RetryThrottle`].

use std::time::{Duration, SystemTime};

use http::{HeaderMap, HeaderValue};
use staggered::http::hint;
use staggered::{
    Action, Backoff, CapMode, Decision, Failure, Hint, HintPolicy, Limits, RetryThrottle, StopReason,
    Strategy,
};

use super::{ms, policy, run, secs, Failed};

/// A6's backoff for `retryPolicy { initialBackoff, maxBackoff, backoffMultiplier, maxAttempts }`.
fn retry_policy(initial: Duration, max: Duration, multiplier: f64, max_attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Proportional)
        .with_base(initial)
        .with_max_delay(max)
        .with_multiplier(multiplier)
        .with_factor(0.2)
        .with_cap_mode(CapMode::Interval)
        .with_max_attempts(max_attempts)
        .build()
        .unwrap()
}

#[test]
fn a6_backoff_ranges() {
    // The guide's example (initialBackoff 0.1 s, maxBackoff 1 s, multiplier
    // 2, maxAttempts 5): the first retry waits 80 to 120 ms; the jitter
    // applies after the cap, so the last may wait up to 1.2 s.
    let a6 = retry_policy(ms(100), secs(1), 2.0, 6);
    let ranges: Vec<_> = a6.bounds().map(|b| (b.min, b.max)).collect();
    assert_eq!(
        ranges,
        [(ms(80), ms(120)), (ms(160), ms(240)), (ms(320), ms(480)), (ms(640), ms(960)), (ms(800), ms(1200))]
    );
}

#[test]
fn retry_throttling_token_by_token() {
    // TestRetryThrottling: maxTokens 10, tokenRatio 0.5, maxAttempts 4; the
    // server succeeds on its calls 0, 3, 6, 10, 11, 12, 13, 14, 16 and 18
    // and fails UNAVAILABLE otherwise. After each RPC: its outcome, and the
    // index of the server's last call.
    let throttle = RetryThrottle::with_parameters(10, 0.5).unwrap();
    let grpc = policy(retry_policy(ms(10), ms(10), 1.0, 4)).with_budget(throttle.clone());
    let succeeds = [0, 3, 6, 10, 11, 12, 13, 14, 16, 18];
    let mut call = -1i64;
    let published = [
        (true, 0),  // tokens 10
        (true, 3),  // 8.5: two failures, one success
        (true, 6),  // 7 (the test's comment says 6; its counts agree with 7)
        (false, 8), // 5: the first attempt is retried, the second is not
        (false, 9), // 4
        (true, 10),
        (true, 11),
        (true, 12),
        (true, 13),
        (true, 14),  // 6.5
        (true, 16),  // 6
        (false, 17), // 5
    ];
    let sleeper = staggered::test_util::RecordingSleeper::new();
    for (ok, last_call) in published {
        let outcome = grpc
            .retry(|_| {
                call += 1;
                if succeeds.contains(&call) {
                    Ok(())
                } else {
                    Err(Failed(Failure::TRANSIENT))
                }
            })
            .with_timer(&sleeper, &sleeper.clock())
            .run();
        assert_eq!((outcome.is_ok(), call), (ok, last_call), "tokens {}", throttle.tokens());
    }
    assert_eq!(throttle.tokens(), 5.0);
}

/// The first decision after an UNAVAILABLE whose trailers carry these
/// `grpc-retry-pushback-ms` values, with A6's pushback rule.
fn after_pushback(values: &[&str], throttle: &RetryThrottle) -> Action {
    let mut headers = HeaderMap::new();
    for value in values {
        headers.append("grpc-retry-pushback-ms", HeaderValue::from_str(value).unwrap());
    }
    let failure = Failure::TRANSIENT.with_optional_hint(hint(&headers, SystemTime::now()));
    let limits = Limits::NONE.with_hint_policy(HintPolicy::Pushback);
    Decision::for_schedule(&retry_policy(ms(10), ms(10), 1.0, 4), limits, throttle)
        .on_failure(&failure, Duration::ZERO)
}

#[test]
fn server_pushback() {
    // TestRetryStreaming's pushback cases: "-1", "xxx" and two values mean
    // no retry (and a failure for the throttle); "1000" a retry after 1 s.
    for values in [&["-1"][..], &["xxx"], &["100", "10"]] {
        let throttle = RetryThrottle::new();
        assert_eq!(after_pushback(values, &throttle), Action::Stop(StopReason::HintTooLong), "{values:?}");
        assert_eq!(throttle.tokens(), 9.0, "{values:?} counts as a failure for throttling");
    }
    let throttle = RetryThrottle::new();
    assert_eq!(
        after_pushback(&["1000"], &throttle),
        Action::Retry(secs(1)),
        "exactly the pushback, no jitter"
    );
}

#[test]
fn a_pushback_restarts_the_backoff() {
    // shouldRetry: after a pushback, numRetriesSincePushback = 0, so the next
    // backoff is the initial one again. 100 ms, 200 ms, pushback 1 s, then
    // 100 ms and 200 ms (A6 with jitter 0 to show the numbers).
    let backoff = retry_policy(ms(100), secs(10), 2.0, 6).to_builder().with_factor(0.0).build().unwrap();
    let pushback = Failure::TRANSIENT.with_hint(Hint::After(secs(1)));
    let script = [Failure::TRANSIENT, Failure::TRANSIENT, pushback, Failure::TRANSIENT, Failure::TRANSIENT];
    let (waits, outcome) = run(&policy(backoff).with_hint_policy(HintPolicy::Pushback), &script);
    assert_eq!(waits, [ms(100), ms(200), secs(1), ms(100), ms(200)]);
    assert_eq!(outcome, Ok(6));
}

#[test]
fn the_last_attempts_failure_counts_against_the_throttle_too() {
    // shouldRetry throttles before it checks maxAttempts.
    let throttle = RetryThrottle::new();
    let mut decision = Decision::for_schedule(&retry_policy(ms(10), ms(10), 1.0, 1), Limits::NONE, &throttle);
    assert_eq!(
        decision.on_failure(&Failure::TRANSIENT, Duration::ZERO),
        Action::Stop(StopReason::AttemptsExhausted)
    );
    assert_eq!(throttle.tokens(), 9.0);
}
