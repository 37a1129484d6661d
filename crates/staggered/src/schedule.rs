//! `Schedule`: anything that can hand out the delays of one operation.

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
