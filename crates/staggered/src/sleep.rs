//! Time for the drivers: sleepers that wait and clocks that tell how long it
//! has been. The retry decision itself uses neither.

use core::future::Future;
use core::time::Duration;

/// Waits, for the async driver. Any `Fn(Duration) -> impl Future<Output = ()>`
/// is one, so any runtime's timer plugs in: `|d| async_io::Timer::after(d)`,
/// `|d| tokio::time::sleep(d)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a timer for the async driver",
    label = "not a `Sleeper`",
    note = "any `Fn(Duration) -> impl Future<Output = ()>` is one, such as `|d| tokio::time::sleep(d)`"
)]
pub trait Sleeper {
    /// The future that completes after the wait.
    type Sleep: Future<Output = ()>;

    /// Starts a wait of `delay`.
    fn sleep(&self, delay: Duration) -> Self::Sleep;

    /// A timer that ends an attempt's time (its per-attempt timeout, or the
    /// deadline) after `limit`; the attempt is cut if it has not ended by
    /// then. The default is a [`sleep`](Sleeper::sleep); a sleeper that only
    /// records its waits (`test_util::RecordingSleeper`) never fires it,
    /// since its clock moves only when it sleeps.
    fn cut_after(&self, limit: Duration) -> Self::Sleep {
        self.sleep(limit)
    }
}

impl<F, Fut> Sleeper for F
where
    F: Fn(Duration) -> Fut,
    Fut: Future<Output = ()>,
{
    type Sleep = Fut;

    #[inline]
    fn sleep(&self, delay: Duration) -> Fut {
        self(delay)
    }
}

/// Waits, for the blocking driver. Any `Fn(Duration)` is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a timer for the blocking driver",
    label = "not a `BlockingSleeper`",
    note = "any `Fn(Duration)` is one, such as `std::thread::sleep`"
)]
pub trait BlockingSleeper {
    /// Blocks the thread for `delay`.
    fn sleep(&self, delay: Duration);

    /// Blocks for `delay` unless `flag` is set first; whether it was set.
    /// The default checks the flag before and after sleeping;
    /// [`StdSleeper`] wakes as soon as it is set.
    #[cfg(feature = "std")]
    fn sleep_unless(&self, delay: Duration, flag: &crate::CancelFlag) -> bool {
        if flag.is_cancelled() {
            return true;
        }
        self.sleep(delay);
        flag.is_cancelled()
    }
}

impl<F: Fn(Duration)> BlockingSleeper for F {
    #[inline]
    fn sleep(&self, delay: Duration) {
        self(delay)
    }
}

/// A monotonic clock. Any `Fn() -> Duration` (the time since some fixed
/// origin) is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a clock",
    label = "not a `Clock`",
    note = "any `Fn() -> Duration` (the time since a fixed origin) is one"
)]
pub trait Clock {
    /// A point in time on this clock.
    type Instant: Copy;

    /// The current time.
    fn now(&self) -> Self::Instant;

    /// The time from `start` to now, zero if the clock went backwards.
    fn since(&self, start: Self::Instant) -> Duration;
}

impl<F: Fn() -> Duration> Clock for F {
    type Instant = Duration;

    #[inline]
    fn now(&self) -> Duration {
        self()
    }

    #[inline]
    fn since(&self, start: Duration) -> Duration {
        self().saturating_sub(start)
    }
}

/// `std::thread::sleep`.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy, Default)]
pub struct StdSleeper;

#[cfg(feature = "std")]
impl BlockingSleeper for StdSleeper {
    fn sleep(&self, delay: Duration) {
        std::thread::sleep(delay)
    }

    fn sleep_unless(&self, delay: Duration, flag: &crate::CancelFlag) -> bool {
        flag.wait_timeout(delay)
    }
}

/// `std::time::Instant`.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy, Default)]
pub struct StdClock;

#[cfg(feature = "std")]
impl Clock for StdClock {
    type Instant = std::time::Instant;

    #[inline]
    fn now(&self) -> std::time::Instant {
        std::time::Instant::now()
    }

    #[inline]
    fn since(&self, start: std::time::Instant) -> Duration {
        start.elapsed()
    }
}

/// `tokio::time::sleep`: honours tokio's paused time in tests.
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

#[cfg(feature = "tokio")]
impl Sleeper for TokioSleeper {
    type Sleep = tokio::time::Sleep;

    fn sleep(&self, delay: Duration) -> tokio::time::Sleep {
        // tokio panics on deadlines past its range; this caps far-future waits
        // at about 30 years, where the deadline check will already have stopped.
        const MAX: Duration = Duration::from_secs(30 * 365 * 24 * 3600);
        tokio::time::sleep(delay.min(MAX))
    }
}

/// `tokio::time::Instant`: moves with tokio's paused and advanced time.
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

#[cfg(feature = "tokio")]
impl Clock for TokioClock {
    type Instant = tokio::time::Instant;

    #[inline]
    fn now(&self) -> tokio::time::Instant {
        tokio::time::Instant::now()
    }

    #[inline]
    fn since(&self, start: tokio::time::Instant) -> Duration {
        tokio::time::Instant::now().saturating_duration_since(start)
    }
}
