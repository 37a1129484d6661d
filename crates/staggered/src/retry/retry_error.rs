//! What a retry loop returns: the value with its history, or why it gave up.

use core::convert::Infallible;
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
    /// Total time spent waiting between attempts (and for rate-limiter tokens).
    pub waited: Duration,
    /// The attempt whose answer this is: the last one made, except in a
    /// [hedged](crate::Hedging) call, where an earlier copy may answer
    /// first.
    pub winner: u32,
}

/// The loop gave up: why, after how many attempts, and what the last
/// attempt left (as [`source`](std::error::Error::source)), not a bare error.
///
/// The last attempt left an error ([`error`](RetryError::error)), or, for a
/// call that polls until a value is ready
/// ([`Retrying::until`](crate::Retrying::until)), a value that was not
/// ready ([`value`](RetryError::value); `V` is that value's type, and
/// `Infallible` for a call that does not poll). Neither is there when no
/// attempt ended: the caller cancelled during attempt 1, or a rate limiter
/// had no token for it before the deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E, V = Infallible> {
    reason: StopReason,
    attempts: u32,
    waited: Duration,
    last: Option<Result<V, E>>,
}

impl<E, V> RetryError<E, V> {
    pub(crate) fn new(
        reason: StopReason,
        attempts: u32,
        waited: Duration,
        last: Option<Result<V, E>>,
    ) -> Self {
        RetryError { reason, attempts, waited, last }
    }

    /// Why the loop stopped.
    pub const fn reason(&self) -> StopReason {
        self.reason
    }
    /// Attempts made: sent, whether they ended or were cut or cancelled.
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }
    /// Total time spent waiting between attempts (and for rate-limiter tokens).
    pub const fn waited(&self) -> Duration {
        self.waited
    }
    /// The last attempt's error, if it ended in one. An attempt cut at its
    /// time limit ended in a [`TimedOut`].
    pub fn error(&self) -> Option<&E> {
        self.last.as_ref().and_then(|last| last.as_ref().err())
    }
    /// The last attempt's error, by value (see [`error`](RetryError::error)).
    pub fn into_error(self) -> Option<E> {
        self.last.and_then(Result::err)
    }
    /// The last value, if the last attempt returned one that was not ready
    /// (a call that polls with [`until`](crate::Retrying::until)).
    pub fn value(&self) -> Option<&V> {
        self.last.as_ref().and_then(|last| last.as_ref().ok())
    }
    /// The last value, by value (see [`value`](RetryError::value)).
    pub fn into_value(self) -> Option<V> {
        self.last.and_then(Result::ok)
    }
    /// Whether the loop stopped because the error was permanent (as opposed
    /// to giving up on a retryable one).
    pub fn is_permanent(&self) -> bool {
        self.reason == StopReason::Permanent
    }
}

impl<E: fmt::Display, V> fmt::Display for RetryError<E, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.attempts == 1 { "" } else { "s" };
        write!(f, "gave up after {} attempt{plural} ({})", self.attempts, self.reason)?;
        match &self.last {
            Some(Err(error)) => write!(f, ": {error}"),
            Some(Ok(_)) => f.write_str(": the last value was not ready"),
            None => Ok(()),
        }
    }
}

#[cfg(feature = "std")]
impl<E: std::error::Error + 'static, V: fmt::Debug> std::error::Error for RetryError<E, V> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error().map(|error| error as &(dyn std::error::Error + 'static))
    }
}

#[cfg(feature = "std")]
impl<E, V> RetryError<E, V>
where
    E: Into<std::boxed::Box<dyn std::error::Error + Send + Sync>>,
{
    /// The same error with the last attempt's error boxed as a
    /// [`BoxedError`], which is a `std::error::Error`: what an operation
    /// whose error is an `anyhow::Error` or a `Box<dyn Error + Send + Sync>`
    /// needs before `?` into an `anyhow::Result` or a boxed error.
    ///
    /// Neither of those two types is itself a `std::error::Error` (each
    /// converts every error into itself, which rules it out), so a
    /// `RetryError` of them cannot be one either; boxed, the chain is kept
    /// whole: this error, then the attempt's error and its own sources.
    ///
    /// ```
    /// use anyhow::Context;
    /// use staggered::{Preset, RetryError, RetryPolicy};
    ///
    /// fn read_config() -> anyhow::Result<String> {
    ///     let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
    ///     Err(refused).context("config server unreachable")
    /// }
    ///
    /// fn start() -> anyhow::Result<String> {
    ///     let policy = RetryPolicy::new(Preset::Standard.backoff()).with_max_attempts(1)?;
    ///     let config = policy.retry(|_| read_config()).call().map_err(RetryError::boxed)?;
    ///     Ok(config)
    /// }
    ///
    /// let err = start().unwrap_err();
    /// // The retry's error, the attempt's context, and the io::Error under it.
    /// assert_eq!(err.chain().count(), 3);
    /// assert!(err.root_cause().downcast_ref::<std::io::Error>().is_some());
    /// ```
    pub fn boxed(self) -> RetryError<BoxedError, V> {
        let RetryError { reason, attempts, waited, last } = self;
        RetryError { reason, attempts, waited, last: last.map(|last| last.map_err(|e| BoxedError(e.into()))) }
    }
}

/// An attempt's error in a box, as a `std::error::Error` of its own: it
/// shows as the boxed error does, and its sources are the boxed error's
/// own. See [`RetryError::boxed`].
#[cfg(feature = "std")]
pub struct BoxedError(pub std::boxed::Box<dyn std::error::Error + Send + Sync>);

#[cfg(feature = "std")]
impl fmt::Debug for BoxedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(feature = "std")]
impl fmt::Display for BoxedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BoxedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// The error an attempt gets when an async driver cuts it: at its
/// per-attempt timeout, or at the deadline. The async drivers ask the
/// operation's error type to hold it (`E: From<TimedOut>`); it is provided
/// for `std::io::Error` (as `ErrorKind::TimedOut`) and `String`, and a
/// `Box<dyn Error + Send + Sync>` or an `anyhow::Error` holds any error.
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

/// The error a service driver (the tower layer, the reqwest middleware)
/// gives back when its cancel signal fires before any attempt has ended:
/// there is no response or error of the service's own to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cancelled before any attempt ended")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Cancelled {}

#[cfg(feature = "std")]
impl From<Cancelled> for std::io::Error {
    fn from(cancelled: Cancelled) -> Self {
        std::io::Error::new(std::io::ErrorKind::Interrupted, cancelled)
    }
}
