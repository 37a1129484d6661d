//! The limiter's parameters are bounded, from code and from configuration
//! files, so that every number it works with stays finite and every wait it
//! names is one a driver can compare with its deadline.

use std::time::Duration;

use staggered::config::RetryConfig;
use staggered::limiter::{AdaptiveLimiter, RateLimit};
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::{Backoff, Field, RetryPolicy, StopReason, Strategy};

/// `field` refused when set to `value` from code and from TOML, naming it
/// (with its line in the file).
fn assert_refused(field: Field, value: f64) {
    let builder = match field {
        Field::ScaleConstant => AdaptiveLimiter::builder().with_scale_constant(value),
        Field::MaxRateScale => AdaptiveLimiter::builder().with_max_rate_scale(value),
        Field::MinRate => AdaptiveLimiter::builder().with_min_rate(value),
        _ => unreachable!("not a bounded parameter"),
    };
    let err = builder.build_with_clock(MockClock::new()).expect_err(&format!("{field} = {value:e}"));
    assert_eq!(err.field(), field, "{err}");
    let toml = format!("[rate_limiter]\nbeta = 0.7\n{field} = {value:e}\n");
    let err = RetryConfig::from_toml_str(&toml).expect_err(&toml);
    assert_eq!((err.field(), err.line()), (format!("rate_limiter.{field}").as_str(), Some(3)), "{err}");
}

#[test]
fn limiter_scale_constant_and_max_rate_scale_are_bounded() {
    for value in [f64::MAX, 1000.5] {
        assert_refused(Field::ScaleConstant, value);
    }
    for value in [f64::MAX, 100.5] {
        assert_refused(Field::MaxRateScale, value);
    }
    // At both largest values, the limiter's numbers stay finite and it
    // still limits: 10 s at 100 responses a second, a throttle, 10 s more.
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder()
        .with_scale_constant(1000.0)
        .with_max_rate_scale(100.0)
        .build_with_clock(clock.clone())
        .unwrap();
    for i in 0..2000 {
        let _ = limiter.try_acquire();
        limiter.record_response(i == 1000);
        clock.advance(Duration::from_millis(10));
    }
    let metrics = limiter.metrics();
    for (name, value) in [
        ("fill_rate", metrics.fill_rate),
        ("measured_rate", metrics.measured_rate),
        ("tokens", metrics.tokens),
        ("capacity", metrics.capacity),
    ] {
        assert!(value.is_finite(), "{name} = {value}: {metrics:?}");
    }
    let mut admitted = 0_u64;
    while limiter.try_acquire().is_ok() && admitted <= 1_000_000 {
        admitted += 1;
    }
    assert!(admitted as f64 <= metrics.tokens + 1.0, "{admitted} admitted at once: {metrics:?}");
}

#[test]
fn limiter_min_rate_is_bounded() {
    for value in [1e-21, 5e-20, 9.9e-7] {
        assert_refused(Field::MinRate, value);
    }
    assert!(AdaptiveLimiter::builder().with_min_rate(1e-6).build_with_clock(MockClock::new()).is_ok());
}

/// A limiter at the lowest floor, throttled with nothing measured and
/// drained: its next token is a million seconds away.
fn at_the_floor(clock: &MockClock) -> AdaptiveLimiter<MockClock> {
    let limiter = AdaptiveLimiter::builder().with_min_rate(1e-6).build_with_clock(clock.clone()).unwrap();
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    limiter
}

/// A limiter whose token is always as far away as a `Duration` goes.
struct Never;

impl RateLimit for Never {
    fn try_acquire(&self) -> Result<(), Duration> {
        Err(Duration::MAX)
    }
    fn record_response(&self, _throttled: bool) {}
}

fn policy() -> RetryPolicy<Backoff> {
    RetryPolicy::new(Backoff::builder(Strategy::Full).with_max_attempts(3).build().unwrap())
        .with_deadline(Duration::from_secs(30))
        .unwrap()
}

#[test]
fn limiter_huge_wait_reaches_the_drivers_and_stops_at_the_deadline() {
    let clock = MockClock::new();
    let limiter = at_the_floor(&clock);
    let Err(wait) = limiter.try_acquire() else { panic!("a drained limiter gave a token") };
    assert!(wait >= Duration::from_secs(999_999), "the wait is the floor's, not a made-up one: {wait:?}");

    for policy in [policy().with_rate_limiter(limiter), policy().with_rate_limiter(Never)] {
        let sleeper = RecordingSleeper::with_clock(clock.clone());
        let err =
            policy.retry(|_| Ok::<_, std::io::Error>(())).with_timer(&sleeper, &clock).run().unwrap_err();
        assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 0));
        assert!(sleeper.sleeps().is_empty(), "slept {:?}", sleeper.sleeps());
    }
}

#[tokio::test(start_paused = true)]
async fn limiter_huge_wait_stops_the_async_driver_at_the_deadline() {
    let clock = MockClock::new();
    for policy in [policy().with_rate_limiter(at_the_floor(&clock)), policy().with_rate_limiter(Never)] {
        let start = tokio::time::Instant::now();
        let err = policy.retry(|_| async { Ok::<_, std::io::Error>(()) }).call().await.unwrap_err();
        assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 0));
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
