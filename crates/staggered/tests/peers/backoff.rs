//! The `backoff` crate 0.4.0, `src/default.rs` and `src/exponential.rs`: a
//! port of google-http-java-client's `ExponentialBackOff` with its defaults,
//! initial interval 500 ms, randomization factor 0.5, multiplier 1.5, max
//! interval 60 s (capping the interval, not the randomized delay), max
//! elapsed time 15 min. Ours: `proportional` with those values,
//! [`CapMode::Interval`] and a 15 min deadline.

use staggered::{Backoff, CapMode, Failure, StopReason, Strategy};

use super::{ms, policy, run, secs};

fn default_policy() -> Backoff {
    Backoff::builder(Strategy::Proportional)
        .with_base(ms(500))
        .with_factor(0.5)
        .with_multiplier(1.5)
        .with_max_delay(secs(60))
        .with_cap_mode(CapMode::Interval)
        .without_max_attempts()
        .with_deadline(secs(15 * 60))
        .build()
        .unwrap()
}

#[test]
fn default_intervals_and_ranges() {
    // The crate keeps the interval as a Duration, multiplying by 1.5 and
    // truncating to the nanosecond at each step; we keep it in floating
    // point. The two agree to within a few nanoseconds.
    let bounds: Vec<_> = default_policy().bounds().take(14).collect();
    let mut interval = 500_000_000f64;
    let close =
        |ours: std::time::Duration, theirs: f64| (ours.as_nanos() as f64 - theirs.trunc()).abs() <= 4.0;
    for b in &bounds {
        assert!(close(b.interval, interval), "retry {}: {:?} vs {interval}", b.retry, b.interval);
        assert!(close(b.min, interval * 0.5) && close(b.max, interval * 1.5), "retry {}", b.retry);
        interval = if interval >= 60e9 / 1.5 { 60e9 } else { (interval * 1.5).trunc() };
    }
    assert_eq!(bounds[12].interval, secs(60), "the interval stops at max_interval");
    assert_eq!(bounds[12].max, secs(90), "and the randomized delay may pass it");
}

#[test]
fn max_elapsed_time_is_our_deadline() {
    // next_backoff returns None once elapsed + next delay would pass
    // max_elapsed_time. Ours stops there too, and also when it would end
    // exactly on it (an attempt starting at the deadline has no time to run).
    let forever = [Failure::TRANSIENT; 1000];
    let (waits, outcome) = run(&policy(default_policy()), &forever);
    assert_eq!(outcome.unwrap_err().0, StopReason::Deadline);
    let total: std::time::Duration = waits.iter().sum();
    assert!(total < secs(15 * 60), "{total:?}");
    assert!(
        total > secs(15 * 60) - secs(90),
        "it gives up only when the next delay no longer fits: {total:?}"
    );
}
