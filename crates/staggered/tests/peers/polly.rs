//! Polly.Contrib.WaitAndRetry (at 7596d2da, `src/Polly.Contrib.WaitAndRetry/`
//! and its `Specs/`). `Backoff.ExponentialBackoff(initialDelay, retryCount,
//! factor = 2, fastFirst = false)` is our `exponential` with `max_attempts`
//! `retryCount + 1` and no cap; `DecorrelatedJitterBackoffV2(
//! medianFirstRetryDelay, retryCount)` is our `smooth`; `fastFirst` (a first
//! retry at once) is [`Schedule::with_first_delay`] with zero, keeping the
//! count with [`Schedule::take_retries`].

use std::time::Duration;

use staggered::{Backoff, Schedule, Strategy};

use super::{ms, secs};

/// No cap: Polly's generators only guard against overflow.
const NO_CAP: Duration = Duration::from_secs(100 * 365 * 86_400);

fn exponential(initial: Duration, retry_count: u32, factor: f64) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(initial)
        .with_multiplier(factor)
        .with_max_delay(NO_CAP)
        .with_max_attempts(retry_count + 1)
        .build()
        .unwrap()
}

#[test]
fn exponential_backoff() {
    // Backoff_ResultIsCorrect: 10 ms, 5 retries, factor 2: 10, 20, 40, 80, 160.
    let delays: Vec<_> = exponential(ms(10), 5, 2.0).delays().collect();
    assert_eq!(delays, [10, 20, 40, 80, 160].map(ms));
}

#[test]
fn fast_first() {
    // Backoff_WithFastFirstEqualToTrue_ResultIsZero: 1 ms, 3 retries: the
    // first is zero, the others at least the initial delay; Polly's
    // generator then goes on from the initial delay (0, 1, 2 ms).
    let fast_first = exponential(ms(1), 3, 2.0).with_first_delay(Duration::ZERO).take_retries(3);
    assert_eq!(fast_first.delays().collect::<Vec<_>>(), [ms(0), ms(1), ms(2)]);
    assert_eq!(fast_first.max_attempts(), Some(4));
}

#[test]
fn decorrelated_jitter_v2_ranges() {
    // Backoff_ResultIsInRange, for 1,000 seeds: median first delay 3 s, 6
    // retries; try t waits between 0 and 3 s * 2^(t+1) for t < 2, and
    // 3 s * (2^(t+1) - 2^(t-1)) after.
    let v2 = Backoff::builder(Strategy::Smooth)
        .with_base(secs(3))
        .with_max_delay(NO_CAP)
        .with_max_attempts(7)
        .build()
        .unwrap();
    for seed in 0..1000 {
        let delays: Vec<_> = v2.delays_seeded(seed).collect();
        assert_eq!(delays.len(), 6);
        for (t, delay) in (1..).zip(delays) {
            let factor = if t < 2 { 2f64.powi(t + 1) } else { 2f64.powi(t + 1) - 2f64.powi(t - 1) };
            assert!(delay.as_secs_f64() <= 3.0 * factor, "seed {seed}, try {t}: {delay:?}");
        }
    }
    // Backoff_should_not_overflow_to_give_negative_timespan: 100 retries of 1 s.
    let long = Backoff::builder(Strategy::Smooth)
        .with_base(secs(1))
        .with_max_delay(Duration::MAX)
        .with_max_attempts(101);
    assert_eq!(long.build().unwrap().delays_seeded(1).count(), 100);
}

#[test]
fn fast_first_with_the_v2_formula_keeps_the_median_first_delay() {
    // Polly's fastFirst for DecorrelatedJitterBackoffV2 yields zero, then
    // starts its formula at its second term with nothing to subtract: the
    // first real delay lies between 2 tanh(2) / 1.4 and 4 tanh(sqrt 8) / 1.4
    // times the median first delay (1.38 to 2.84). Ours prepends zero to the
    // unchanged schedule, so the first real delay is still the first retry's
    // (at most 2 tanh(2) / 1.4 = 1.38 times base, median about base): a
    // deliberate difference, so that `base` keeps meaning "the median first
    // delay".
    let v2 =
        Backoff::builder(Strategy::Smooth).with_base(secs(1)).with_max_delay(NO_CAP).with_max_attempts(4);
    let fast_first = v2.build().unwrap().with_first_delay(Duration::ZERO).take_retries(3);
    let upper = 2.0 * 2f64.tanh() / 1.4;
    for _ in 0..1000 {
        let delays: Vec<_> = fast_first.delays().collect();
        assert_eq!(delays[0], Duration::ZERO);
        assert!(delays[1].as_secs_f64() <= upper, "{delays:?}");
    }
}
