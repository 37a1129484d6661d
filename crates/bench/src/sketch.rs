//! A sketch of a leaner `Delays` for staggered, to put numbers on the
//! suggested library changes. **Not the library**: the bench only times it
//! next to the real thing (`--sketch`, `callgrind.sh sketch-full`), and its
//! delays follow the same formulas, drawn from the same generator
//! ([`FastRng`], seeded from entropy per sequence).
//!
//! What it changes against `staggered::Delays` (delays.rs, backoff.rs, math.rs):
//! - the iterator holds only what `next` reads (96 bytes), not a copy of the
//!   whole `Backoff` (`Delays` is 168 bytes, copied twice per `delays()`
//!   with `memcpy`);
//! - the exact `Duration` ceiling is computed once, not by an out-of-line
//!   `Backoff::delay_ceiling()` call (a float-to-`Duration` conversion) per delay;
//! - `delays()` is `#[inline]`, so it is not an out-of-line call per operation;
//! - a countdown of the delays left replaces the `Option<NonZeroU32>` limit
//!   test and the saturating retry counter;
//! - `x(r+1)` is computed after `x(r)` is used, so there is no `retry == 1` branch;
//! - every linear strategy is one formula, `x * (a + b * u)` with `(a, b)`
//!   fixed at build time, instead of a `match` on the strategy per delay,
//!   and the cap mode becomes a precomputed bound (infinite for `interval`)
//!   instead of a second `match`;
//! - `min` of values that cannot be NaN is one `minsd`, not `f64::min`'s
//!   NaN-aware sequence;
//! - the float-to-integer conversion goes through `i64` (one `cvttsd2si`)
//!   under the range check already needed for huge delays, instead of
//!   Rust's saturating `as u64`.

use std::time::Duration;

use staggered::{CapMode, FastRng, Rng, Strategy};

/// The part of a `Backoff` that producing delays needs, for the linear
/// strategies (`constant`, `exponential`, `full`, `equal`, `proportional`,
/// `additive`); `decorrelated` and `smooth` would keep their own branch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SketchBackoff {
    plan: Plan,
    seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Plan {
    /// `x(1)`, in nanoseconds.
    first: f64,
    multiplier: f64,
    interval_cap: f64,
    /// The delay is `x * (a + b * u)`, `u` uniform in `[0, 1)`.
    a: f64,
    b: f64,
    /// `max_delay` in the default cap mode; infinite in `CapMode::Interval`.
    delay_cap: f64,
    /// Interval truncation step, 0 for none.
    granularity: f64,
    /// Delays in one sequence; `u64::MAX` for no attempt limit.
    delays: u64,
    /// `Backoff::delay_ceiling`, computed once: the exact cap that staggered
    /// applies again after the float one (which is inexact past 2^53 ns).
    ceiling: Ceiling,
}

/// The exact ceiling, also as integer nanoseconds for the common path.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ceiling {
    duration: Duration,
    /// `duration` in nanoseconds, `u64::MAX` if it is longer.
    nanos: u64,
}

impl Ceiling {
    fn new(duration: Duration) -> Self {
        Ceiling { duration, nanos: u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX) }
    }
}

impl SketchBackoff {
    /// The plan of a validated staggered schedule, or `None` for
    /// `decorrelated` and `smooth`, which this sketch leaves out.
    pub fn from_backoff(backoff: &staggered::Backoff) -> Option<Self> {
        let f = backoff.factor();
        let (a, b) = match backoff.strategy() {
            Strategy::Constant | Strategy::Exponential => (1.0, 0.0),
            Strategy::Full => (0.0, 1.0),
            Strategy::Equal => (0.5, 0.5),
            Strategy::Proportional => (1.0 - f, 2.0 * f),
            Strategy::Additive => (1.0, f),
            _ => return None,
        };
        let nanos = |d: Duration| d.as_secs_f64() * 1e9;
        let max = nanos(backoff.max_delay());
        let uses_factor = matches!(backoff.strategy(), Strategy::Proportional | Strategy::Additive);
        let interval_cap =
            if backoff.cap_mode() == CapMode::Delay && uses_factor { max / (1.0 + f) } else { max };
        let constant = backoff.strategy() == Strategy::Constant;
        let granularity = backoff.granularity().map_or(0.0, nanos);
        let plan = Plan {
            first: 0.0,
            // `constant` is an interval that never grows and never caps.
            multiplier: if constant { 1.0 } else { backoff.multiplier() },
            interval_cap: if constant { f64::INFINITY } else { interval_cap },
            a,
            b,
            delay_cap: if backoff.cap_mode() == CapMode::Delay && !constant { max } else { f64::INFINITY },
            granularity,
            delays: backoff.max_attempts().map_or(u64::MAX, |n| u64::from(n) - 1),
            ceiling: Ceiling::new(backoff.delay_ceiling()),
        };
        let first = min(truncate(nanos(backoff.base()), granularity), plan.interval_cap);
        Some(SketchBackoff { plan: Plan { first, ..plan }, seed: backoff.seed() })
    }

