//! Cancelling a retry from outside. An async call takes any future as its
//! signal (`tokio_util`'s `CancellationToken::cancelled()` works as it is);
//! a blocking call, which has no future to poll, takes a [`CancelFlag`].

use core::time::Duration;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// A flag that cancels blocking retries from another thread: set it with
/// [`cancel`](CancelFlag::cancel), and every call retried with
/// [`Retrying::cancel_on`](crate::Retrying::cancel_on) this flag (or a
/// clone: clones share it) stops with
/// [`StopReason::Cancelled`](crate::StopReason::Cancelled) before its next
/// attempt, ending a wait at once.
///
/// ```
/// use std::time::Duration;
/// use staggered::{CancelFlag, Preset, RetryPolicy, StopReason};
///
/// let flag = CancelFlag::new();
/// let policy = RetryPolicy::new(Preset::Standard.backoff()); // waits about a second, then 2...
/// let stopper = flag.clone();
/// let outcome = policy
///     .retry(|attempt| {
///         stopper.cancel(); // as another thread would, during the wait
///         Err::<(), _>(std::io::Error::other(format!("attempt {attempt} failed")))
///     })
///     .cancel_on(&flag)
///     .call();
/// let error = outcome.unwrap_err();
/// assert_eq!((error.reason(), error.attempts()), (StopReason::Cancelled, 1));
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancelFlag {
    shared: Arc<(Mutex<bool>, Condvar)>,
}

impl CancelFlag {
    /// A flag not set.
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// Sets the flag, and wakes every call waiting on it.
    pub fn cancel(&self) {
        let (set, woken) = &*self.shared;
        *set.lock().unwrap_or_else(PoisonError::into_inner) = true;
        woken.notify_all();
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        *self.shared.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Blocks for `wait`, or until the flag is set, whichever comes first;
    /// whether it was set. What [`StdSleeper`](crate::sleep::StdSleeper)
    /// does for a call cancelled with this flag; a sleeper of your own can
    /// do the same.
    pub fn wait_timeout(&self, wait: Duration) -> bool {
        let (set, woken) = &*self.shared;
        let guard = set.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) =
            woken.wait_timeout_while(guard, wait, |set| !*set).unwrap_or_else(PoisonError::into_inner);
        *guard
    }
}
