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

/// Takes a token (recording the wait when there is none), and says whether
/// it got one.
fn take(limiter: &AdaptiveLimiter<ModelClock>) -> bool {
    match limiter.try_acquire() {
        Ok(()) => true,
        Err(wait) => {
            limiter.record_wait(wait);
            false
        }
    }
}

/// Three attempts ask for a token at the same instant, with a little over
/// two in the bucket: exactly two get one, the bucket keeps the rest, and
/// the one that must wait is counted once, with its wait.
#[test]
fn tokens_are_neither_created_nor_lost() {
    explore("adaptive::tokens", None, || {
        let clock = ModelClock::at(Duration::ZERO);
        let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
        // Three successes then a throttle at 0 s: 6 a second measured, 4.2
        // allowed; half a second later 2.1 tokens are there.
        for throttled in [false, false, false, true] {
            limiter.record_response(throttled);
        }
        clock.set(Duration::from_millis(500));
        let before = limiter.metrics();
        check(&before, 0.5);
        assert!((2.0..3.0).contains(&before.tokens), "{before:?}");

        let threads: Vec<_> = (0..2)
            .map(|_| {
                let limiter = limiter.clone();
                thread::spawn(move || take(&limiter))
            })
            .collect();
        let mine = take(&limiter);
        check(&limiter.metrics(), 0.5);
        let taken = threads.into_iter().map(|thread| thread.join().unwrap()).chain([mine]);
        assert_eq!(taken.filter(|&got| got).count(), 2);

        let after = limiter.metrics();
        check(&after, 0.5);
        assert!((after.tokens - (before.tokens - 2.0)).abs() < 1e-9, "{before:?} -> {after:?}");
        assert_eq!(after.waits, 1, "{after:?}");
        let wait = (1.0 - after.tokens) / after.fill_rate;
        assert!((after.waited.as_secs_f64() - wait).abs() < 1e-6, "{after:?}");
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
        check(&limiter.metrics(), 0.5);
        success.join().unwrap();
        throttle.join().unwrap();

        let end = limiter.metrics();
        check(&end, 0.5);
        assert!(end.enabled && limiter.is_enabled());
        assert_eq!(end.throttles, 1);
    });
}
