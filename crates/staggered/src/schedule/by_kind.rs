//! Waits chosen by the kind of failure: the AWS SDKs back off from 1 s after
//! a throttling error and from 50 ms after any other transient one.

use core::time::Duration;

use super::compose::{earliest, unbounded_max, widest};
use super::Schedule;
use crate::classify::{ErrorKind, Failure};

/// Two schedules walked side by side: the wait before retry `r` is retry
/// `r`'s delay from `throttled` after a [throttled](ErrorKind::Throttled)
/// failure, and from `transient` after any other. Both move on at every
/// retry, so retry `r` is the `r`-th of either, whatever came before: the
/// AWS SDKs' rule, `U[0, min(cap, scale * 2^(r-1))]` with a scale of 1 s for
/// throttling errors and 50 ms for the rest.
///
/// ```
/// use std::time::Duration;
/// use staggered::compose::ByKind;
/// use staggered::{Action, Backoff, Decision, Failure, Limits, NoBudget, Strategy};
///
/// let aws = |base| {
///     Backoff::builder(Strategy::Full)
///         .with_base(base)
///         .with_max_delay(Duration::from_secs(20))
///         .with_max_attempts(3)
///         .build()
/// };
/// let schedule = ByKind::new(aws(Duration::from_millis(50))?, aws(Duration::from_secs(1))?);
/// let mut decision = Decision::for_schedule(&schedule, Limits::NONE, NoBudget); // one, whatever the kinds
/// let Action::Retry(first) = decision.on_failure(&Failure::TRANSIENT, Duration::ZERO) else { panic!() };
/// assert!(first <= Duration::from_millis(50)); // U[0, 50 ms]
/// let Action::Retry(second) = decision.on_failure(&Failure::THROTTLED, Duration::ZERO) else { panic!() };
/// assert!(second <= Duration::from_secs(2)); // U[0, 1 s * 2]: retry 2 of the throttled schedule
/// # Ok::<(), staggered::ConfigError>(())
/// ```
///
/// Iterated without a failure to look at, it yields the `transient` delays.
/// It ends when the schedule chosen for a retry ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ByKind<T, U> {
    transient: T,
    throttled: U,
}

impl<T, U> ByKind<T, U> {
    /// Waits from `transient` after a transient failure, from `throttled`
    /// after a throttled one.
    pub const fn new(transient: T, throttled: U) -> Self {
        ByKind { transient, throttled }
    }

    /// The schedule for transient failures.
    pub const fn transient(&self) -> &T {
        &self.transient
    }

    /// The schedule for throttled failures.
    pub const fn throttled(&self) -> &U {
        &self.throttled
    }
}

/// The delays of a [`ByKind`]: both schedules' delays, side by side.
#[derive(Debug)]
pub struct KindDelays<T, U> {
    transient: T,
    throttled: U,
}

impl<T: Iterator<Item = Duration>, U: Iterator<Item = Duration>> Iterator for KindDelays<T, U> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let _ = self.throttled.next();
        self.transient.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.transient.size_hint()
    }
}

impl<T: Schedule, U: Schedule> Schedule for ByKind<T, U> {
    type Delays = KindDelays<T::Delays, U::Delays>;

    fn delays(&self) -> Self::Delays {
        KindDelays { transient: self.transient.delays(), throttled: self.throttled.delays() }
    }

    /// The larger of the two: one kind of failure may allow more retries.
    fn max_attempts(&self) -> Option<u32> {
        unbounded_max(self.transient.max_attempts(), self.throttled.max_attempts())
    }

    /// Both schedules for `max_attempts`.
    fn with_max_attempts(self, max_attempts: u32) -> Result<Self, crate::ConfigError> {
        Ok(ByKind {
            transient: self.transient.with_max_attempts(max_attempts)?,
            throttled: self.throttled.with_max_attempts(max_attempts)?,
        })
    }

    fn deadline(&self) -> Option<Duration> {
        earliest(self.transient.deadline(), self.throttled.deadline())
    }

    fn max_hint(&self) -> Option<Duration> {
        widest(self.transient.max_hint(), self.throttled.max_hint())
    }

    fn hint_seed(&self) -> Option<u64> {
        self.transient.hint_seed().or(self.throttled.hint_seed())
    }

    fn next_delay(delays: &mut Self::Delays, failure: &Failure) -> Option<Duration> {
        let transient = T::next_delay(&mut delays.transient, failure);
        let throttled = U::next_delay(&mut delays.throttled, failure);
        if failure.kind == ErrorKind::Throttled {
            throttled
        } else {
            transient
        }
    }

    fn restartable() -> bool {
        T::restartable() && U::restartable()
    }

    fn restart(delays: &mut Self::Delays) {
        T::restart(&mut delays.transient);
        U::restart(&mut delays.throttled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn each_retry_takes_its_kinds_delay_and_both_move_on() {
        type S = ByKind<core::array::IntoIter<Duration, 3>, core::array::IntoIter<Duration, 2>>;
        let s: S = ByKind::new([ms(50), ms(100), ms(200)].into_iter(), [ms(1000), ms(2000)].into_iter());
        let mut d = s.delays();
        assert_eq!(S::next_delay(&mut d, &Failure::TRANSIENT), Some(ms(50)));
        assert_eq!(
            S::next_delay(&mut d, &Failure::THROTTLED),
            Some(ms(2000)),
            "retry 2 of the throttled schedule"
        );
        assert_eq!(S::next_delay(&mut d, &Failure::THROTTLED), None, "the throttled schedule has ended");
        assert_eq!((s.max_attempts(), s.delays().count()), (Some(4), 3));
        assert!(!S::restartable());
    }
}
