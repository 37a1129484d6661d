//! One request's retry state, for the service drivers (tower, reqwest).
//!
//! It holds the [`Decision`] and reports through the policy's step, as the
//! blocking and async drivers do, so the rules, the hooks, the `tracing`
//! events and the metrics are the same everywhere. The drivers around it only clone
//! requests, call, race the attempt's time limit and sleep.

use core::time::Duration;

use crate::budget::Budget;
use crate::classify::Failure;
use crate::retry::event::Notify;
use crate::sleep::Clock;
use crate::{Decision, Limits, RetryPolicy, StopReason};

/// The retry state of one request.
pub(crate) struct Attempts<D, DB, I> {
    attempt: u32,
    /// Made at the first failure, so a success costs no entropy read.
    decision: Option<Decision<D, DB>>,
    /// When attempt 1 started: read up front if a deadline or a timeout needs
    /// it, otherwise at the first failure (as the other drivers do).
    start: Option<I>,
    waited: Duration,
    /// The policy's limits for services ([`RetryPolicy::service_limits`]).
    limits: Limits,
    /// The per-attempt timeout, if any.
    timeout: Option<Duration>,
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
    /// clock if the deadline or the per-attempt `timeout` will need it.
    pub(crate) fn start<S, C, N, B, T, K>(
        policy: &RetryPolicy<S, C, N, B, T>,
        timeout: Option<Duration>,
        clock: &K,
    ) -> Self
    where
        B: Budget,
        K: Clock<Instant = I> + ?Sized,
    {
        policy.budget.record_request();
        let limits = policy.service_limits();
        let needs_clock = limits.deadline.is_some() || timeout.is_some();
        Attempts {
            attempt: 1,
            decision: None,
            start: needs_clock.then(|| clock.now()),
            waited: Duration::ZERO,
            limits,
            timeout,
        }
    }

    /// How long the next attempt may run: the per-attempt timeout, cut to
    /// the time left before the deadline; `None` when neither limits it.
    pub(crate) fn attempt_limit<K>(&self, clock: &K) -> Option<Duration>
    where
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.start.map_or(Duration::ZERO, |start| clock.since(start));
        self.limits.attempt_limit(self.timeout, elapsed)
    }

    /// Takes the policy's rate limiter's token for the attempt about to be
    /// made, waiting on `sleeper` (the wait counts as waited); the deadline
    /// reason if the wait would reach the deadline. Nothing without a limiter.
    #[cfg(any(feature = "reqwest", feature = "tonic"))]
    pub(crate) async fn acquire<S, C, N, B, T, Z, K>(
        &mut self,
        policy: &RetryPolicy<S, C, N, B, T>,
        sleeper: &Z,
        clock: &K,
    ) -> Result<(), StopReason>
    where
        Z: crate::sleep::Sleeper + ?Sized,
        K: Clock<Instant = I> + ?Sized,
    {
        if !policy.limiter.is_set() {
            return Ok(());
        }
        match policy.limiter.acquire(&self.limits, self.start, sleeper, clock).await {
            Ok(wait) => {
                self.waited = self.waited.saturating_add(wait);
                Ok(())
            }
            Err((reason, wait)) => {
                self.waited = self.waited.saturating_add(wait);
                Err(reason)
            }
        }
    }

    /// One step of taking the rate limiter's token for the next attempt, for
    /// a driver that polls: `None` once taken, or the wait before asking
    /// again (counted as waited), or the deadline reason. `waiting` is the
    /// time this attempt has waited for its token so far.
    #[cfg(feature = "tower")]
    pub(crate) fn admit<S, C, N, B, T, K>(
        &mut self,
        policy: &RetryPolicy<S, C, N, B, T>,
        clock: &K,
        waiting: &mut Duration,
    ) -> Result<Option<Duration>, StopReason>
    where
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.start.map_or(Duration::ZERO, |start| clock.since(start));
        match policy.limiter.admit(&self.limits, elapsed)? {
            Some(wait) => {
                self.waited = self.waited.saturating_add(wait);
                *waiting = waiting.saturating_add(wait);
                Ok(Some(wait))
            }
            None => {
                policy.limiter.waited(core::mem::take(waiting));
                Ok(None)
            }
        }
    }

    /// The time left before the deadline, for an error that says the
    /// deadline came before the next attempt could be sent.
    #[cfg(any(feature = "tower", feature = "reqwest"))]
    pub(crate) fn time_left<K>(&self, clock: &K) -> Duration
    where
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.start.map_or(Duration::ZERO, |start| clock.since(start));
        self.limits.time_left(elapsed).unwrap_or(Duration::ZERO)
    }

    /// The attempt succeeded: the budget may refund, and the metrics count
    /// the operation, as the other drivers do.
    pub(crate) fn on_success<S, C, N, B: Budget, T>(&mut self, policy: &RetryPolicy<S, C, N, B, T>) {
        match self.decision.as_mut() {
            Some(decision) => policy.parts_with(&self.limits).succeeded(decision),
            None => {
                policy.budget.deposit(self.attempt, None);
                policy.instruments.first_try_success();
            }
        }
    }

    /// The attempt failed with `error` (of the type `error_type` names),
    /// classified `failure`: decide, tell the hooks, and return the wait
    /// before the next attempt, or why to stop. `decision` makes the
    /// decision, with the limits in force, at the first failure.
    pub(crate) fn on_failure<S, C, N, B, T, K, E>(
        &mut self,
        policy: &RetryPolicy<S, C, N, B, T>,
        clock: &K,
        error: &E,
        error_type: &'static str,
        failure: Failure,
        decision: impl FnOnce(Limits) -> Decision<D, DB>,
    ) -> Result<Duration, StopReason>
    where
        N: Notify<E>,
        E: core::fmt::Display,
        K: Clock<Instant = I> + ?Sized,
    {
        let start = *self.start.get_or_insert_with(|| clock.now());
        let limits = self.limits;
        let decision = self.decision.get_or_insert_with(|| decision(limits));
        let parts = policy.parts_with(&self.limits);
        let steering = decision.steering();
        let delay = parts.step(decision, error, error_type, failure, clock.since(start), steering)?;
        self.attempt = decision.attempt();
        self.waited = self.waited.saturating_add(delay);
        Ok(delay)
    }
}
