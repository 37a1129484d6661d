//! A policy with a rate limiter: every attempt, the first included, takes a
//! token through the driver's sleeper; every response is reported; a wait
//! that would pass the deadline stops with the deadline's reason.

use std::cell::Cell;
use std::time::Duration;

use staggered::limiter::AdaptiveLimiter;
use staggered::sleep::{Clock, TokioClock, TokioSleeper};
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::{Backoff, ErrorKind, Failure, RetryPolicy, StopReason, Strategy};

/// Twenty responses a second for ten seconds, then a throttle, then the
/// bucket drained: the limiter fills at 0.7 x 20 = 14 tokens a second from
/// empty.
fn throttled_and_empty<K: staggered::sleep::Clock>(limiter: &AdaptiveLimiter<K>, advance: impl Fn(Duration)) {
    for _ in 0..200 {
        limiter.record_response(false);
        advance(Duration::from_millis(50));
    }
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
}

fn backoff() -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(100))
        .with_max_attempts(3)
        .build()
        .unwrap()
}

/// An error the classifier below calls throttled (or transient).
#[derive(Debug)]
struct Slow(bool);

/// An async attempt cut at its time limit is flaky.
impl From<staggered::TimedOut> for Slow {
    fn from(_: staggered::TimedOut) -> Self {
        Slow(false)
    }
}

impl std::fmt::Display for Slow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0 { "slow down" } else { "flaky" })
    }
}

fn classify(error: &Slow) -> Failure {
    if error.0 {
        Failure::THROTTLED
    } else {
        Failure::TRANSIENT
    }
}

#[test]
fn attempt_1_takes_a_token_through_the_blocking_sleeper() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    throttled_and_empty(&limiter, |d| clock.advance(d));
    let policy = RetryPolicy::new(backoff()).with_rate_limiter(limiter.clone());
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let done = policy.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run().unwrap();
    // No token in the bucket: one wait of 1/14 s (rounded up) before attempt 1.
    assert_eq!(sleeper.sleeps().len(), 1);
    let wait = sleeper.total();
    assert!((wait.as_secs_f64() - 1.0 / 14.0).abs() < 1e-6, "{wait:?}");
    assert_eq!((done.attempts, done.waited), (1, wait));
    let metrics = limiter.metrics();
    assert_eq!((metrics.waits, metrics.waited), (1, wait));
    // Fourteen more attempts wait for a token each: at most 14 / 14 s, a
    // little less as the successes move the rate up its curve.
    for _ in 0..14 {
        policy.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run().unwrap();
    }
    assert_eq!(sleeper.sleeps().len(), 15);
    let total = sleeper.total().as_secs_f64();
    assert!(total > 0.5 && total < 15.0 / 14.0 + 1e-6, "{total}");
}

#[test]
fn a_policy_without_a_limiter_never_waits_and_a_disabled_limiter_neither() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let with = RetryPolicy::new(backoff()).with_rate_limiter(limiter.clone());
    let without = RetryPolicy::new(backoff());
    for _ in 0..1000 {
        with.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run().unwrap();
        without.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run().unwrap();
    }
    assert!(sleeper.sleeps().is_empty());
    assert!(!limiter.metrics().enabled);
}

#[test]
fn every_response_is_reported_and_a_throttle_turns_the_limiter_on() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let policy = RetryPolicy::new(backoff()).classify(classify).with_rate_limiter(limiter.clone());
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    // A transient failure is a response like a success: the limiter stays off.
    let calls = Cell::new(0);
    let done = policy
        .retry(|attempt| {
            calls.set(calls.get() + 1);
            if attempt == 1 {
                Err(Slow(false))
            } else {
                Ok(attempt)
            }
        })
        .with_timer(&sleeper, &clock)
        .run()
        .unwrap();
    assert_eq!(done.value, 2);
    assert!(!limiter.metrics().enabled);
    // A throttled one turns it on.
    let done = policy
        .retry(|attempt| if attempt == 1 { Err(Slow(true)) } else { Ok(attempt) })
        .with_timer(&sleeper, &clock)
        .run()
        .unwrap();
    assert_eq!(done.value, 2);
    let metrics = limiter.metrics();
    assert!(metrics.enabled, "{metrics:?}");
    assert_eq!(metrics.throttles, 1);
    // Clones of the policy share the limiter.
    let clone = policy.clone();
    let _ = clone.retry(|_| Err::<(), _>(Slow(true))).with_timer(&sleeper, &clock).run();
    assert_eq!(limiter.metrics().throttles, 4, "three more throttled attempts");
}

/// A limiter throttled with nothing measured, at the floor of 0.5 tokens a
/// second (one every 2 s), its bucket empty.
fn at_the_floor() -> (AdaptiveLimiter<MockClock>, MockClock) {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    (limiter, clock)
}

