//! The per-attempt timeout, as a type: only a policy with one asks the
//! error type to hold a [`TimedOut`], and only a policy without one can
//! drive a blocking call, which nothing can cut.

use core::time::Duration;

use crate::TimedOut;

/// No per-attempt timeout (the default). The async drivers still cut an
/// attempt at the deadline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoTimeout;

/// Each async attempt is cut after this long (or at the deadline, if that
/// comes first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptTimeout(pub Duration);

/// How a cut attempt's error is made: `E::from` a [`TimedOut`].
pub type MakeTimeoutError<E> = fn(TimedOut) -> E;

/// A per-attempt timeout setting, for operations failing with `E`:
/// [`NoTimeout`], [`AttemptTimeout`], or `Option<AttemptTimeout>` (a
/// configuration file's, there or not).
#[diagnostic::on_unimplemented(
    message = "a per-attempt timeout cuts attempts failing with `{E}`, and `{E}` cannot say so",
    label = "`{E}` does not implement `From<staggered::TimedOut>`",
    note = "implement `From<staggered::TimedOut>` for `{E}`, or make the attempts fail with a type that \
            holds any error (`std::io::Error`, `Box<dyn Error + Send + Sync>`, `anyhow::Error`)"
)]
pub trait TimeoutFor<E> {
    /// The time each attempt gets, if limited.
    fn timeout(&self) -> Option<Duration>;

    /// How to turn a cut into an attempt's error, if this setting can (an
    /// [`AttemptTimeout`] always can; [`NoTimeout`] cannot, and an attempt
    /// the deadline cuts then ends the retrying with no error of its own:
    /// see [`RetryError::cut_at_deadline`](crate::RetryError::cut_at_deadline)).
    fn make_error(&self) -> Option<MakeTimeoutError<E>>;
}

impl<E> TimeoutFor<E> for NoTimeout {
    #[inline]
    fn timeout(&self) -> Option<Duration> {
        None
    }

    #[inline]
    fn make_error(&self) -> Option<MakeTimeoutError<E>> {
        None
    }
}

impl<E: From<TimedOut>> TimeoutFor<E> for AttemptTimeout {
    #[inline]
    fn timeout(&self) -> Option<Duration> {
        Some(self.0)
    }

    #[inline]
    fn make_error(&self) -> Option<MakeTimeoutError<E>> {
        Some(E::from)
    }
}

impl<E: From<TimedOut>> TimeoutFor<E> for Option<AttemptTimeout> {
    #[inline]
    fn timeout(&self) -> Option<Duration> {
        self.map(|timeout| timeout.0)
    }

    #[inline]
    fn make_error(&self) -> Option<MakeTimeoutError<E>> {
        Some(E::from)
    }
}

/// A timeout setting the blocking drivers can honour: only [`NoTimeout`].
///
/// A blocking call cannot be interrupted, so a policy with a per-attempt
/// timeout has no blocking `call`: the two cannot meet by accident.
///
/// ```compile_fail,E0277
/// use std::time::Duration;
/// use staggered::{Preset, RetryPolicy};
///
/// let policy = RetryPolicy::new(Preset::Interactive.backoff())
///     .with_attempt_timeout(Duration::from_millis(50));
/// // A 300 ms blocking call cannot be cut at 50 ms: this does not compile.
/// let _ = policy.call(|_| {
///     std::thread::sleep(Duration::from_millis(300));
///     Ok::<_, std::io::Error>(())
/// });
/// ```
///
/// The deadline still holds: the blocking driver never starts an attempt
/// once the wait before it would reach the deadline, but it cannot stop one
/// that is running.
#[diagnostic::on_unimplemented(
    message = "a blocking call cannot be cut, so this policy's per-attempt timeout (`{Self}`) cannot apply to it",
    label = "a policy with a per-attempt timeout",
    note = "call it with `call_async` (an async operation can be cut), or build the policy for blocking calls \
            without `with_attempt_timeout`"
)]
pub trait CanBlock {}

impl CanBlock for NoTimeout {}

/// An error type that can say its attempt was cut: `From<TimedOut>`. The
/// tower layer needs one, because it cuts an attempt still running at the
/// deadline (or at its per-attempt timeout) and returns the cut as the
/// service's own error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a `staggered::TimedOut`, and the retry layer must return one when the \
               deadline cuts an attempt",
    label = "`{Self}` does not implement `From<staggered::TimedOut>`",
    note = "map the inner service's errors into `tower::BoxError` below the retry layer \
            (`ServiceBuilder::new().layer(retry).map_err(BoxError::from)`), or implement \
            `From<staggered::TimedOut>` for `{Self}`"
)]
pub trait FromTimedOut: From<TimedOut> {}

impl<E: From<TimedOut>> FromTimedOut for E {}
