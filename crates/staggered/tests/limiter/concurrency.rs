//! The limiter alone: tokens are conserved under contention, waits go
//! through the sleepers (never a real sleep), and a dropped wait takes nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use staggered::limiter::AdaptiveLimiter;
use staggered::sleep::TokioClock;
use staggered::test_util::{MockClock, RecordingSleeper};

/// Twenty responses a second for ten seconds, then a throttle: the limiter
/// is on, filling at 0.7 x 20 = 14 tokens a second.
fn throttled<K: staggered::sleep::Clock>(limiter: &AdaptiveLimiter<K>, advance: impl Fn(Duration)) {
    for _ in 0..200 {
        limiter.record_response(false);
        advance(Duration::from_millis(50));
    }
    limiter.record_response(true);
}

#[test]
fn eight_threads_never_take_more_tokens_than_were_issued() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    throttled(&limiter, |d| clock.advance(d));
    // Start empty, so the bucket never reaches its cap (which would discard
    // tokens) while the threads keep taking.
    while limiter.try_acquire().is_ok() {}
    let start = limiter.metrics();
    assert!((start.fill_rate - 14.0).abs() < 1e-9, "{start:?}");

    let taken = AtomicU64::new(0);
    let tries = AtomicU64::new(0);
    let running = AtomicBool::new(true);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                while running.load(Ordering::Acquire) {
                    if limiter.try_acquire().is_ok() {
                        taken.fetch_add(1, Ordering::Relaxed);
                    }
                    tries.fetch_add(1, Ordering::Release);
                }
            });
        }
        // One second of virtual time in 1 ms steps; after each step the
        // threads race for the new tokens before time moves again.
        for _ in 0..1000 {
            clock.advance(Duration::from_millis(1));
            let seen = tries.load(Ordering::Acquire);
            while tries.load(Ordering::Acquire) < seen + 16 {
                std::thread::yield_now();
            }
        }
        running.store(false, Ordering::Release);
    });
    let end = limiter.metrics();
    let issued = start.tokens + 14.0 * 1.0;
    let taken = taken.load(Ordering::Relaxed) as f64;
    // Every token issued is either taken or still in the bucket: none made up,
    // none lost (the bucket never filled to its cap, the threads kept it empty).
    assert!(taken + end.tokens <= issued + 1e-6, "taken {taken} + left {} > issued {issued}", end.tokens);
    assert!(
        (taken + end.tokens - issued).abs() < 1e-6,
        "taken {taken} + left {} != issued {issued}",
        end.tokens
    );
    assert!(taken >= 14.0, "the threads took the tokens: {taken}");
}

#[test]
fn blocking_waits_go_through_the_sleeper_and_are_counted() {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    throttled(&limiter, |d| clock.advance(d));
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    while limiter.try_acquire().is_ok() {}
    for _ in 0..14 {
        limiter.acquire_blocking(&sleeper);
    }
    // 14 tokens at 14 a second: about one second of (virtual) waiting.
    let waited: Duration = sleeper.sleeps().iter().sum();
    let metrics = limiter.metrics();
    assert_eq!(metrics.waits, 14);
    assert_eq!(metrics.waited, waited);
    assert!((waited.as_secs_f64() - 1.0).abs() < 0.01, "{waited:?}");
}

#[tokio::test(start_paused = true)]
async fn a_dropped_async_wait_takes_no_token() {
    let limiter = AdaptiveLimiter::builder().build_with_clock(TokioClock).unwrap();
    for _ in 0..200 {
        limiter.record_response(false);
        tokio::time::advance(Duration::from_millis(50)).await;
    }
    limiter.record_response(true);
    while limiter.try_acquire().is_ok() {}
    let sleeper = staggered::sleep::TokioSleeper;
    {
        let wait = limiter.acquire(&sleeper);
        let outcome = tokio::time::timeout(Duration::from_millis(10), wait).await;
        assert!(outcome.is_err(), "no token for 1/14 s: still waiting after 10 ms");
    } // the wait is dropped here, before its token came
    tokio::time::advance(Duration::from_millis(500)).await;
    let metrics = limiter.metrics();
    // Half a second at 14 a second, none of it taken by the dropped wait.
    assert!((metrics.tokens - 7.0).abs() < 0.2, "{metrics:?}");
    assert_eq!(metrics.waits, 0, "the dropped wait never completed");
    // A wait that completes takes its token and is counted.
    while limiter.try_acquire().is_ok() {}
    limiter.acquire(&sleeper).await;
    assert_eq!(limiter.metrics().waits, 1);
}
