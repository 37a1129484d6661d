//! Recovery after one throttle: a client offering 100 requests a second
//! with the default limiter, one throttled response, then only successes,
//! is back to sending what it is offered within 10 s, whatever the pattern
//! of its arrivals and whenever the throttle comes; and what the limiter
//! measures does not depend on when anyone reads its metrics.
//!
//! Each run is one client on a mock clock: a request that arrives asks the
//! limiter for a token once and is sent if it gets one, turned away if not
//! (so the admitted rate is the limiter's alone, with no queue draining
//! behind it). Every response comes back at once, successful except the
//! first one at or after the throttle's time.

use std::time::Duration;

use staggered::limiter::AdaptiveLimiter;
use staggered::test_util::MockClock;
use staggered::{FastRng, Rng};

/// The offered rate, requests a second.
const OFFERED: f64 = 100.0;
/// When the one throttled response comes back, in separate runs: from the
/// very first responses (before the rate meter has closed a bucket) to a
/// steady client, at several phases of the meter's half-second buckets.
const THROTTLE_AT_MS: [u64; 8] = [10, 100, 1_000, 2_000, 2_250, 5_000, 5_100, 7_000];
/// The admitted rate is checked from this long after the throttle...
const RECOVERED_BY: Duration = Duration::from_secs(10);
/// ...over this long.
const WINDOW: Duration = Duration::from_secs(10);
/// How far the admitted rate may be from the rate of arrivals in the window.
const TOLERANCE: f64 = 0.10;

/// Arrivals every 10 ms from 10 ms on, each shifted by `offset`, up to `end`.
fn every_10ms(offset: Duration, end: Duration) -> Vec<Duration> {
    (1..).map(|i| Duration::from_millis(10) * i + offset).take_while(|&t| t < end).collect()
}

/// Poisson arrivals at [`OFFERED`] a second, from a fixed seed, up to `end`.
fn poisson(seed: u64, end: Duration) -> Vec<Duration> {
    let mut rng = FastRng::seed(seed);
    let mut t = 0.0_f64;
    let mut arrivals = Vec::new();
    loop {
        // `1 - u` is in (0, 1]: never ln(0).
        t += -(1.0 - rng.next_f64()).ln() / OFFERED;
        let at = Duration::from_secs_f64(t);
        if at >= end {
            return arrivals;
        }
        arrivals.push(at);
    }
}

/// The arrivals that got a token, with the throttle at `throttle_at`; with
/// `metrics_after_each_response`, the limiter's metrics are read after
/// every response, as a dashboard polling it would.
fn admitted(
    arrivals: &[Duration],
    throttle_at: Duration,
    metrics_after_each_response: bool,
) -> Vec<Duration> {
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let (mut sent, mut throttled) = (Vec::new(), false);
    for &at in arrivals {
        clock.advance(at - clock.elapsed());
        if limiter.try_acquire().is_ok() {
            sent.push(at);
            let throttle = !throttled && at >= throttle_at;
            throttled |= throttle;
            limiter.record_response(throttle);
            if metrics_after_each_response {
                let _ = limiter.metrics();
            }
        }
    }
    sent
}

/// Asserts that, for every throttle time, from [`RECOVERED_BY`] after the
/// throttle and over [`WINDOW`], the client sent within [`TOLERANCE`] of
/// what arrived; `arrivals(end)` gives the arrivals up to `end`.
fn assert_recovers(arrivals: impl Fn(Duration) -> Vec<Duration>) {
    let mut failures = Vec::new();
    for throttle_at in THROTTLE_AT_MS.map(Duration::from_millis) {
        let from = throttle_at + RECOVERED_BY;
        let to = from + WINDOW;
        let arrivals = arrivals(to);
        let sent = admitted(&arrivals, throttle_at, false);
        let inside = |times: &[Duration]| times.iter().filter(|&&t| from <= t && t < to).count() as f64;
        let (offered, admitted) = (inside(&arrivals), inside(&sent));
        if (admitted / offered - 1.0).abs() > TOLERANCE {
            failures.push(format!(
                "throttle at {throttle_at:?}: from {from:?} to {to:?}, {offered} arrived and {admitted} were sent"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn limiter_recovers_after_one_throttle_regular_arrivals() {
    assert_recovers(|end| every_10ms(Duration::ZERO, end));
}

#[test]
fn limiter_recovers_after_one_throttle_offset_arrivals() {
    assert_recovers(|end| every_10ms(Duration::from_micros(1), end));
}

#[test]
fn limiter_recovers_after_one_throttle_poisson_arrivals_seed_8() {
    assert_recovers(|end| poisson(8, end));
}

#[test]
fn limiter_recovers_after_one_throttle_poisson_arrivals_seed_9() {
    assert_recovers(|end| poisson(9, end));
}

#[test]
fn limiter_admissions_do_not_depend_on_when_metrics_are_read() {
    let end = Duration::from_secs(30);
    for arrivals in
        [every_10ms(Duration::ZERO, end), every_10ms(Duration::from_micros(1), end), poisson(8, end)]
    {
        for throttle_at in THROTTLE_AT_MS.map(Duration::from_millis) {
            assert_eq!(
                admitted(&arrivals, throttle_at, false),
                admitted(&arrivals, throttle_at, true),
                "throttle at {throttle_at:?}"
            );
        }
    }
}
