//! Schedules built from schedules: a first delay before another schedule
//! (Polly's "fast first"), one schedule after another, the first `n` retries
//! of one, and waits chosen by the kind of failure ([`ByKind`]).
//!
//! They compose whole [`Schedule`]s, not iterators of delays: each operation
//! asks every part for fresh [`Delays`](crate::Delays), with its own
//! generator, so no two operations replay the same jitter. (That is also
//! why `Delays` is not `Clone`, and why `once(ZERO).chain(backoff.delays())`
//! is not a schedule: it would hand every operation the same draws.)
//!
//! ```
//! use std::time::Duration;
//! use staggered::{Backoff, Schedule, Strategy};
//!
//! let ms = Duration::from_millis;
//! let backoff = Backoff::builder(Strategy::Exponential).with_base(ms(100)).with_max_attempts(10).build()?;
//! // Retry at once, then twice on a fixed 50 ms, then back off; 6 retries in all.
//! let schedule = [ms(50), ms(50)].into_iter().then(backoff).with_first_delay(Duration::ZERO).take_retries(6);
//! let delays: Vec<Duration> = schedule.delays().collect();
//! assert_eq!(delays, [0, 50, 50, 100, 200, 400].map(ms));
//! assert_eq!(schedule.max_attempts(), Some(7));
//! # Ok::<(), staggered::ConfigError>(())
//! ```

use core::time::Duration;

use super::Schedule;
use crate::classify::Failure;

pub use super::by_kind::{ByKind, KindDelays};

/// The larger of two limits where `None` means "no limit".
pub(crate) fn unbounded_max(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    Some(a?.max(b?))
}

/// The earlier of two deadlines, either being optional.
pub(crate) fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The larger of two views of the longest hint worth honouring, either
/// being optional.
pub(crate) fn widest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// A schedule with one more delay before all of its own; see
/// [`Schedule::with_first_delay`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WithFirstDelay<S> {
    first: Duration,
    rest: S,
}

impl<S> WithFirstDelay<S> {
    /// `first`, then the delays of `rest`.
    pub const fn new(first: Duration, rest: S) -> Self {
        WithFirstDelay { first, rest }
    }
}

/// The delays of a [`WithFirstDelay`].
#[derive(Debug)]
pub struct FirstThenDelays<D> {
    first: Option<Duration>,
    initial: Duration,
    rest: D,
}

impl<D: Iterator<Item = Duration>> Iterator for FirstThenDelays<D> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        self.first.take().or_else(|| self.rest.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.rest.size_hint();
        let extra = usize::from(self.first.is_some());
        (low.saturating_add(extra), high.and_then(|high| high.checked_add(extra)))
    }
}

impl<S: Schedule> Schedule for WithFirstDelay<S> {
    type Delays = FirstThenDelays<S::Delays>;

    fn delays(&self) -> Self::Delays {
        FirstThenDelays { first: Some(self.first), initial: self.first, rest: self.rest.delays() }
    }

    fn max_attempts(&self) -> Option<u32> {
        self.rest.max_attempts().map(|attempts| attempts.saturating_add(1))
    }

    /// The first delay, then `rest` extended or cut to the retries left.
    fn with_max_attempts(self, max_attempts: u32) -> Result<Self, crate::ConfigError> {
        if max_attempts == 0 {
            return Err(crate::ConfigError::count(crate::Field::MaxAttempts, crate::Rule::AtLeast(1.0), 0));
        }
        let rest = self.rest.with_max_attempts(max_attempts.saturating_sub(1).max(1))?;
        Ok(WithFirstDelay { first: self.first, rest })
    }

    fn deadline(&self) -> Option<Duration> {
        self.rest.deadline()
    }

    fn max_hint(&self) -> Option<Duration> {
        self.rest.max_hint()
    }

    fn hint_seed(&self) -> Option<u64> {
        self.rest.hint_seed()
    }

    fn next_delay(delays: &mut Self::Delays, failure: &Failure) -> Option<Duration> {
        delays.first.take().or_else(|| S::next_delay(&mut delays.rest, failure))
    }

    fn restartable() -> bool {
        S::restartable()
    }

