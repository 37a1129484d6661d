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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    reason: StopReason,
    attempts: u32,
    waited: Duration,
    error: E,
}

impl<E> RetryError<E> {
    pub(crate) fn new(reason: StopReason, attempts: u32, waited: Duration, error: E) -> Self {
        RetryError { reason, attempts, waited, error }
    }

    /// Why the loop stopped.
    pub const fn reason(&self) -> StopReason {
        self.reason
    }
    /// Attempts made.
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }
    /// Total time spent waiting between attempts.
    pub const fn waited(&self) -> Duration {
        self.waited
    }
    /// The last attempt's error.
    pub const fn error(&self) -> &E {
        &self.error
    }
    /// The last attempt's error, by value.
    pub fn into_error(self) -> E {
        self.error
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
        write!(f, "gave up after {} attempt{plural} ({}): {}", self.attempts, self.reason, self.error)
    }
}

#[cfg(feature = "std")]
impl<E: std::error::Error + 'static> std::error::Error for RetryError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The error an attempt gets when the async per-attempt timeout cuts it. The
/// operation's error type must be able to hold it (`E: From<TimedOut>`); it is
/// provided for `std::io::Error` (as `ErrorKind::TimedOut`).
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
