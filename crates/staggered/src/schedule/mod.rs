//! Schedules: how long to wait before each retry. A [`Strategy`](crate::Strategy)
//! and its parameters make a validated [`Backoff`](crate::Backoff) (or start
//! from a [`Preset`](crate::Preset)); each operation walks its own
//! [`Delays`](crate::Delays). Anything that hands out delays is a [`Schedule`],
//! and schedules compose ([`compose`](crate::compose)).

pub(crate) mod backoff;
pub(crate) mod bounds;
pub(crate) mod by_kind;
pub mod compose;
pub(crate) mod delays;
pub(crate) mod plan;
pub(crate) mod preset;
pub(crate) mod smooth;
pub(crate) mod strategy;

use core::time::Duration;

use crate::classify::Failure;
use compose::{Take, Then, WithFirstDelay};

/// A source of delays for one operation at a time: each call to
/// [`delays`](Schedule::delays) starts over from retry 1.
///
/// [`Backoff`](crate::Backoff) is one (with `std`). So is any cloneable iterator of
/// `Duration`, as in backon: `[a, b, c].into_iter()` retries three times with
/// those waits, and `std::iter::repeat_n(d, 4)` four times.
///
/// Schedules compose: [`with_first_delay`](Schedule::with_first_delay)
/// (Polly's "fast first"), [`then`](Schedule::then) and
/// [`take_retries`](Schedule::take_retries) build a new schedule from whole
/// schedules, so every operation still draws its own jitter; and
/// [`ByKind`](crate::compose::ByKind) waits by the kind of failure.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a schedule of delays",
    label = "not a `Schedule`",
    note = "a `Backoff` (or a `Preset`'s `.backoff()`) is one, and so is any cloneable iterator of `Duration`, \
            such as `[a, b].into_iter()`"
)]
pub trait Schedule {
    /// The delays of one operation: item `r` is the wait before attempt `r + 1`.
    type Delays: Iterator<Item = Duration>;

    /// Starts a fresh sequence of delays.
    fn delays(&self) -> Self::Delays;

    /// The total number of calls this schedule allows, if it says. The
    /// default counts the delays of a fresh sequence, when its length is known.
    fn max_attempts(&self) -> Option<u32> {
        let (_, upper) = self.delays().size_hint();
        upper.map(|retries| u32::try_from(retries).unwrap_or(u32::MAX).saturating_add(1))
    }

    /// The deadline that comes with the schedule, if any.
    fn deadline(&self) -> Option<Duration> {
        None
    }

    /// This schedule for `max_attempts` calls in all: extended by its own
    /// rule or cut. The default cuts (the retry decision stops at the
    /// limit) and refuses to go past a known end, since a fixed list of
    /// delays has nothing more to wait; a [`Backoff`](crate::Backoff) goes
    /// on with its formula, and the combinators extend their last part.
    ///
    /// # Errors
    /// A [`ConfigError`](crate::ConfigError) for 0, or for more attempts than
    /// a schedule that cannot be extended allows.
    fn with_max_attempts(self, max_attempts: u32) -> Result<Self, crate::ConfigError>
    where
        Self: Sized,
    {
        use crate::error::{ConfigError, Field, Rule};
        if max_attempts == 0 {
            return Err(ConfigError::count(Field::MaxAttempts, Rule::AtLeast(1.0), 0));
        }
        match self.max_attempts() {
            Some(own) if max_attempts > own => {
                Err(ConfigError::count(Field::MaxAttempts, Rule::WithinSchedule(own), max_attempts))
            }
            _ => Ok(self),
        }
    }

    /// The longest server hint worth honouring, if the schedule has a view.
    fn max_hint(&self) -> Option<Duration> {
        None
    }

    /// The seed of the jitter a retry decision adds to server hints, for a
    /// reproducible schedule (a seeded [`Backoff`](crate::Backoff)'s seed);
    /// `None` draws it from OS entropy.
    fn hint_seed(&self) -> Option<u64> {
        None
    }

    /// The wait before the next attempt after `failure`, taken from
    /// `delays`. The default ignores the failure and takes the next delay;
    /// [`ByKind`](crate::compose::ByKind) chooses by the failure's kind.
    /// `None` ends the retrying.
    fn next_delay(delays: &mut Self::Delays, failure: &Failure) -> Option<Duration>
    where
        Self: Sized,
    {
        let _ = failure;
        delays.next()
    }

