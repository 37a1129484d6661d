//! `Delays`: the iterator that walks one operation's schedule.

use core::time::Duration;

use crate::math::from_nanos;
use crate::rng::{FastRng, Rng};
use crate::{smooth, Backoff, CapMode, Strategy};

/// The delays of one operation: item `r` is the wait before attempt `r + 1`
/// (retry `r`). It yields `max_attempts - 1` delays, or never ends when the
/// schedule has no attempt limit. Each call to `next` is a few float
/// operations and one draw, with no allocation.
///
/// `Delays` is deliberately not `Clone`: a clone would replay the same
/// jitter, and, as a cloneable iterator, would count as a [`Schedule`](crate::Schedule)
/// that hands every operation the same delays. Start a new one from the
/// [`Backoff`] instead.
#[derive(Debug)]
pub struct Delays<R = FastRng> {
    backoff: Backoff,
    rng: R,
    /// Retries produced so far; saturates at `u32::MAX` when unlimited.
    retry: u32,
    /// `x(retry)`, in nanoseconds.
    interval: f64,
    /// `decorrelated`: `d(retry)` in nanoseconds; `smooth`: the previous draw.
    previous: f64,
}

impl<R: Rng> Delays<R> {
    pub(crate) fn new(backoff: Backoff, rng: R) -> Self {
        let mut delays = Delays { backoff, rng, retry: 0, interval: 0.0, previous: 0.0 };
        delays.reset();
        delays
    }

    /// Starts the schedule over from retry 1, as seed 002's `reset()` does.
    /// The generator is not reseeded, so the next run draws new jitter.
    pub fn reset(&mut self) {
        self.retry = 0;
        self.interval = 0.0;
        self.previous = self.backoff.base_ns;
    }

    /// How many delays this iterator has produced since the last reset.
    pub const fn retry(&self) -> u32 {
        self.retry
    }

    /// The schedule being walked.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// The generator, to reuse its state elsewhere.
    pub fn into_rng(self) -> R {
        self.rng
    }

    /// The delay for the next retry in nanoseconds, advancing the state.
    #[inline]
    fn next_nanos(&mut self) -> f64 {
        let b = &self.backoff;
        self.interval = if self.retry == 1 { b.first_interval() } else { b.next_interval(self.interval) };
        let x = self.interval;
        let delay = match b.strategy {
            Strategy::Constant => return b.base_ns,
            Strategy::Exponential => return x,
            Strategy::Full => x * self.rng.next_f64(),
            Strategy::Equal => 0.5 * x + 0.5 * x * self.rng.next_f64(),
            Strategy::Decorrelated => {
                let upper = 3.0 * self.previous;
                let d = (b.base_ns + (upper - b.base_ns) * self.rng.next_f64()).min(b.max_ns);
                self.previous = d;
                d
            }
            Strategy::Proportional => x * (1.0 - b.factor) + 2.0 * b.factor * x * self.rng.next_f64(),
            Strategy::Additive => x + b.factor * x * self.rng.next_f64(),
            Strategy::Smooth => {
                let u = self.rng.next_f64();
                let retry = self.retry.min(b.smooth_last_retry);
                let d = smooth::delay(retry, u, self.previous, b.base_ns);
                self.previous = u;
                return d.min(b.max_ns);
            }
        };
        // The formulas already stay under the cap; this only absorbs float
        // rounding at the edge of the range.
        match b.cap_mode {
            CapMode::Delay => delay.min(b.max_ns),
            CapMode::Interval => delay,
        }
    }
}

impl<R: Rng> Iterator for Delays<R> {
    type Item = Duration;

    #[inline]
    fn next(&mut self) -> Option<Duration> {
        if let Some(max) = self.backoff.max_attempts {
            if self.retry >= max.get() - 1 {
                return None;
            }
        }
        self.retry = self.retry.saturating_add(1);
        // Float nanoseconds hold a `Duration` exactly only below 2^53 ns (104
        // days); past that `max_delay` itself rounds, up as often as down, so
        // the cap is applied once more where it is exact.
        let delay = from_nanos(self.next_nanos()).min(self.backoff.delay_ceiling());
        // `constant` is `base` itself, not its round trip through f64.
        Some(if self.backoff.strategy == Strategy::Constant { self.backoff.base } else { delay })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.backoff.max_attempts {
            Some(max) => {
                let left = (max.get() - 1).saturating_sub(self.retry) as usize;
                (left, Some(left))
            }
            None => (usize::MAX, None),
        }
    }
}

impl<R: Rng> core::iter::FusedIterator for Delays<R> {}