    fn restart(delays: &mut Self::Delays) {
        S::restart(&mut delays.rest);
        delays.first = Some(delays.initial);
    }
}

/// One schedule after another; see [`Schedule::then`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Then<A, B> {
    first: A,
    second: B,
}

impl<A, B> Then<A, B> {
    /// The delays of `first`, then those of `second`.
    pub const fn new(first: A, second: B) -> Self {
        Then { first, second }
    }
}

/// The delays of a [`Then`].
#[derive(Debug)]
pub struct ThenDelays<A, B> {
    first: A,
    second: B,
    in_second: bool,
}

impl<A: Iterator<Item = Duration>, B: Iterator<Item = Duration>> Iterator for ThenDelays<A, B> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        if !self.in_second {
            match self.first.next() {
                Some(delay) => return Some(delay),
                None => self.in_second = true,
            }
        }
        self.second.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.second.size_hint();
        if self.in_second {
            return (low, high);
        }
        let (first_low, first_high) = self.first.size_hint();
        let high = match (first_high, high) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
        (first_low.saturating_add(low), high)
    }
}

impl<A: Schedule, B: Schedule> Schedule for Then<A, B> {
    type Delays = ThenDelays<A::Delays, B::Delays>;

    fn delays(&self) -> Self::Delays {
        ThenDelays { first: self.first.delays(), second: self.second.delays(), in_second: false }
    }

    /// The retries of both, and the first attempt.
    fn max_attempts(&self) -> Option<u32> {
        let retries = |attempts: u32| attempts.saturating_sub(1);
        let (a, b) = (self.first.max_attempts()?, self.second.max_attempts()?);
        Some(retries(a).saturating_add(retries(b)).saturating_add(1))
    }

    /// The first schedule, then the second extended to the retries left.
    fn with_max_attempts(self, max_attempts: u32) -> Result<Self, crate::ConfigError> {
        if max_attempts == 0 {
            return Err(crate::ConfigError::count(crate::Field::MaxAttempts, crate::Rule::AtLeast(1.0), 0));
        }
        match self.first.max_attempts() {
            Some(first) if max_attempts > first => {
                let second = self.second.with_max_attempts(max_attempts - first + 1)?;
                Ok(Then { first: self.first, second })
            }
            // The first schedule alone reaches the limit (the decision cuts
            // there), or never ends.
            _ => Ok(self),
        }
    }

    fn deadline(&self) -> Option<Duration> {
        earliest(self.first.deadline(), self.second.deadline())
    }

    fn max_hint(&self) -> Option<Duration> {
        widest(self.first.max_hint(), self.second.max_hint())
    }

    fn hint_seed(&self) -> Option<u64> {
        self.first.hint_seed().or(self.second.hint_seed())
    }

    fn next_delay(delays: &mut Self::Delays, failure: &Failure) -> Option<Duration> {
        if !delays.in_second {
            match A::next_delay(&mut delays.first, failure) {
                Some(delay) => return Some(delay),
                None => delays.in_second = true,
            }
        }
        B::next_delay(&mut delays.second, failure)
    }

    fn restartable() -> bool {
        A::restartable() && B::restartable()
    }

    fn restart(delays: &mut Self::Delays) {
        A::restart(&mut delays.first);
        B::restart(&mut delays.second);
        delays.in_second = false;
    }
}

/// The first retries of a schedule; see [`Schedule::take_retries`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Take<S> {
    inner: S,
    retries: u32,
}

impl<S> Take<S> {
    /// At most `retries` delays of `inner`.
    pub const fn new(inner: S, retries: u32) -> Self {
        Take { inner, retries }
    }
}

/// The delays of a [`Take`].
#[derive(Debug)]
pub struct TakeDelays<D> {
    inner: D,
    left: u32,
    retries: u32,
}

impl<D: Iterator<Item = Duration>> Iterator for TakeDelays<D> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        self.left = self.left.checked_sub(1)?;
        self.inner.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.left).unwrap_or(usize::MAX);
        let (low, high) = self.inner.size_hint();
        (low.min(left), Some(high.map_or(left, |high| high.min(left))))
    }
}

impl<S: Schedule> Schedule for Take<S> {
    type Delays = TakeDelays<S::Delays>;

