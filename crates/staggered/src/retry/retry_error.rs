//! What a retry loop returns: the value with its history, or why it gave up.

use core::fmt;
use core::time::Duration;

use crate::StopReason;

/// A success, with how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retried<T> {
    /// The operation's value.
    pub value: T,
    /// Attempts made, the successful one included.
    pub attempts: u32,
    /// Total time spent waiting between attempts.
    pub waited: Duration,
}

/// The loop gave up: why, after how many attempts, and the last error (as
/// [`source`](std::error::Error::source)), not a bare error.
///
/// The last error is always there for the blocking drivers and for an
/// operation whose error type can hold a [`TimedOut`]. An async operation
/// whose attempt the deadline cut could not say so in its own error type:
/// then [`cut_at_deadline`](RetryError::cut_at_deadline) is set, and [`error`](RetryError::error) is
/// the attempt before's error, or `None` if the cut attempt was the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    reason: StopReason,
    attempts: u32,
    waited: Duration,
    error: Option<E>,
    cut: Option<TimedOut>,
}

impl<E> RetryError<E> {
    pub(crate) fn new(reason: StopReason, attempts: u32, waited: Duration, error: E) -> Self {
        RetryError { reason, attempts, waited, error: Some(error), cut: None }
    }

    /// The deadline cut attempt `attempts`, whose error type could not say so.
    /// Gave up before an attempt was sent (no token before the deadline),
    /// with the error of the attempt before, if there was one.
    pub(crate) fn unsent(reason: StopReason, attempts: u32, waited: Duration, error: Option<E>) -> Self {
        RetryError { reason, attempts, waited, error, cut: None }
    }

    pub(crate) fn cut(
        reason: StopReason,
        attempts: u32,
        waited: Duration,
        error: Option<E>,
        cut: TimedOut,
    ) -> Self {
        RetryError { reason, attempts, waited, error, cut: Some(cut) }
    }

    /// Why the loop stopped.
    pub const fn reason(&self) -> StopReason {
        self.reason
    }
    /// Attempts made, a cut one included.
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }
    /// Total time spent waiting between attempts.
    pub const fn waited(&self) -> Duration {
        self.waited
    }
    /// The last error an attempt returned. `None` only when the deadline cut
    /// the first attempt of an async operation whose error type cannot hold
    /// a [`TimedOut`] (see [`cut_at_deadline`](RetryError::cut_at_deadline)).
    pub const fn error(&self) -> Option<&E> {
        self.error.as_ref()
    }
    /// The last error an attempt returned, by value (see [`error`](RetryError::error)).
    pub fn into_error(self) -> Option<E> {
        self.error
    }
    /// Set when the deadline cut the last attempt and the operation's error
    /// type could not hold the [`TimedOut`]: how long that attempt ran.
    pub const fn cut_at_deadline(&self) -> Option<TimedOut> {
        self.cut
    }
    /// Whether the loop stopped because the error was permanent (as opposed
    /// to giving up on a retryable one).
    pub fn is_permanent(&self) -> bool {
        self.reason == StopReason::Permanent
    }
}

impl<E: fmt::Display> fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.attempts == 1 { "" } else { "s" };
        write!(f, "gave up after {} attempt{plural} ({}): ", self.attempts, self.reason)?;
        crate::retry::event::describe_last(f, self.attempts, self.error.as_ref(), self.cut)
    }
}

#[cfg(feature = "std")]
impl<E: std::error::Error + 'static> std::error::Error for RetryError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.error, &self.cut) {
            (Some(error), _) => Some(error),
            (None, Some(cut)) => Some(cut),
            (None, None) => None,
        }
    }
}

/// The error an attempt gets when an async driver cuts it: at its
/// per-attempt timeout, or at the deadline. An error type that can hold it
/// (`E: From<TimedOut>`) gets it as the attempt's error; it is provided for
/// `std::io::Error` (as `ErrorKind::TimedOut`) and `String`, and a
/// `Box<dyn Error>` or an `anyhow::Error` holds any error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut {
    /// The time the attempt was given.
    pub after: Duration,
}

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attempt timed out after {:?}", self.after)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TimedOut {}

#[cfg(feature = "std")]
impl From<TimedOut> for std::io::Error {
    fn from(timeout: TimedOut) -> Self {
        std::io::Error::new(std::io::ErrorKind::TimedOut, timeout)
    }
}

#[cfg(feature = "std")]
impl From<TimedOut> for String {
    fn from(timeout: TimedOut) -> Self {
        timeout.to_string()
    }
}
