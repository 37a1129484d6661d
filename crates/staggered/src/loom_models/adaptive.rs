//! The adaptive limiter: attempts take tokens, responses move the rate and
//! metrics are read, all at once, under its lock and beside its counters.

use core::time::Duration;

use loom::thread;

use super::{explore, ModelClock};
use crate::limiter::{AdaptiveLimiter, AdaptiveMode, LimiterMetrics, RateLimit};

/// Checks what every snapshot promises: a fill rate at or above the floor,
/// a bucket within its capacity, and a limiter on exactly when a throttle
/// was recorded.
fn check(seen: &LimiterMetrics, min_rate: f64) {
    assert!(seen.fill_rate.is_finite() && seen.fill_rate >= min_rate, "{seen:?}");
    assert!(seen.measured_rate.is_finite() && seen.measured_rate >= 0.0, "{seen:?}");
    assert!(seen.capacity >= 1.0 && (0.0..=seen.capacity).contains(&seen.tokens), "{seen:?}");
    assert_eq!(seen.enabled, seen.throttles > 0, "{seen:?}");
}

/// Takes a token, or records the wait the limiter asks for when there is
/// none: `None` for a token, else that wait.
fn take(limiter: &AdaptiveLimiter<ModelClock>) -> Option<Duration> {
    let wait = limiter.try_acquire().err()?;
    limiter.record_wait(wait);
    Some(wait)
}

/// Three attempts ask for a token at the same instant, with a little over
/// two in the bucket: exactly as many get one as there were whole tokens,
/// the bucket keeps the rest, and each one that must wait is counted once,
/// with the wait it was told.
///
/// Only the public behaviour is checked (take, record, metrics), so that
/// the model holds whatever the limiter's algorithm: the level before the
/// race is read, not assumed.
#[test]
fn tokens_are_neither_created_nor_lost() {
    explore("adaptive::tokens", None, || {
        let clock = ModelClock::at(Duration::ZERO);
        let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
        let min_rate = limiter.config().min_rate();
        // Three successes then a throttle at 0 s: with the defaults, 6 a
        // second measured and 4.2 allowed, so 2.1 tokens half a second later.
        for throttled in [false, false, false, true] {
            limiter.record_response(throttled);
        }
        clock.set(Duration::from_millis(500));
        let before = limiter.metrics();
        check(&before, min_rate);
        // The tokens the three can take: the whole ones, at most three.
        let whole = before.tokens.floor().min(3.0);

        let threads: Vec<_> = (0..2)
            .map(|_| {
                let limiter = limiter.clone();
                thread::spawn(move || take(&limiter))
            })
            .collect();
        let mine = take(&limiter);
        check(&limiter.metrics(), min_rate);
        let waits: Vec<Duration> =
            threads.into_iter().map(|thread| thread.join().unwrap()).chain([mine]).flatten().collect();
        let taken = 3.0 - waits.len() as f64;
        assert_eq!(taken, whole, "{before:?}: {waits:?}");

        let after = limiter.metrics();
        check(&after, min_rate);
        assert!((after.tokens - (before.tokens - taken)).abs() < 1e-9, "{before:?} -> {after:?}");
        assert_eq!(after.waits, waits.len() as u64, "{after:?}");
        assert_eq!(after.waited, waits.iter().sum(), "{after:?}");
    });
}

/// Successes race the first throttle while the metrics are read: every
/// snapshot is consistent, and once the throttle is in the limiter is on
/// and has counted it once.
#[test]
fn the_first_throttle_turns_it_on_once() {
    first_throttle("adaptive::first_throttle", AdaptiveMode::Aws);
}

/// The same in the tracking mode, whose first throttle starts its window.
#[test]
fn the_first_throttle_turns_the_tracking_mode_on_once() {
    first_throttle("adaptive::first_throttle_tracking", AdaptiveMode::Tracking);
}

fn first_throttle(name: &str, mode: AdaptiveMode) {
    explore(name, None, move || {
        let clock = ModelClock::at(Duration::from_millis(250));
        let limiter = AdaptiveLimiter::builder().with_mode(mode).build_with_clock(clock.clone()).unwrap();
        let success = {
            let limiter = limiter.clone();
            thread::spawn(move || limiter.record_response(false))
        };
        let throttle = {
            let limiter = limiter.clone();
            thread::spawn(move || limiter.record_response(true))
        };
        limiter.record_response(false);
        let min_rate = limiter.config().min_rate();
        check(&limiter.metrics(), min_rate);
        success.join().unwrap();
        throttle.join().unwrap();

        let end = limiter.metrics();
        check(&end, min_rate);
        assert!(end.enabled && limiter.is_enabled());
        assert_eq!(end.throttles, 1);
    });
}
