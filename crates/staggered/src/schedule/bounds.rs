//! The theoretical range of each retry's delay, as in the table of
//! google-http-java-client's `ExponentialBackOff` documentation.

use core::time::Duration;

use super::smooth;
use crate::math::from_nanos;
use crate::{Backoff, CapMode, Strategy};

/// What a schedule can produce for one retry: its deterministic interval
/// `x(r)` and the smallest, median and largest delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryBounds {
    /// The retry, from 1: the wait before attempt `retry + 1`.
    pub retry: u32,
    /// The interval `x(r)` after the cap (for `decorrelated`, the upper end
    /// `min(max_delay, base * 3^r)`; for `smooth`, its nominal median, `base`
    /// at retry 1 and `base * 2^(r-2)` after, frozen once it saturates).
    pub interval: Duration,
    /// The smallest possible delay.
    pub min: Duration,
    /// The median delay, where it has a closed form: every strategy but
    /// `decorrelated`, whose delay depends on the whole chain, and `smooth`
    /// after its first retry.
    pub median: Option<Duration>,
    /// The largest possible delay.
    pub max: Duration,
}

/// The [`RetryBounds`] of each retry, in order; see [`Backoff::bounds`].
#[derive(Debug, Clone)]
pub struct Bounds {
    backoff: Backoff,
    retry: u32,
    interval: f64,
    decorrelated_upper: f64,
}

impl Backoff {
    /// The theoretical bounds of each retry's delay, one item per retry, as
    /// many as [`delays`](Backoff::delays) yields.
    pub fn bounds(&self) -> Bounds {
        Bounds { backoff: *self, retry: 0, interval: 0.0, decorrelated_upper: self.base_ns }
    }
}

impl Iterator for Bounds {
    type Item = RetryBounds;

    fn next(&mut self) -> Option<RetryBounds> {
        let b = self.backoff;
        if let Some(max) = b.max_attempts {
            if self.retry >= max.get() - 1 {
                return None;
            }
        }
        self.retry = self.retry.saturating_add(1);
        let first = self.retry == 1;
        self.interval = if first { b.plan.first } else { b.plan.next_interval(self.interval) };
        let x = self.interval;
        let f = b.factor;
        let (interval, min, median, max) = match b.strategy {
            Strategy::Constant => (b.base_ns, b.base_ns, Some(b.base_ns), b.base_ns),
            Strategy::Exponential => (x, x, Some(x), x),
            Strategy::Full => (x, 0.0, Some(0.5 * x), x),
            Strategy::Equal => (x, 0.5 * x, Some(0.75 * x), x),
            Strategy::Decorrelated => {
                self.decorrelated_upper = (3.0 * self.decorrelated_upper).min(b.max_ns);
                let upper = self.decorrelated_upper;
                (upper, b.base_ns.min(upper), None, upper)
            }
            Strategy::Proportional => (x, x * (1.0 - f), Some(x), x * (1.0 + f)),
            Strategy::Additive => (x, x, Some(x * (1.0 + 0.5 * f)), x * (1.0 + f)),
            Strategy::Smooth => {
                let last = match b.plan.shape {
                    crate::schedule::plan::Shape::Smooth { last_retry } => last_retry,
                    _ => u32::MAX,
                };
                let retry = self.retry.min(last);
                let median = (retry == 1).then(|| smooth::median_first(b.base_ns).min(b.max_ns));
                let max = smooth::max_delay(retry, b.base_ns).min(b.max_ns);
                (smooth::nominal_median(retry, b.base_ns).min(b.max_ns), 0.0, median, max)
            }
        };
        let cap = |ns: f64| {
            if b.cap_mode == CapMode::Delay && b.strategy != Strategy::Constant {
                ns.min(b.max_ns)
            } else {
                ns
            }
        };
        // As in `Delays::next`: past 2^53 ns the float cap is inexact, so
        // clamp again where it is exact.
        let ceiling = b.delay_ceiling();
        let to_duration = |ns: f64| from_nanos(cap(ns)).min(ceiling);
        if b.strategy == Strategy::Constant {
            // `base` itself, not its round trip through f64.
            let base = b.base;
            return Some(RetryBounds {
                retry: self.retry,
                interval: base,
                min: base,
                median: Some(base),
                max: base,
            });
        }
        Some(RetryBounds {
            retry: self.retry,
            interval: from_nanos(interval).min(b.max_delay),
            min: to_duration(min),
            median: median.map(to_duration),
            max: to_duration(max),
        })
    }
}

impl core::iter::FusedIterator for Bounds {}
