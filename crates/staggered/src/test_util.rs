//! Test support for users: assert the number of attempts, that the delays
//! grow, and that permanent errors are not retried, without sleeping. Feature `test-util`.
//!
//! ```
//! use std::time::Duration;
//! use staggered::test_util::RecordingSleeper;
//! use staggered::{Backoff, RetryPolicy, Strategy};
//!
//! let backoff = Backoff::builder(Strategy::Exponential)
//!     .with_base(Duration::from_millis(100))
//!     .with_max_attempts(4)
//!     .build()?;
//! let sleeper = RecordingSleeper::new();
//! let policy = RetryPolicy::new(backoff);
//! let result = policy.retry(|_| Err::<(), _>("down")).with_timer(&sleeper, &sleeper.clock()).call();
//! assert_eq!(result.unwrap_err().attempts(), 4);
//! assert_eq!(sleeper.sleeps(), [100, 200, 400].map(Duration::from_millis));
//! # Ok::<(), staggered::ConfigError>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::sleep::{BlockingSleeper, Clock, Sleeper};

/// A clock that only moves when told to. Clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct MockClock {
    nanos: Arc<AtomicU64>,
}

impl MockClock {
    /// A clock at zero.
    pub fn new() -> Self {
        MockClock::default()
    }

    /// Moves the clock forward by `by` (saturating at about 584 years).
    pub fn advance(&self, by: Duration) {
        let add = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        let _ = self.nanos.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| Some(n.saturating_add(add)));
    }

    /// The time since the clock was made.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

impl Clock for MockClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        self.elapsed()
    }

    fn since(&self, start: Duration) -> Duration {
        self.elapsed().saturating_sub(start)
    }
}

/// A sleeper that records each delay and advances its [`MockClock`] instead
/// of waiting. Works for the blocking and the async driver. Clones share the
/// record and the clock. It never cuts an attempt (see
/// [`Sleeper::cut_after`]): test per-attempt timeouts and deadline cuts on
/// tokio's paused time.
#[derive(Debug, Clone, Default)]
pub struct RecordingSleeper {
    clock: MockClock,
    sleeps: Arc<Mutex<Vec<Duration>>>,
}

impl RecordingSleeper {
    /// A sleeper with a fresh clock at zero.
    pub fn new() -> Self {
        RecordingSleeper::default()
    }

    /// A sleeper that advances `clock`.
    pub fn with_clock(clock: MockClock) -> Self {
        RecordingSleeper { clock, sleeps: Arc::default() }
    }

    /// The clock this sleeper advances.
    pub fn clock(&self) -> MockClock {
        self.clock.clone()
    }

    /// Every delay slept so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The total time slept.
    pub fn total(&self) -> Duration {
        self.sleeps().iter().fold(Duration::ZERO, |sum, d| sum.saturating_add(*d))
    }

    fn record(&self, delay: Duration) {
        self.sleeps.lock().unwrap_or_else(PoisonError::into_inner).push(delay);
        self.clock.advance(delay);
    }
}

impl BlockingSleeper for RecordingSleeper {
    fn sleep(&self, delay: Duration) {
        self.record(delay);
    }
}

impl Sleeper for RecordingSleeper {
    type Sleep = RecordedSleep;

    fn sleep(&self, delay: Duration) -> Self::Sleep {
        self.record(delay);
        RecordedSleep { done: true }
    }

    /// Never fires: the mock clock moves only when the sleeper sleeps, so
    /// no attempt runs out of time. Test timeouts on tokio's paused time.
    fn cut_after(&self, _: Duration) -> Self::Sleep {
        RecordedSleep { done: false }
    }
}

/// The wait of a [`RecordingSleeper`]: over at once (its clock has moved),
/// or, as an attempt's time limit, never.
#[derive(Debug)]
pub struct RecordedSleep {
    done: bool,
}

impl core::future::Future for RecordedSleep {
    type Output = ();

    fn poll(self: core::pin::Pin<&mut Self>, _: &mut core::task::Context<'_>) -> core::task::Poll<()> {
        if self.done {
            core::task::Poll::Ready(())
        } else {
            core::task::Poll::Pending
        }
    }
}