    fn delays(&self) -> Self::Delays {
        TakeDelays { inner: self.inner.delays(), left: self.retries, retries: self.retries }
    }

    fn max_attempts(&self) -> Option<u32> {
        let own = self.retries.saturating_add(1);
        Some(self.inner.max_attempts().map_or(own, |inner| inner.min(own)))
    }

    fn deadline(&self) -> Option<Duration> {
        self.inner.deadline()
    }

    fn max_hint(&self) -> Option<Duration> {
        self.inner.max_hint()
    }

    fn hint_seed(&self) -> Option<u64> {
        self.inner.hint_seed()
    }

    fn next_delay(delays: &mut Self::Delays, failure: &Failure) -> Option<Duration> {
        delays.left = delays.left.checked_sub(1)?;
        S::next_delay(&mut delays.inner, failure)
    }

    fn restartable() -> bool {
        S::restartable()
    }

    fn restart(delays: &mut Self::Delays) {
        S::restart(&mut delays.inner);
        delays.left = delays.retries;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A restartable schedule without `std`: 1, 2, 3, ... ms.
    #[derive(Debug, Clone, Copy)]
    struct Counting;
    #[derive(Debug)]
    struct Count(u64);
    impl Iterator for Count {
        type Item = Duration;
        fn next(&mut self) -> Option<Duration> {
            self.0 += 1;
            Some(ms(self.0))
        }
    }
    impl Schedule for Counting {
        type Delays = Count;
        fn delays(&self) -> Count {
            Count(0)
        }
        fn restartable() -> bool {
            true
        }
        fn restart(delays: &mut Count) {
            delays.0 = 0;
        }
    }

    #[test]
    fn first_delay_then_and_take_count_their_retries() {
        let fixed = [ms(7), ms(8)].into_iter();
        let s = fixed.clone().with_first_delay(Duration::ZERO);
        assert_eq!(s.delays().collect::<Vec<_>>(), [ms(0), ms(7), ms(8)]);
        assert_eq!((s.max_attempts(), s.delays().size_hint()), (Some(4), (3, Some(3))));
        let s = fixed.clone().then([ms(1)].into_iter());
        assert_eq!(s.delays().collect::<Vec<_>>(), [ms(7), ms(8), ms(1)]);
        assert_eq!(s.max_attempts(), Some(4));
        let s = Counting.take_retries(3);
        assert_eq!(s.delays().collect::<Vec<_>>(), [ms(1), ms(2), ms(3)]);
        assert_eq!((s.max_attempts(), Counting.max_attempts()), (Some(4), None));
        assert_eq!(fixed.take_retries(u32::MAX).max_attempts(), Some(3));
        assert_eq!(Counting.take_retries(u32::MAX).max_attempts(), Some(u32::MAX));
        assert_eq!(Counting.then(Counting).max_attempts(), None);
    }

    #[test]
    fn restart_goes_back_to_retry_one_through_every_combinator() {
        type S = Take<WithFirstDelay<Then<Take<Counting>, Counting>>>;
        let s: S = Counting.take_retries(2).then(Counting).with_first_delay(Duration::ZERO).take_retries(5);
        assert!(S::restartable());
        let mut d = s.delays();
        let f = Failure::TRANSIENT;
        let first: Vec<_> = core::iter::from_fn(|| S::next_delay(&mut d, &f)).collect();
        assert_eq!(first, [ms(0), ms(1), ms(2), ms(1), ms(2)]);
        S::restart(&mut d);
        let again: Vec<_> = core::iter::from_fn(|| S::next_delay(&mut d, &f)).collect();
        assert_eq!(again, first);
        // A plain iterator cannot start over, nor can anything built on one.
        assert!(!<Then<core::array::IntoIter<Duration, 1>, Counting>>::restartable());
    }

    #[test]
    fn limits_of_composites() {
        assert_eq!(earliest(Some(ms(2)), Some(ms(1))), Some(ms(1)));
        assert_eq!(earliest(None, Some(ms(1))), Some(ms(1)));
        assert_eq!(widest(Some(ms(2)), None), Some(ms(2)));
        assert_eq!(unbounded_max(Some(3), None), None);
        assert_eq!(unbounded_max(Some(3), Some(5)), Some(5));
    }
}
