//! Schedules: how long to wait before each retry. A [`Strategy`](crate::Strategy)
//! and its parameters make a validated [`Backoff`](crate::Backoff) (or start
//! from a [`Preset`](crate::Preset)); each operation walks its own
//! [`Delays`](crate::Delays). Anything that hands out delays is a [`Schedule`].

pub(crate) mod backoff;
pub(crate) mod bounds;
pub(crate) mod delays;
pub(crate) mod plan;
pub(crate) mod preset;
pub(crate) mod smooth;
pub(crate) mod strategy;

use core::time::Duration;

/// A source of delays for one operation at a time: each call to
/// [`delays`](Schedule::delays) starts over from retry 1.
///
/// [`Backoff`](crate::Backoff) is one (with `std`). So is any cloneable iterator of
/// `Duration`, as in backon: `[a, b, c].into_iter()` retries three times with
/// those waits, and `std::iter::repeat_n(d, 4)` four times.
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

    /// The longest server hint worth honouring, if the schedule has a view.
    fn max_hint(&self) -> Option<Duration> {
        None
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

    fn delays(&self) -> Self::Delays {
        crate::Backoff::delays(self)
    }

    fn max_attempts(&self) -> Option<u32> {
        crate::Backoff::max_attempts(self)
    }

    /// The schedule's own deadline.
    fn deadline(&self) -> Option<Duration> {
        crate::Backoff::deadline(self)
    }

    /// The largest delay the schedule itself would wait.
    fn max_hint(&self) -> Option<Duration> {
        Some(self.delay_ceiling())
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
