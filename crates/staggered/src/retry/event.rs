//! Hooks: what the retry loops tell you about each retry and about giving up.

use core::time::Duration;

use crate::budget::BudgetMetrics;
use crate::classify::Failure;
use crate::StopReason;

/// One retry about to happen, as [`Notify::on_retry`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryEvent<'a, E> {
    /// The attempt that failed (1 is the first call).
    pub attempt: u32,
    /// The total number of calls allowed, if limited.
    pub max_attempts: Option<u32>,
    /// The wait before the next attempt.
    pub delay: Duration,
    /// The error of the failed attempt.
    pub error: &'a E,
    /// How the error was classified, with the server hint if any.
    pub failure: Failure,
    /// Time since attempt 1 started (see [`RetryPolicy`](crate::RetryPolicy)
    /// for when the loop reads the clock).
    pub elapsed: Duration,
    /// The budget's state after this retry was allowed, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// The loop gave up, as [`Notify::on_give_up`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct GiveUpEvent<'a, E> {
    /// Why.
    pub reason: StopReason,
    /// Attempts made.
    pub attempts: u32,
    /// The total number of calls allowed, if limited.
    pub max_attempts: Option<u32>,
    /// The last error.
    pub error: &'a E,
    /// Time since attempt 1 started.
    pub elapsed: Duration,
    /// The budget's state, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// Receives the retry loop's events. Any `Fn(&RetryEvent<E>)` is one (it
/// hears retries only); implement the trait to hear give-ups too.
pub trait Notify<E> {
    /// Whether this hook reads [`RetryEvent::elapsed`]. The loops read the
    /// clock after a failure only when something needs the time: a
    /// deadline, a per-attempt timeout, the `tracing` feature, or a hook
    /// that says so. [`NoNotify`] says no; every other hook yes by default.
    const WANTS_ELAPSED: bool = true;

    /// A retry is about to happen, after its delay.
    fn on_retry(&self, event: &RetryEvent<'_, E>);

    /// The loop is giving up.
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        let _ = event;
    }
}

/// No hook.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotify;

impl<E> Notify<E> for NoNotify {
    const WANTS_ELAPSED: bool = false;

    #[inline]
    fn on_retry(&self, _: &RetryEvent<'_, E>) {}
}

impl<E, F: Fn(&RetryEvent<'_, E>)> Notify<E> for F {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        self(event)
    }
}
