//! The async driver's optional per-attempt timeout, as a type so that only a
//! policy with a timeout asks the error type to hold [`TimedOut`].

use core::time::Duration;

use crate::TimedOut;

/// No per-attempt timeout (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTimeout;

/// Each async attempt is cut after this long (or at the deadline).
#[derive(Debug, Clone, Copy)]
pub struct AttemptTimeout(pub Duration);

/// How a per-attempt timeout becomes the operation's error.
pub type MakeTimeoutError<E> = fn(TimedOut) -> E;

/// A per-attempt timeout setting for errors of type `E`.
pub trait TimeoutFor<E> {
    /// The time each attempt gets, and how to turn a timeout into an `E`.
    fn limit(&self) -> Option<(Duration, MakeTimeoutError<E>)>;
}

impl<E> TimeoutFor<E> for NoTimeout {
    #[inline]
    fn limit(&self) -> Option<(Duration, MakeTimeoutError<E>)> {
        None
    }
}

impl<E: From<TimedOut>> TimeoutFor<E> for AttemptTimeout {
    #[inline]
    fn limit(&self) -> Option<(Duration, MakeTimeoutError<E>)> {
        Some((self.0, E::from))
    }
}
