//! tokio-retry 0.3.2, `src/strategy.rs` tests. `ExponentialBackoff` is
//! `base^n` milliseconds times `factor`, capped by `max_delay`, endless
//! (callers `take` what they want); `jitter` multiplies a delay by `U[0, 1)`;
//! `FibonacciBackoff` and `FixedInterval` are plain iterators. Ours:
//! `exponential` with base `base` ms and multiplier `base`, `full` for the
//! jitter (the cap applies first, as in `.max_delay(..).map(jitter)`), and
//! any cloneable iterator is a schedule as it is.

use std::time::Duration;

use staggered::{Backoff, Schedule, Strategy};

use super::{ms, secs};

fn exponential(base_ms: u64, multiplier: f64) -> staggered::BackoffBuilder {
    Backoff::builder(Strategy::Exponential)
        .with_base(ms(base_ms))
        .with_multiplier(multiplier)
        .with_max_delay(Duration::MAX)
        .without_max_attempts()
}

#[test]
fn exponential_backoff() {
    // exp_returns_some_exponential_base_10: 10, 100, 1000 ms.
    let base_10 = exponential(10, 10.0).build().unwrap();
    assert_eq!(base_10.delays().take(3).collect::<Vec<_>>(), [ms(10), ms(100), ms(1000)]);
    // exp_returns_some_exponential_base_2: 2, 4, 8 ms.
    let base_2 = exponential(2, 2.0).build().unwrap();
    assert_eq!(base_2.delays().take(3).collect::<Vec<_>>(), [ms(2), ms(4), ms(8)]);
    // exp_can_use_factor_to_get_seconds: from_millis(2).factor(1000): 2, 4, 8 s.
    let seconds = exponential(2000, 2.0).build().unwrap();
    assert_eq!(seconds.delays().take(3).collect::<Vec<_>>(), [secs(2), secs(4), secs(8)]);
    // exp_stops_increasing_at_max_delay: 2, 4, 4 ms.
    let capped = exponential(2, 2.0).with_max_delay(ms(4)).build().unwrap();
    assert_eq!(capped.delays().take(3).collect::<Vec<_>>(), [ms(2), ms(4), ms(4)]);
    // exp_saturates_at_maximum_value: u64::MAX - 1 ms, then u64::MAX ms for
    // ever. Ours computes in floating point, so a delay this large is exact
    // to a few parts in 10^16, and it saturates at Duration::MAX instead.
    let base = ms(u64::MAX / 1000);
    let huge: Vec<_> = exponential(u64::MAX / 1000, 1000.0).build().unwrap().delays().take(3).collect();
    assert!(base.abs_diff(huge[0]) < ms(1), "{huge:?}");
    assert!(ms(u64::MAX).abs_diff(huge[1]) < secs(1), "{huge:?}");
    assert_eq!(huge[2], Duration::MAX);
}

#[test]
fn jitter_after_the_cap_is_full_jitter() {
    // `.max_delay(4 ms).map(jitter)`: U[0, min(4 ms, 2^n ms)].
    let full = exponential(2, 2.0).with_strategy(Strategy::Full).with_max_delay(ms(4)).build().unwrap();
    let maxima: Vec<_> = full.bounds().take(3).map(|b| (b.min, b.max)).collect();
    assert_eq!(maxima, [(ms(0), ms(2)), (ms(0), ms(4)), (ms(0), ms(4))]);
}

#[test]
fn any_iterator_is_a_schedule() {
    // exp_returns_the_fibonacci_series_starting_at_10: 10, 10, 20, 30, 50, 80.
    let fibonacci =
        std::iter::successors(Some((10u64, 10u64)), |&(a, b)| Some((b, a + b))).map(|(a, _)| ms(a));
    let schedule = fibonacci.take(6);
    assert_eq!(schedule.delays().collect::<Vec<_>>(), [10, 10, 20, 30, 50, 80].map(ms));
    assert_eq!(schedule.max_attempts(), Some(7), "six retries, counted from the iterator's length");
    // FixedInterval::from_millis(123), three times.
    let fixed = std::iter::repeat_n(ms(123), 3);
    assert_eq!(fixed.delays().collect::<Vec<_>>(), [ms(123); 3]);
}
