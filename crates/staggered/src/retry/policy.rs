//! `RetryPolicy`: a schedule plus classification, hooks, limits and budget,
//! configured once and used for many operations by the blocking and async
//! drivers. Both drivers decide through the same [`Decision`] and report
//! through the same step, so a rule or a hook cannot exist in one and not the
//! other.

use core::time::Duration;

use crate::budget::{Budget, NoBudget};
use crate::classify::{AlwaysTransient, Classifier, Failure, RetryIf};
use crate::retry::event::{GiveUpEvent, NoNotify, Notify, RetryEvent};
use crate::retry::timeout::{AttemptTimeout, NoTimeout};
use crate::sleep::Clock;
use crate::{Action, Decision, Limits, Schedule, StopReason};

/// How to retry: a [`Schedule`] with a classifier, a hook, a budget and limits.
///
/// ```
/// use std::time::Duration;
/// use staggered::{Preset, RetryPolicy, StopReason};
///
/// let policy = RetryPolicy::new(Preset::Interactive.backoff())
///     .retry_if(|e: &std::io::Error| e.kind() != std::io::ErrorKind::NotFound);
/// # let policy = policy.with_max_attempts(3);
/// let mut calls = 0;
/// # let sleeper = |_: Duration| {};
/// # let clock = || Duration::ZERO;
/// let result = policy.run_with(
///     |attempt| {
///         calls += 1; // the operation may borrow mutably
///         if attempt < 3 { Err(std::io::Error::other("flaky")) } else { Ok(attempt) }
///     },
///     &sleeper,
///     &clock,
/// );
/// let done = result.unwrap();
/// assert_eq!((done.value, done.attempts, calls), (3, 3, 3));
/// ```
///
/// # Limits
/// `max_attempts`, the deadline and the longest server hint start from the
/// schedule (for a [`Backoff`](crate::Backoff): its `max_attempts`, its
/// deadline and its largest delay) and can be overridden here.
///
/// # The clock
/// The deadline is measured from the start of attempt 1, so with a deadline
/// the loop reads the clock before the first call. Without one it reads the
/// clock only after attempt 1 fails, keeping the success path free of clock
/// reads; [`RetryEvent::elapsed`] then counts from that failure.
#[derive(Debug, Clone)]
pub struct RetryPolicy<S, C = AlwaysTransient, N = NoNotify, B = NoBudget, T = NoTimeout> {
    pub(crate) schedule: S,
    pub(crate) classifier: C,
    pub(crate) notify: N,
    pub(crate) budget: B,
    pub(crate) timeout: T,
    pub(crate) limits: Limits,
}

impl<S: Schedule> RetryPolicy<S> {
    /// A policy that retries every error on `schedule`.
    pub fn new(schedule: S) -> Self {
        let limits = Limits::for_schedule(&schedule);
        RetryPolicy {
            schedule,
            classifier: AlwaysTransient,
            notify: NoNotify,
            budget: NoBudget,
            timeout: NoTimeout,
            limits,
        }
    }
}

impl<S, C, N, B, T> RetryPolicy<S, C, N, B, T> {
    /// Retries only the errors for which `predicate` is true; the others are
    /// permanent (the `retryIf` predicate many retry libraries offer).
    pub fn retry_if<F>(self, predicate: F) -> RetryPolicy<S, RetryIf<F>, N, B, T> {
        self.classify(RetryIf(predicate))
    }

    /// Classifies errors with `classifier` (any `Fn(&E) -> Failure` works),
    /// which may also read server hints.
    pub fn classify<C2>(self, classifier: C2) -> RetryPolicy<S, C2, N, B, T> {
        RetryPolicy {
            schedule: self.schedule,
            classifier,
            notify: self.notify,
            budget: self.budget,
            timeout: self.timeout,
            limits: self.limits,
        }
    }

    /// Calls `notify` before every retry (any `Fn(&RetryEvent<E>)` works).
    pub fn on_retry<N2>(self, notify: N2) -> RetryPolicy<S, C, N2, B, T> {
        RetryPolicy {
            schedule: self.schedule,
            classifier: self.classifier,
            notify,
            budget: self.budget,
            timeout: self.timeout,
            limits: self.limits,
        }
    }

    /// Asks `budget` before every retry; share one budget between all the
    /// tasks of a client (pass a reference or an `Arc`).
    pub fn with_budget<B2>(self, budget: B2) -> RetryPolicy<S, C, N, B2, T> {
        RetryPolicy {
            schedule: self.schedule,
            classifier: self.classifier,
            notify: self.notify,
            budget,
            timeout: self.timeout,
            limits: self.limits,
        }
    }

    /// Cuts each attempt of the async driver after `timeout`, or at the
    /// deadline if that comes first. The cut attempt fails with
    /// [`TimedOut`](crate::TimedOut), so the operation's error type must
    /// implement `From<TimedOut>` (`std::io::Error` does), and is classified
    /// transient.
    pub fn with_attempt_timeout(self, timeout: Duration) -> RetryPolicy<S, C, N, B, AttemptTimeout> {
        RetryPolicy {
            schedule: self.schedule,
            classifier: self.classifier,
            notify: self.notify,
            budget: self.budget,
            timeout: AttemptTimeout(timeout),
            limits: self.limits,
        }
    }