    /// Whether this schedule's delays can start over from retry 1
    /// ([`restart`](Schedule::restart)), which gRPC's retry design asks for
    /// after a server pushback ([`HintPolicy::Pushback`](crate::HintPolicy)).
    /// A [`Backoff`](crate::Backoff) can; a plain iterator cannot (it does
    /// not keep its start), and then the schedule simply goes on; the
    /// combinators can when all their parts can.
    fn restartable() -> bool
    where
        Self: Sized,
    {
        false
    }

    /// Starts `delays` over from retry 1; called only when
    /// [`restartable`](Schedule::restartable). The generator is kept, so the
    /// jitter that follows is new. Delays that have produced nothing are
    /// already at retry 1: restarting them changes nothing.
    fn restart(delays: &mut Self::Delays)
    where
        Self: Sized,
    {
        let _ = delays;
    }

    /// This schedule with `delay` before everything else: one retry more,
    /// the first after `delay` (Polly's "fast first" with zero).
    ///
    /// ```
    /// use std::time::Duration;
    /// use staggered::{Backoff, Schedule, Strategy};
    ///
    /// let backoff = Backoff::builder(Strategy::Exponential)
    ///     .with_base(Duration::from_millis(100))
    ///     .with_max_attempts(4)
    ///     .build()?;
    /// let fast_first = backoff.with_first_delay(Duration::ZERO);
    /// let delays: Vec<_> = fast_first.delays().collect();
    /// assert_eq!(delays, [0, 100, 200, 400].map(Duration::from_millis));
    /// assert_eq!(fast_first.max_attempts(), Some(5));
    /// # Ok::<(), staggered::ConfigError>(())
    /// ```
    fn with_first_delay(self, delay: Duration) -> WithFirstDelay<Self>
    where
        Self: Sized,
    {
        WithFirstDelay::new(delay, self)
    }

    /// This schedule's delays, then `next`'s: the retries of both.
    fn then<B: Schedule>(self, next: B) -> Then<Self, B>
    where
        Self: Sized,
    {
        Then::new(self, next)
    }

    /// At most `retries` delays of this schedule (`retries + 1` attempts).
    fn take_retries(self, retries: u32) -> Take<Self>
    where
        Self: Sized,
    {
        Take::new(self, retries)
    }
}

impl<I> Schedule for I
where
    I: Iterator<Item = Duration> + Clone,
{
    type Delays = I;

    fn delays(&self) -> I {
        self.clone()
    }
}

#[cfg(feature = "std")]
impl Schedule for crate::Backoff {
    type Delays = crate::Delays<crate::FastRng>;

    #[inline]
    fn delays(&self) -> Self::Delays {
        crate::Backoff::delays(self)
    }

    fn max_attempts(&self) -> Option<u32> {
        crate::Backoff::max_attempts(self)
    }

    /// The same schedule with `max_attempts`: its formula goes on.
    fn with_max_attempts(self, max_attempts: u32) -> Result<Self, crate::ConfigError> {
        self.to_builder().with_max_attempts(max_attempts).build()
    }

    /// The schedule's own deadline.
    fn deadline(&self) -> Option<Duration> {
        crate::Backoff::deadline(self)
    }

    /// The largest delay the schedule itself would wait.
    fn max_hint(&self) -> Option<Duration> {
        Some(self.delay_ceiling())
    }

    /// The schedule's own seed, if it has one.
    fn hint_seed(&self) -> Option<u64> {
        self.seed()
    }

    fn restartable() -> bool {
        true
    }

    /// [`Delays::reset`](crate::Delays::reset): retry 1 again, new jitter.
    fn restart(delays: &mut Self::Delays) {
        delays.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count<S: Schedule>(s: &S) -> usize {
        s.delays().count()
    }

    #[test]
    fn iterators_are_schedules() {
        let fixed = [Duration::from_millis(1), Duration::from_millis(2)].into_iter();
        assert_eq!(count(&fixed), 2);
        assert_eq!(count(&fixed), 2, "a schedule starts over each time");
        assert_eq!(count(&core::iter::repeat_n(Duration::ZERO, 4)), 4);
    }
}
