//! Invariants that hold for every strategy and any valid parameters.
//!
//! Each generated case builds all eight strategies in both cap modes from the
//! same parameters, so every strategy sees every kind of value: base from 0 to
//! 10^6 s (0 included), multiplier from 1 (exactly 1 included) to 10, max_delay
//! from base up to `Duration::MAX`, factor in [0, 1] (both ends included),
//! max_attempts from 1 to 50, with or without a granularity.

use std::time::Duration;

use proptest::prelude::*;
use proptest::strategy::Strategy as PropStrategy;
use staggered::{Backoff, CapMode, Strategy};

use super::nanos;

/// How far a delay may stray outside `bounds()`: delays and bounds are
/// computed in float nanoseconds, so each may round to a different whole
/// nanosecond. The cap in `CapMode::Delay` gets no tolerance at all.
const ROUNDING: Duration = Duration::from_nanos(1);

/// Base up to 10^6 s, with 0 and whole-second values more likely than chance.
fn base() -> impl PropStrategy<Value = Duration> {
    prop_oneof![
        1 => Just(Duration::ZERO),
        2 => (0..=1_000_000u64).prop_map(Duration::from_secs),
        4 => (0..=1_000_000_000_000_000u64).prop_map(Duration::from_nanos),
    ]
}

/// max_delay from `base` up to `Duration::MAX`.
fn max_delay(base: Duration) -> impl PropStrategy<Value = Duration> {
    prop_oneof![
        1 => Just(base),
        3 => (0..=1_000_000_000_000_000u64).prop_map(move |extra| base + Duration::from_nanos(extra)),
        1 => (0..=u32::MAX).prop_map(move |factor| base.saturating_mul(factor)),
        1 => (any::<u64>(), 0..1_000_000_000u32).prop_map(move |(s, n)| Duration::new(s, n).max(base)),
        1 => Just(Duration::MAX),
    ]
}

fn multiplier() -> impl PropStrategy<Value = f64> {
    prop_oneof![1 => Just(1.0), 1 => Just(2.0), 4 => 1.0..=10.0f64]
}

fn factor() -> impl PropStrategy<Value = f64> {
    prop_oneof![1 => Just(0.0), 1 => Just(1.0), 4 => 0.0..=1.0f64]
}

fn granularity() -> impl PropStrategy<Value = Option<Duration>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(Duration::from_millis(1))),
        1 => (1..=10_000_000_000u64).prop_map(|n| Some(Duration::from_nanos(n))),
    ]
}

#[derive(Debug, Clone)]
struct Params {
    base: Duration,
    max_delay: Duration,
    multiplier: f64,
    factor: f64,
    max_attempts: u32,
    granularity: Option<Duration>,
    seed: u64,
}

fn params() -> impl PropStrategy<Value = Params> {
    base().prop_flat_map(|base| {
        (max_delay(base), multiplier(), factor(), 1..=50u32, granularity(), any::<u64>()).prop_map(
            move |(max_delay, multiplier, factor, max_attempts, granularity, seed)| Params {
                base,
                max_delay,
                multiplier,
                factor,
                max_attempts,
                granularity,
                seed,
            },
        )
    })
}

impl Params {
    fn backoff(&self, strategy: Strategy, cap_mode: CapMode) -> Backoff {
        let builder = Backoff::builder(strategy)
            .with_base(self.base)
            .with_max_delay(self.max_delay)
            .with_multiplier(self.multiplier)
            .with_factor(self.factor)
            .with_cap_mode(cap_mode)
            .with_max_attempts(self.max_attempts);
        let builder = match self.granularity {
            Some(step) => builder.with_granularity(step),
            None => builder,
        };
        builder.build().expect("generated parameters are valid")
    }
}