#[test]
fn a_wait_for_a_token_that_would_pass_the_deadline_stops_with_the_deadline() {
    let (limiter, clock) = at_the_floor();
    let policy = RetryPolicy::new(backoff())
        .classify(classify)
        .with_deadline(Duration::from_secs(1))
        .unwrap()
        .with_rate_limiter(limiter.clone());
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let gave_up = Cell::new(None);
    let err = policy
        .retry(|_| Ok::<_, Slow>(()))
        .on_give_up(|event| gave_up.set(Some((event.reason, event.attempts, event.error.is_some()))))
        .with_timer(&sleeper, &clock)
        .run()
        .unwrap_err();
    // Two seconds for a token, one of deadline: stop before attempt 1, at once.
    assert_eq!((err.reason(), err.attempts(), err.error().is_none()), (StopReason::Deadline, 0, true));
    assert!(sleeper.sleeps().is_empty(), "never slept past the deadline");
    assert_eq!(gave_up.get(), Some((StopReason::Deadline, 0, false)));
    assert_eq!(err.to_string(), "gave up after 0 attempts (no time left before the deadline)");

    // With 2.5 s: attempt 1 waits 2 s for its token and fails; its
    // response lifts the rate to 0.8 a second (twice the measured 0.4), so
    // after the 100 ms backoff the next token is over a second away: stop
    // with attempt 1's error.
    let policy = policy.with_deadline(Duration::from_millis(2500)).unwrap();
    let err = policy.retry(|_| Err::<(), _>(Slow(false))).with_timer(&sleeper, &clock).run().unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 1));
    assert_eq!(err.error().map(|e| e.0), Some(false));
    let waited: Duration = sleeper.sleeps().iter().sum();
    assert_eq!(err.waited(), waited, "the token's wait and the backoff");
    assert!(waited > Duration::from_secs(2) && waited < Duration::from_millis(2500), "{waited:?}");
}

#[test]
fn a_wait_for_a_token_past_max_token_wait_sheds_the_operation_with_its_own_reason() {
    let (limiter, clock) = at_the_floor();
    let policy = RetryPolicy::new(backoff())
        .classify(classify)
        .with_max_token_wait(Duration::from_secs(1))
        .with_rate_limiter(limiter.clone());
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let gave_up = Cell::new(None);
    let err = policy
        .retry(|_| Ok::<_, Slow>(()))
        .on_give_up(|event| gave_up.set(Some(event.reason)))
        .with_timer(&sleeper, &clock)
        .run()
        .unwrap_err();
    // Two seconds for a token, at most one allowed, no deadline: shed at once.
    assert_eq!((err.reason(), err.attempts()), (StopReason::TokenWaitTooLong, 0));
    assert!(sleeper.sleeps().is_empty(), "shed without waiting");
    assert_eq!(gave_up.get(), Some(StopReason::TokenWaitTooLong));
    assert_eq!(err.to_string(), "gave up after 0 attempts (waited too long for the rate limiter)");

    // A bound of 3 s: the 2 s wait is allowed, the attempt is sent and
    // succeeds. The bound is per attempt, not per operation.
    let policy = policy.with_max_token_wait(Duration::from_secs(3));
    let done = policy.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run();
    assert!(done.is_ok());
    assert_eq!(sleeper.sleeps().iter().sum::<Duration>(), Duration::from_secs(2) + Duration::from_nanos(1));

    // Without a bound only the deadline stops the wait (the test above):
    // throttled again and drained, the next token is over a second away,
    // a wait the bound of 1 s would have shed, and it is waited.
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    let unbounded = RetryPolicy::new(backoff()).with_rate_limiter(limiter.clone());
    let before = clock.now();
    assert!(unbounded.retry(|_| Ok::<_, Slow>(())).with_timer(&sleeper, &clock).run().is_ok());
    assert!(clock.since(before) > Duration::from_secs(1), "{:?}", clock.since(before));
}

#[tokio::test(start_paused = true)]
async fn async_attempts_take_tokens_through_the_async_sleeper() {
    let limiter = AdaptiveLimiter::builder().build_with_clock(TokioClock).unwrap();
    for _ in 0..200 {
        limiter.record_response(false);
        tokio::time::advance(Duration::from_millis(50)).await;
    }
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    let policy = RetryPolicy::new(backoff()).classify(classify).with_rate_limiter(limiter.clone());
    let start = tokio::time::Instant::now();
    // Twenty-eight operations: a token each, at most two seconds at 14
    // tokens a second (less as the rate climbs its curve).
    for _ in 0..28 {
        policy.retry(|_| async { Ok::<_, Slow>(()) }).call().await.unwrap();
    }
    let took = start.elapsed().as_secs_f64();
    assert!(took > 1.0 && took <= 2.0 + 1e-6, "{took}");
    assert_eq!(limiter.metrics().waits, 28);
    // A throttled attempt is reported (attempt 1 waited for its token; the
    // retry's backoff may have let one gather).
    let done = policy
        .retry(|attempt| async move {
            if attempt == 1 {
                Err(Slow(true))
            } else {
                Ok(attempt)
            }
        })
        .with_timer(&TokioSleeper, &TokioClock)
        .run()
        .await
        .unwrap();
    assert_eq!(done.value, 2);
    assert_eq!(limiter.metrics().throttles, 2);
    assert!(limiter.metrics().waits >= 29);
}

#[tokio::test(start_paused = true)]
async fn an_async_wait_past_the_deadline_stops_at_once() {
    let limiter = AdaptiveLimiter::builder().build_with_clock(TokioClock).unwrap();
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    let policy =
        RetryPolicy::new(backoff()).with_deadline(Duration::from_secs(1)).unwrap().with_rate_limiter(limiter);
    let start = tokio::time::Instant::now();
    let err = policy.retry(|_| async { Ok::<_, std::io::Error>(()) }).call().await.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 0));
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[test]
fn throttled_is_the_classifiers_kind() {
    assert_eq!(Failure::THROTTLED.kind, ErrorKind::Throttled);
}
