//! One request's retry state, for the service drivers (tower, reqwest).
//!
//! It holds the [`Decision`] and reports through [`RetryPolicy::step`], as
//! the blocking and async drivers do, so the rules, the hooks and the
//! `tracing` events are the same everywhere. The drivers around it only
//! clone requests, call, race the per-attempt timeout and sleep.

use core::time::Duration;

use crate::budget::Budget;
use crate::classify::Failure;
use crate::retry::event::Notify;
use crate::retry::timeout::TimeoutFor;
use crate::sleep::Clock;
use crate::{Decision, RetryPolicy, StopReason};

/// The retry state of one request.
pub(crate) struct Attempts<D, DB, I> {
    attempt: u32,
    /// Made at the first failure, so a success costs no entropy read.
    decision: Option<Decision<D, DB>>,
    /// When attempt 1 started: read up front if a deadline or a timeout needs
    /// it, otherwise at the first failure (as the other drivers do).
    start: Option<I>,
    waited: Duration,
}

impl<D, DB, I> core::fmt::Debug for Attempts<D, DB, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Attempts").field("attempt", &self.attempt).field("waited", &self.waited).finish()
    }
}

impl<D, DB, I> Attempts<D, DB, I> {
    /// The attempt about to be made, or just made (1 is the first call).
    pub(crate) const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The time spent waiting so far.
    pub(crate) const fn waited(&self) -> Duration {
        self.waited
    }
}

impl<D, DB, I> Attempts<D, DB, I>
where
    D: Iterator<Item = Duration>,
    DB: Budget,
    I: Copy,
{
    /// Starts a request: tells the budget (once per request) and reads the
    /// clock if the deadline or a per-attempt timeout will need it.
    pub(crate) fn start<S, C, N, B, T, K, E>(policy: &RetryPolicy<S, C, N, B, T>, clock: &K) -> Self
    where
        B: Budget,
        T: TimeoutFor<E>,
        K: Clock<Instant = I> + ?Sized,
    {
        policy.budget.record_request();
        let needs_clock = policy.limits.deadline.is_some() || policy.timeout.limit().is_some();
        Attempts {
            attempt: 1,
            decision: None,
            start: needs_clock.then(|| clock.now()),
            waited: Duration::ZERO,
        }
    }

    /// How long the next attempt may run: the per-attempt timeout clipped to
    /// the time left before the deadline, with the error a cut attempt gets.
    pub(crate) fn attempt_limit<S, C, N, B, T, K, E>(
        &self,
        policy: &RetryPolicy<S, C, N, B, T>,
        clock: &K,
    ) -> Option<(Duration, crate::MakeTimeoutError<E>)>
    where
        T: TimeoutFor<E>,
        K: Clock<Instant = I> + ?Sized,
    {
        let (timeout, make_error) = policy.timeout.limit()?;
        let elapsed = self.start.map_or(Duration::ZERO, |start| clock.since(start));
        Some((policy.limits.attempt_time(timeout, elapsed), make_error))
    }

    /// The attempt succeeded: the budget may refund.
    pub(crate) fn on_success<B: Budget + ?Sized>(&mut self, budget: &B) {
        match self.decision.as_mut() {
            Some(decision) => decision.on_success(),
            None => budget.deposit(self.attempt, None),
        }
    }

    /// The attempt failed with `error`, classified `failure`: decide, tell the
    /// hooks, and return the wait before the next attempt, or why to stop.
    /// `decision` makes the decision at the first failure.
    pub(crate) fn on_failure<S, C, N, B, T, K, E>(
        &mut self,
        policy: &RetryPolicy<S, C, N, B, T>,
        clock: &K,
        error: &E,
        failure: Failure,
        decision: impl FnOnce() -> Decision<D, DB>,
    ) -> Result<Duration, StopReason>
    where
        S: crate::Schedule,
        B: Budget,
        N: Notify<E>,
        E: core::fmt::Display,
        K: Clock<Instant = I> + ?Sized,
    {
        let start = *self.start.get_or_insert_with(|| clock.now());
        let decision = self.decision.get_or_insert_with(decision);
        let delay = policy.step(decision, error, failure, clock.since(start))?;
        self.attempt = decision.attempt();
        self.waited = self.waited.saturating_add(delay);
        Ok(delay)
    }
}
