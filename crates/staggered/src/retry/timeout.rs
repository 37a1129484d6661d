//! The per-attempt timeout, as a type: only a policy without one can drive
//! a blocking call, which nothing can cut.

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

/// A per-attempt timeout setting: [`NoTimeout`], [`AttemptTimeout`], or
/// `Option<AttemptTimeout>` (a configuration file's, there or not).
pub trait Timeout {
    /// The time each attempt gets, if limited.
    fn limit(&self) -> Option<Duration>;
}

impl Timeout for NoTimeout {
    fn limit(&self) -> Option<Duration> {
        None
    }
}

impl Timeout for AttemptTimeout {
    fn limit(&self) -> Option<Duration> {
        Some(self.0)
    }
}

impl Timeout for Option<AttemptTimeout> {
    fn limit(&self) -> Option<Duration> {
        self.map(|timeout| timeout.0)
    }
}

/// A timeout setting the blocking driver can honour: only [`NoTimeout`].
///
/// A blocking call cannot be interrupted, so a policy with a per-attempt
/// timeout has no blocking `call`: the two cannot meet by accident.
///
/// ```compile_fail,E0277
/// use std::time::Duration;
/// use staggered::{Preset, RetryPolicy};
///
/// let policy = RetryPolicy::new(Preset::Interactive.backoff())
///     .with_attempt_timeout(Duration::from_millis(50))?;
/// // A 300 ms blocking call cannot be cut at 50 ms: this does not compile.
/// let _ = policy
///     .retry(|_| {
///         std::thread::sleep(Duration::from_millis(300));
///         Ok::<_, std::io::Error>(())
///     })
///     .call();
/// # Ok::<(), staggered::ConfigError>(())
/// ```
///
/// The deadline still holds: the blocking driver never starts an attempt
/// once the wait before it would reach the deadline, but it cannot stop one
/// that is running.
#[diagnostic::on_unimplemented(
    message = "a blocking call cannot be cut, so this policy's per-attempt timeout (`{Self}`) cannot apply to it",
    label = "a policy with a per-attempt timeout",
    note = "to bound each attempt of a blocking call, give the operation its own time limit (a socket's \
            `set_read_timeout`, a client's request timeout) and keep the policy without `with_attempt_timeout`",
    note = "or retry an async operation, which can be cut: `.retry(|_| async {{ .. }}).call().await`",
    note = "a deadline (`with_deadline`) bounds the whole call in both: the blocking driver starts no attempt \
            once the wait before it would reach the deadline"
)]
pub trait CanBlock {}

impl CanBlock for NoTimeout {}

/// An error type that can say its attempt was cut: `From<TimedOut>`. Every
/// async driver needs one, because it cuts an attempt still running at the
/// deadline (or at its per-attempt timeout) and gives the cut back as that
/// attempt's error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a `staggered::TimedOut`, which an async retry gives back when the deadline \
               or a per-attempt timeout cuts an attempt",
    label = "`{Self}` does not implement `From<staggered::TimedOut>`",
    note = "fail with a type that holds any error (`std::io::Error`, `Box<dyn Error + Send + Sync>`, \
            `anyhow::Error`), or implement `From<staggered::TimedOut>` for `{Self}`; below a tower retry layer, \
            `ServiceBuilder::new().layer(retry).map_err(BoxError::from)`"
)]
pub trait FromTimedOut: From<TimedOut> {}

impl<E: From<TimedOut>> FromTimedOut for E {}