/// `max_delay * (1 + f)` in float nanoseconds, computed here rather than
/// asked of the library.
fn interval_ceiling_ns(max_delay: Duration, factor: f64) -> f64 {
    nanos(max_delay) as f64 * (1.0 + factor)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn every_delay_lies_within_its_bounds_and_under_the_cap(p in params()) {
        for strategy in Strategy::ALL {
            for cap_mode in [CapMode::Delay, CapMode::Interval] {
                let backoff = p.backoff(strategy, cap_mode);
                let what = format!("{strategy}/{cap_mode}");
                let delays: Vec<Duration> = backoff.delays_seeded(p.seed).collect();
                let bounds: Vec<_> = backoff.bounds().collect();
                let retries = p.max_attempts as usize - 1;
                prop_assert_eq!(delays.len(), retries, "{}: delays", what);
                prop_assert_eq!(bounds.len(), retries, "{}: bounds", what);

                for (i, (delay, bound)) in delays.iter().zip(&bounds).enumerate() {
                    let retry = i as u32 + 1;
                    prop_assert_eq!(bound.retry, retry, "{}", what);
                    prop_assert!(
                        bound.min.saturating_sub(ROUNDING) <= *delay
                            && *delay <= bound.max.saturating_add(ROUNDING),
                        "{} retry {}: delay {:?} outside [{:?}, {:?}]",
                        what, retry, delay, bound.min, bound.max
                    );
                    prop_assert!(bound.min <= bound.max, "{} retry {}: {:?}", what, retry, bound);
                    if let Some(median) = bound.median {
                        prop_assert!(
                            bound.min <= median && median <= bound.max,
                            "{} retry {}: {:?}", what, retry, bound
                        );
                    }
                    // The hard cap, and the interval cap for strategies that never pass
                    // their interval: strict, as the library clamps in `Duration`.
                    if cap_mode == CapMode::Delay || !strategy.uses_factor() {
                        prop_assert!(
                            *delay <= p.max_delay,
                            "{} retry {}: delay {:?} > max_delay {:?}",
                            what, retry, delay, p.max_delay
                        );
                        prop_assert!(bound.max <= p.max_delay, "{} retry {}: {:?}", what, retry, bound);
                    } else {
                        let ceiling = interval_ceiling_ns(p.max_delay, p.factor);
                        let delay_ns = nanos(*delay) as f64;
                        // Both sides are float here; allow their rounding (a few ulps) and 1 ns.
                        prop_assert!(
                            delay_ns <= ceiling * (1.0 + 4.0 * f64::EPSILON) + 1.0,
                            "{} retry {}: delay {:?} > max_delay * (1 + f) = {} ns",
                            what, retry, delay, ceiling
                        );
                    }
                    prop_assert!(*delay <= backoff.delay_ceiling(), "{}", what);
                }
            }
        }
    }

    #[test]
    fn size_hint_is_exact_and_bounds_count_as_many_as_delays(p in params(), taken in 0..60usize) {
        for strategy in Strategy::ALL {
            let backoff = p.backoff(strategy, CapMode::Delay);
            let mut delays = backoff.delays_seeded(p.seed);
            delays.by_ref().take(taken).for_each(drop);
            let left = (p.max_attempts as usize - 1).saturating_sub(taken);
            prop_assert_eq!(delays.size_hint(), (left, Some(left)));
            prop_assert_eq!(delays.by_ref().count(), left);
            // `reset` starts over from retry 1, with fresh jitter but the same bounds.
            delays.reset();
            prop_assert_eq!(delays.retry(), 0);
            let again: Vec<Duration> = delays.collect();
            prop_assert_eq!(again.len(), p.max_attempts as usize - 1);
            for (delay, bound) in again.into_iter().zip(backoff.bounds()) {
                prop_assert!(
                    bound.min.saturating_sub(ROUNDING) <= delay && delay <= bound.max.saturating_add(ROUNDING)
                );
            }
            prop_assert_eq!(backoff.bounds().count(), backoff.delays_seeded(p.seed).count());
        }
    }

    #[test]
    fn a_seed_reproduces_its_schedule(p in params()) {
        for strategy in Strategy::ALL {
            let backoff = p.backoff(strategy, CapMode::Delay);
            let once: Vec<Duration> = backoff.delays_seeded(p.seed).collect();
            prop_assert_eq!(&once, &backoff.delays_seeded(p.seed).collect::<Vec<_>>());
            let seeded = backoff.to_builder().with_seed(p.seed).build().unwrap();
            prop_assert_eq!(&once, &seeded.delays().collect::<Vec<_>>());
        }
    }
}
