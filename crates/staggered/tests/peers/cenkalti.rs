//! cenkalti/backoff (at 720b7898, v4: `exponential.go`,
//! `exponential_test.go`). `NewExponentialBackOff()`: initial interval
//! 500 ms, randomization factor 0.5, multiplier 1.5, max interval 60 s (on the
//! interval, not the randomized one), max elapsed time 15 min, in Go's
//! nanosecond `time.Duration`. Ours: `proportional` with those values,
//! [`CapMode::Interval`] and a 15 min deadline; no granularity.

use staggered::{Backoff, CapMode, Failure, StopReason, Strategy};

use super::{ms, policy, run, secs};

fn exponential() -> staggered::BackoffBuilder {
    Backoff::builder(Strategy::Proportional)
        .with_base(ms(500))
        .with_factor(0.5)
        .with_multiplier(1.5)
        .with_max_delay(secs(60))
        .with_cap_mode(CapMode::Interval)
        .without_max_attempts()
        .with_deadline(secs(15 * 60))
}

#[test]
fn default_intervals_in_nanoseconds() {
    // Go multiplies the interval by 1.5 in nanoseconds: 0.5, 0.75, 1.125,
    // 1.6875, 2.53125, 3.796875, 5.6953125, 8.54296875, 12.814453125 s, each
    // delay within +-50%. (The table in exponential.go's doc comment is
    // google-http-java-client's, computed in whole milliseconds: 3.795 for
    // 3.796875. Our Preset::Google reproduces that one.)
    let go = [
        500_000_000u64,
        750_000_000,
        1_125_000_000,
        1_687_500_000,
        2_531_250_000,
        3_796_875_000,
        5_695_312_500,
        8_542_968_750,
        12_814_453_125,
    ];
    let backoff = exponential().build().unwrap();
    for (bounds, nanos) in backoff.bounds().zip(go) {
        let interval = std::time::Duration::from_nanos(nanos);
        assert_eq!((bounds.interval, bounds.min, bounds.max), (interval, interval / 2, interval * 3 / 2));
    }
}

#[test]
fn test_back_off() {
    // initial 500 ms, factor 0.1, multiplier 2, max interval 5 s: intervals
    // 500, 1000, 2000, 4000, then 5000 ms, each delay within +-10%.
    let backoff =
        exponential().with_factor(0.1).with_multiplier(2.0).with_max_delay(secs(5)).build().unwrap();
    let published = [500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000];
    for (bounds, interval) in backoff.bounds().zip(published) {
        assert_eq!(
            (bounds.interval, bounds.min, bounds.max),
            (ms(interval), ms(interval * 9 / 10), ms(interval * 11 / 10))
        );
    }
}

#[test]
fn max_elapsed_time_stops_one_boundary_earlier() {
    // NextBackOff returns Stop when elapsed + next > MaxElapsedTime, so a
    // delay that ends exactly at the limit is still taken. Ours stops there:
    // the attempt after it would start at the deadline, with no time to run.
    // A 1 s constant schedule with a 3 s limit: 3 retries there, 2 here.
    let constant =
        Backoff::builder(Strategy::Constant).with_base(secs(1)).without_max_attempts().with_deadline(secs(3));
    let (waits, outcome) = run(&policy(constant.build().unwrap()), &[Failure::TRANSIENT; 10]);
    assert_eq!((waits.len(), outcome), (2, Err((StopReason::Deadline, 3))));
}