    /// Replaces every limit at once (`max_attempts`, deadline, longest hint,
    /// hint jitter), e.g. with those of a loaded configuration.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits.with_hint_jitter(limits.hint_jitter);
        self
    }

    /// Sets the total number of calls (a schedule that ends sooner still ends sooner).
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.limits.max_attempts = Some(max_attempts);
        self
    }

    /// Sets the total time budget, from the start of attempt 1.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.limits.deadline = Some(deadline);
        self
    }

    /// Removes the deadline.
    pub fn without_deadline(mut self) -> Self {
        self.limits.deadline = None;
        self
    }

    /// Sets the longest server hint to honour; a longer one stops with
    /// [`StopReason::HintTooLong`].
    pub fn with_max_hint(mut self, max_hint: Duration) -> Self {
        self.limits.max_hint = Some(max_hint);
        self
    }

    /// Sets the jitter added on top of server hints, as a fraction of the
    /// hint (default 0.1, clamped to `[0, 1]`).
    pub fn with_hint_jitter(mut self, fraction: f64) -> Self {
        self.limits = self.limits.with_hint_jitter(fraction);
        self
    }

    /// Sets how a server hint sets the wait (default
    /// [`HintPolicy::AtLeast`](crate::HintPolicy)): the AWS SDKs' rule is
    /// [`HintPolicy::AWS`](crate::HintPolicy::AWS), gRPC's
    /// [`HintPolicy::Pushback`](crate::HintPolicy::Pushback).
    pub fn with_hint_policy(mut self, hint_policy: crate::HintPolicy) -> Self {
        self.limits = self.limits.with_hint_policy(hint_policy);
        self
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The schedule.
    pub const fn schedule(&self) -> &S {
        &self.schedule
    }

    /// The budget.
    pub const fn budget(&self) -> &B {
        &self.budget
    }
}

impl<S: Schedule, C, N, B: Budget, T> RetryPolicy<S, C, N, B, T> {
    /// A fresh decision for one operation, sharing this policy's budget.
    pub fn decision(&self) -> Decision<S::Delays, &B> {
        Decision::for_schedule(&self.schedule, self.limits, &self.budget)
    }

    /// One failed attempt, for every driver: decide, then tell the hook and
    /// the tracing integration. `Ok` is the wait before the next attempt.
    pub(crate) fn step<E, D, DB>(
        &self,
        decision: &mut Decision<D, DB>,
        error: &E,
        failure: Failure,
        elapsed: Duration,
    ) -> Result<Duration, StopReason>
    where
        N: Notify<E>,
        E: core::fmt::Display,
        D: Iterator<Item = Duration>,
        DB: Budget,
    {
        let attempt = decision.attempt();
        let max_attempts = self.limits.max_attempts;
        match decision.on_failure(&failure, elapsed) {
            Action::Retry(delay) => {
                let budget = decision.budget().metrics();
                let event = RetryEvent { attempt, max_attempts, delay, error, failure, elapsed, budget };
                self.notify.on_retry(&event);
                crate::retry::trace::retry(&event);
                Ok(delay)
            }
            Action::Stop(reason) => {
                let budget = decision.budget().metrics();
                let event = GiveUpEvent { reason, attempts: attempt, max_attempts, error, elapsed, budget };
                self.notify.on_give_up(&event);
                crate::retry::trace::give_up(&event);
                Err(reason)
            }
        }
    }

    /// The clock for the retries, once attempt 1 has failed (see [`Stopwatch`]).
    #[inline]
    pub(crate) fn stopwatch<E, K: Clock + ?Sized>(
        &self,
        start: Option<K::Instant>,
        clock: &K,
    ) -> Stopwatch<K::Instant>
    where
        N: Notify<E>,
    {
        let wanted = start.is_some() || <N as Notify<E>>::WANTS_ELAPSED || cfg!(feature = "tracing");
        match start {
            Some(start) => Stopwatch { start: Some(start), fresh: false },
            None if wanted => Stopwatch { start: Some(clock.now()), fresh: true },
            None => Stopwatch { start: None, fresh: true },
        }
    }

    /// The classification of an attempt's error.
    #[inline]
    pub(crate) fn classify_error<E>(&self, error: &E) -> Failure
    where
        C: Classifier<E>,
    {
        self.classifier.classify(error)
    }
}

/// The time since attempt 1 started, as the drivers measure it once attempt
/// 1 has failed. With a deadline or a timeout the clock was read before the
/// first attempt. Otherwise it is read at that failure only if something
/// wants the elapsed time (a hook, `tracing`), and not again right away: the
/// elapsed time is zero there. With nothing to want it, the clock is never
/// read and `elapsed` stays zero.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stopwatch<I> {
    start: Option<I>,
    /// Just started at attempt 1's failure: no need to read the clock again.
    fresh: bool,
}

impl<I: Copy> Stopwatch<I> {
    /// The time since the start, reading `clock` only when it counts.
    #[inline]
    pub(crate) fn elapsed<K: Clock<Instant = I> + ?Sized>(&mut self, clock: &K) -> Duration {
        let fresh = core::mem::replace(&mut self.fresh, false);
        match self.start {
            Some(start) if !fresh => clock.since(start),
            _ => Duration::ZERO,
        }
    }

    /// The start, if the clock was read.
    #[inline]
    pub(crate) fn start(&self) -> Option<I> {
        self.start
    }
}
