//! `Plan`: a schedule compiled at build time into exactly what producing a
//! delay reads, so `Delays::next` is a countdown, one multiply-add, one draw
//! and one compare, with no per-delay branch on the strategy or cap mode for
//! the common strategies.

use core::time::Duration;

use crate::math::{self, to_nanos};
use crate::{Backoff, CapMode, Strategy};

/// How a delay is drawn from the interval `x` and a uniform `u`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shape {
    /// `x * (a + b*u)`: exponential, full, equal, proportional, additive.
    Linear { a: f64, b: f64 },
    /// `base` itself, exactly (no round trip through f64).
    Constant(Duration),
    /// `min(max_delay, U[base, 3 * previous])`.
    Decorrelated,
    /// Polly's formula, growing no further than `last_retry`.
    Smooth { last_retry: u32 },
}

/// The exact ceiling on every delay, also in integer nanoseconds for the
/// common path: float nanoseconds round past 2^53 ns (104 days), so the
/// float cap alone is not exact there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ceiling {
    pub(crate) duration: Duration,
    /// `duration` in nanoseconds, or `u64::MAX` if it is longer.
    pub(crate) nanos: u64,
}

/// Everything `Delays` reads, computed once by `BackoffBuilder::build`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub(crate) shape: Shape,
    /// `x(1)`, in nanoseconds.
    pub(crate) first: f64,
    pub(crate) multiplier: f64,
    pub(crate) interval_cap: f64,
    /// Interval truncation step in nanoseconds, 0 for none.
    pub(crate) granularity: f64,
    /// `max_delay` in the default cap mode; infinite in `CapMode::Interval`.
    pub(crate) delay_cap: f64,
    pub(crate) base: f64,
    pub(crate) max: f64,
    /// Delays in one sequence: `max_attempts - 1`, or `u64::MAX` for no limit.
    pub(crate) delays: u64,
    pub(crate) ceiling: Ceiling,
}

impl Plan {
    /// A placeholder, replaced as soon as the `Backoff` it belongs to exists.
    pub(crate) const ZERO: Plan = Plan {
        shape: Shape::Linear { a: 0.0, b: 0.0 },
        first: 0.0,
        multiplier: 1.0,
        interval_cap: 0.0,
        granularity: 0.0,
        delay_cap: 0.0,
        base: 0.0,
        max: 0.0,
        delays: 0,
        ceiling: Ceiling { duration: Duration::ZERO, nanos: 0 },
    };

    /// Compiles a validated schedule.
    pub(crate) fn new(b: &Backoff) -> Plan {
        let f = b.factor;
        let shape = match b.strategy {
            Strategy::Constant => Shape::Constant(b.base),
            Strategy::Exponential => Shape::Linear { a: 1.0, b: 0.0 },
            Strategy::Full => Shape::Linear { a: 0.0, b: 1.0 },
            Strategy::Equal => Shape::Linear { a: 0.5, b: 0.5 },
            Strategy::Proportional => Shape::Linear { a: 1.0 - f, b: 2.0 * f },
            Strategy::Additive => Shape::Linear { a: 1.0, b: f },
            Strategy::Decorrelated => Shape::Decorrelated,
            Strategy::Smooth => Shape::Smooth {
                last_retry: crate::schedule::smooth::last_uncapped_retry(b.base_ns, b.max_ns),
            },
        };
        let ceiling = if b.cap_mode == CapMode::Interval && b.strategy.uses_factor() {
            math::from_nanos(b.max_ns * (1.0 + f))
        } else if b.strategy == Strategy::Constant {
            b.base
        } else {
            b.max_delay
        };
        let mut plan = Plan {
            shape,
            first: 0.0,
            multiplier: b.multiplier,
            interval_cap: b.interval_cap_ns,
            granularity: b.granularity_ns,
            delay_cap: if b.cap_mode == CapMode::Delay { b.max_ns } else { f64::INFINITY },
            base: b.base_ns,
            max: b.max_ns,
            delays: b.max_attempts.map_or(u64::MAX, |n| u64::from(n.get()) - 1),
            ceiling: Ceiling {
                duration: ceiling,
                nanos: u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX),
            },
        };
        plan.first = min(plan.truncate(to_nanos(b.base)), plan.interval_cap);
        plan
    }

    /// Whether a delay depends on the draws: not for a constant delay, nor
    /// for a linear shape without jitter (`x * (a + 0 * u)` is `x * a`).
    #[cfg(feature = "std")]
    pub(crate) fn jittered(&self) -> bool {
        match self.shape {
            Shape::Constant(_) => false,
            Shape::Linear { b, .. } => b != 0.0,
            Shape::Decorrelated | Shape::Smooth { .. } => true,
        }
    }

    /// `x(r+1)` from `x(r)`: multiply, truncate to the granularity, cap. The
    /// cap absorbs an infinite product, so nothing overflows at any retry.
    #[inline]
    pub(crate) fn next_interval(&self, x: f64) -> f64 {
        min(self.truncate(x * self.multiplier), self.interval_cap)
    }

    #[inline]
    fn truncate(&self, ns: f64) -> f64 {
        // An infinite `ns` stays infinite through `trunc`; the cap absorbs it.
        if self.granularity > 0.0 {
            math::trunc(ns / self.granularity) * self.granularity
        } else {
            ns
        }
    }

    /// Float nanoseconds to a `Duration` no longer than the ceiling. NaN and
    /// negatives give zero; the common case is one conversion and one
    /// integer compare.
    #[inline]
    pub(crate) fn duration_of(&self, ns: f64) -> Duration {
        const I64_LIMIT: f64 = 9_223_372_036_854_775_807.0;
        if ns < I64_LIMIT {
            // Through i64: below its limit the conversion is exact, and cheaper.
            let n = (if ns > 0.0 { ns } else { 0.0 }) as i64 as u64;
            Duration::from_nanos(if n < self.ceiling.nanos { n } else { self.ceiling.nanos })
        } else if ns >= I64_LIMIT {
            math::from_nanos(ns).min(self.ceiling.duration)
        } else {
            Duration::ZERO
        }
    }
}

/// `min` of values that are never NaN (validated at build time): one
/// compare-and-select, not `f64::min`'s NaN handling.
#[inline]
pub(crate) fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}