    /// The delays of one operation, seeded like `staggered::Backoff::delays`.
    #[inline]
    pub fn delays(&self) -> SketchDelays {
        let rng = match self.seed {
            Some(seed) => FastRng::seed(seed),
            None => FastRng::from_entropy(),
        };
        let p = &self.plan;
        SketchDelays {
            interval: p.first,
            multiplier: p.multiplier,
            interval_cap: p.interval_cap,
            a: p.a,
            b: p.b,
            delay_cap: p.delay_cap,
            granularity: p.granularity,
            left: p.delays,
            ceiling: p.ceiling,
            rng,
        }
    }
}

/// The sketched iterator: 96 bytes, everything `next` reads and nothing else.
#[derive(Debug, Clone)]
pub struct SketchDelays {
    interval: f64,
    multiplier: f64,
    interval_cap: f64,
    a: f64,
    b: f64,
    delay_cap: f64,
    granularity: f64,
    left: u64,
    ceiling: Ceiling,
    rng: FastRng,
}

impl Iterator for SketchDelays {
    type Item = Duration;

    #[inline]
    fn next(&mut self) -> Option<Duration> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let x = self.interval;
        self.interval = min(truncate(x * self.multiplier, self.granularity), self.interval_cap);
        let u = self.rng.next_f64();
        Some(from_nanos(min(x * (self.a + self.b * u), self.delay_cap), self.ceiling))
    }
}

/// `min` for values that are never NaN (validated at build time): one `minsd`.
#[inline]
fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

#[inline]
fn truncate(ns: f64, step: f64) -> f64 {
    // An infinite `ns` stays infinite, and the cap absorbs it.
    if step > 0.0 {
        (ns / step).trunc() * step
    } else {
        ns
    }
}

/// Float nanoseconds to `Duration`, at most `ceiling`, saturating like
/// staggered's: NaN and negatives give zero. The exact cap costs one integer
/// `min` on the common path, where the delay fits in `i64` nanoseconds.
#[inline]
fn from_nanos(ns: f64, ceiling: Ceiling) -> Duration {
    const I64_LIMIT: f64 = 9_223_372_036_854_775_807.0;
    if ns < I64_LIMIT {
        // Through i64 (one `cvttsd2si`): x86 has no float-to-u64 instruction.
        let n = if ns > 0.0 { ns } else { 0.0 } as i64 as u64;
        Duration::from_nanos(n.min(ceiling.nanos))
    } else if ns >= I64_LIMIT {
        Duration::try_from_secs_f64(ns / 1e9).unwrap_or(Duration::MAX).min(ceiling.duration)
    } else {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(strategy: Strategy, cap_mode: CapMode) -> (staggered::Backoff, SketchBackoff) {
        let backoff = staggered::Backoff::builder(strategy)
            .with_base(Duration::from_millis(100))
            .with_max_delay(Duration::from_secs(10))
            .with_cap_mode(cap_mode)
            .with_max_attempts(20)
            .with_seed(7)
            .build()
            .unwrap();
        (backoff, SketchBackoff::from_backoff(&backoff).unwrap())
    }

    #[test]
    fn draws_the_same_delays_as_staggered() {
        for strategy in [
            Strategy::Constant,
            Strategy::Exponential,
            Strategy::Full,
            Strategy::Equal,
            Strategy::Proportional,
            Strategy::Additive,
        ] {
            for cap_mode in [CapMode::Delay, CapMode::Interval] {
                let (backoff, sketch) = both(strategy, cap_mode);
                let ours: Vec<Duration> = backoff.delays().collect();
                let sketched: Vec<Duration> = sketch.delays().collect();
                assert_eq!(ours.len(), sketched.len());
                let most = ours.iter().zip(&sketched).map(|(a, b)| a.abs_diff(*b)).max();
                // Same draws. The formulas group the float operations differently,
                // which can move a delay by a nanosecond (with seed 7 none moves).
                assert!(
                    most <= Some(Duration::from_nanos(2)),
                    "{strategy} {cap_mode}: {ours:?} vs {sketched:?}"
                );
            }
        }
    }

    #[test]
    fn truncates_to_the_granularity_like_staggered() {
        let backoff = staggered::Backoff::builder(Strategy::Proportional)
            .with_base(Duration::from_millis(500))
            .with_multiplier(1.5)
            .with_granularity(Duration::from_millis(1))
            .with_max_attempts(30)
            .with_seed(3)
            .build()
            .unwrap();
        let sketch = SketchBackoff::from_backoff(&backoff).unwrap();
        for (a, b) in backoff.delays().zip(sketch.delays()) {
            assert_eq!(a, b);
        }
    }

    #[test]
    fn huge_delays_saturate() {
        let max = Ceiling::new(Duration::MAX);
        let three = Ceiling::new(Duration::from_secs(3));
        assert_eq!(from_nanos(f64::INFINITY, max), Duration::MAX);
        assert_eq!(from_nanos(f64::NAN, max), Duration::ZERO);
        assert_eq!(from_nanos(-5.0, max), Duration::ZERO);
        assert_eq!(from_nanos(2e19, max), Duration::from_secs(20_000_000_000));
        assert_eq!(from_nanos(1e10, max), Duration::from_secs(10));
        assert_eq!(from_nanos(1e10, three), Duration::from_secs(3));
        assert_eq!(from_nanos(f64::INFINITY, three), Duration::from_secs(3));
    }
}
