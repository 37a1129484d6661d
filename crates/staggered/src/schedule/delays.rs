//! `Delays`: the iterator that walks one operation's schedule.

use core::time::Duration;

use super::smooth;
use crate::rng::{FastRng, Rng};
use crate::schedule::plan::{min, Plan, Shape};

/// The delays of one operation: item `r` is the wait before attempt `r + 1`
/// (retry `r`). It yields `max_attempts - 1` delays, or never ends when the
/// schedule has no attempt limit. Each call to `next` is a countdown, a few
/// float operations and one draw, with no allocation.
///
/// `Delays` is deliberately not `Clone`: a clone would replay the same
/// jitter, and, as a cloneable iterator, would count as a [`Schedule`](crate::Schedule)
/// that hands every operation the same delays. Start a new one from the
/// [`Backoff`](crate::Backoff) instead.
///
#[derive(Debug)]
pub struct Delays<R = FastRng> {
    plan: Plan,
    rng: R,
    /// Delays produced since the last reset.
    taken: u64,
    /// The interval of the next delay, `x(taken + 1)`, in nanoseconds.
    interval: f64,
    /// `decorrelated`: the previous delay in nanoseconds; `smooth`: the previous draw.
    previous: f64,
    /// How to seed the generator when it is asked for, if it has not been:
    /// delays without jitter never read it, so a schedule's own generator
    /// is seeded only if [`into_rng`](Delays::into_rng) takes it.
    seed_later: Option<fn() -> R>,
}

impl<R: Rng> Delays<R> {
    #[inline]
    pub(crate) fn new(plan: Plan, rng: R) -> Self {
        Delays { plan, rng, taken: 0, interval: plan.first, previous: plan.base, seed_later: None }
    }

    /// Delays drawing from `rng`, or, with `seed_later` (only for a plan
    /// without jitter, which never draws), from the generator `seed_later`
    /// makes when it is asked for; `rng` then only fills the place.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn with_seed_later(plan: Plan, rng: R, seed_later: Option<fn() -> R>) -> Self {
        debug_assert!(seed_later.is_none() || !plan.jittered());
        Delays { plan, rng, taken: 0, interval: plan.first, previous: plan.base, seed_later }
    }
}

impl<R: Rng> Delays<R> {
    /// Starts the schedule over from retry 1, as google-http-java-client's
    /// `ExponentialBackOff.reset()` does.
    /// The generator is not reseeded, so the next run draws new jitter.
    pub fn reset(&mut self) {
        self.taken = 0;
        self.interval = self.plan.first;
        self.previous = self.plan.base;
    }

    /// How many delays this iterator has produced since the last reset
    /// (saturating at `u32::MAX`).
    pub fn retry(&self) -> u32 {
        u32::try_from(self.taken).unwrap_or(u32::MAX)
    }

    /// The delay `taken` of a shape other than constant: a few float
    /// operations and one draw. Only the linear shapes read the interval
    /// (the others neither grow nor keep it).
    #[inline]
    fn draw(&mut self) -> Duration {
        let p = &self.plan;
        let ns = match p.shape {
            Shape::Constant(base) => return base,
            Shape::Linear { a, b } => {
                let x = self.interval;
                self.interval = p.next_interval(x);
                min(x * (a + b * self.rng.next_f64()), p.delay_cap)
            }
            Shape::Decorrelated => {
                let upper = 3.0 * self.previous;
                let d = min(p.base + (upper - p.base) * self.rng.next_f64(), p.max);
                self.previous = d;
                d
            }
            Shape::Smooth { last_retry } => {
                let u = self.rng.next_f64();
                let retry = u32::try_from(self.taken).unwrap_or(u32::MAX).min(last_retry);
                let d = smooth::delay(retry, u, self.previous, p.base);
                self.previous = u;
                min(d, p.max)
            }
        };
        p.duration_of(ns)
    }

    /// The generator, to reuse its state elsewhere.
    pub fn into_rng(self) -> R {
        match self.seed_later {
            Some(seed) => seed(),
            None => self.rng,
        }
    }
}

impl<R: Rng> Iterator for Delays<R> {
    type Item = Duration;

    // A countdown and, for a constant delay, a copy; the other shapes draw
    // in `draw`.
    #[inline]
    fn next(&mut self) -> Option<Duration> {
        if self.taken >= self.plan.delays {
            return None;
        }
        self.taken += 1;
        match self.plan.shape {
            Shape::Constant(base) => Some(base),
            _ => Some(self.draw()),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let delays = self.plan.delays;
        let left = delays - self.taken;
        match usize::try_from(left) {
            Ok(left) if delays != u64::MAX => (left, Some(left)),
            _ => (usize::MAX, None),
        }
    }
}

impl<R: Rng> core::iter::FusedIterator for Delays<R> {}
