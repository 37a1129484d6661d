//! What the drivers read of a policy for one operation ([`Parts`]), the
//! step every driver takes after a failed attempt, and the clock they read
//! for it ([`Stopwatch`]).

use core::borrow::Borrow;
use core::time::Duration;

use crate::budget::Budget;
use crate::classify::{Classifier, Failure};
use crate::retry::event::{GiveUpEvent, Notify, RetryEvent};
use crate::retry::instruments::Instruments;
use crate::retry::limit::PolicyLimiter;
use crate::retry::steering::{Static, Steer, Steering};
use crate::retry::trace::TraceLevels;
use crate::sleep::Clock;
use crate::{Action, Decision, Limits, Schedule, StopReason, TimedOut};

/// What the drivers read of a policy for one operation: its parts by
/// reference, the limits in force, the tracing levels and the metric keys. A
/// [`Retrying`](crate::Retrying) call swaps in its own classifier and adds
/// its own hooks; everything else is the policy's.
pub(crate) struct Parts<'a, S, C, N, B, T> {
    pub(crate) schedule: &'a S,
    pub(crate) classifier: &'a C,
    pub(crate) notify: &'a N,
    pub(crate) budget: &'a B,
    pub(crate) timeout: &'a T,
    pub(crate) limits: &'a Limits,
    pub(crate) trace: TraceLevels,
    pub(crate) instruments: &'a Instruments,
    pub(crate) limiter: &'a PolicyLimiter,
}

impl<S, C, N, B, T> Clone for Parts<'_, S, C, N, B, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, C, N, B, T> Copy for Parts<'_, S, C, N, B, T> {}

impl<'a, S, C, N, B, T> Parts<'a, S, C, N, B, T> {
    /// A fresh decision for one operation.
    #[inline]
    pub(crate) fn decision(&self) -> Decision<S::Delays, &'a B, &'a Limits>
    where
        S: Schedule,
        B: Budget,
    {
        Decision::steered(self.schedule.delays(), self.limits, self.budget, Steering::of::<S>())
    }

    /// The schedule's own steering, for [`step`](Parts::step) on a decision
    /// of its delays: a function known at compile time.
    #[inline(always)]
    pub(crate) fn next_delay(&self) -> Static<S> {
        Static::of()
    }

    /// One failed attempt, for every driver: decide, then tell the hooks,
    /// the tracing integration and the metrics. `Ok` is the wait before the next attempt.
    /// `error_type` names the error's type for `tracing`. `next` takes the
    /// scheduled delay: [`next_delay`](Parts::next_delay) for a decision of
    /// the schedule's own delays (a direct call), else the decision's steering.
    #[inline(always)]
    pub(crate) fn step<E, D, DB, L>(
        &self,
        decision: &mut Decision<D, DB, L>,
        error: &E,
        error_type: &'static str,
        failure: Failure,
        elapsed: Duration,
        next: impl Steer<D>,
    ) -> Result<Duration, StopReason>
    where
        N: Notify<E>,
        E: core::fmt::Display,
        D: Iterator<Item = Duration>,
        DB: Budget,
        L: Borrow<Limits>,
    {
        let attempt = decision.attempt();
        let max_attempts = self.limits.max_attempts;
        match decision.on_failure_by(&failure, elapsed, &next) {
            Action::Retry(delay) => {
                let budget = decision.budget().metrics();
                let event = RetryEvent { attempt, max_attempts, delay, error, failure, elapsed, budget };
                self.notify.on_retry(&event);
                crate::retry::trace::retry(&event, error_type);
                self.instruments.retry(&event, self.limiter);
                Ok(delay)
            }
            Action::Stop(reason) => {
                let budget = decision.budget().metrics();
                let event = GiveUpEvent {
                    reason,
                    attempts: attempt,
                    max_attempts,
                    error: Some(error),
                    cut: None,
                    elapsed,
                    budget,
                };
                self.notify.on_give_up(&event);
                crate::retry::trace::give_up(&event, error_type, self.trace);
                self.instruments.give_up(&event, self.limiter);
                Err(reason)
            }
        }
    }

    /// The deadline cut the running attempt and its error type cannot say
    /// so: the retrying ends, and the hooks hear it with the error before.
    pub(crate) fn cut<E, D, DB, L>(
        &self,
        decision: &mut Decision<D, DB, L>,
        previous: Option<&E>,
        error_type: &'static str,
        cut: TimedOut,
        elapsed: Duration,
    ) -> StopReason
    where
        N: Notify<E>,
        E: core::fmt::Display,
        D: Iterator<Item = Duration>,
        DB: Budget,
        L: Borrow<Limits>,
    {
        let reason = decision.on_cut(&Failure::timeout());
        let budget = decision.budget().metrics();
        let (attempt, max_attempts) = (decision.attempt(), self.limits.max_attempts);
        let event = GiveUpEvent {
            reason,
            attempts: attempt,
            max_attempts,
            error: previous,
            cut: Some(cut),
            elapsed,
            budget,
        };
        self.notify.on_give_up(&event);
        crate::retry::trace::give_up(&event, error_type, self.trace);
        self.instruments.give_up(&event, self.limiter);
        reason
    }

    /// The rate limiter had no token for the next attempt before the
    /// deadline: the retrying ends before that attempt is sent, and the
    /// hooks hear it with the error before, if any (`attempts` were made).
    pub(crate) fn unsent<E>(
        &self,
        reason: StopReason,
        attempts: u32,
        previous: Option<&E>,
        error_type: &'static str,
        elapsed: Duration,
        budget: Option<crate::BudgetMetrics>,
    ) where
        N: Notify<E>,
        E: core::fmt::Display,
    {
        let max_attempts = self.limits.max_attempts;
        let event =
            GiveUpEvent { reason, attempts, max_attempts, error: previous, cut: None, elapsed, budget };
        self.notify.on_give_up(&event);
        self.instruments.give_up(&event, self.limiter);
        crate::retry::trace::give_up(&event, error_type, self.trace);
    }

    /// A later attempt succeeded: the budget may refund, and the metrics
    /// count the operation. Every driver ends a retried success here.
    #[inline]
    pub(crate) fn succeeded<D: Iterator<Item = Duration>, DB: Budget, L: Borrow<Limits>>(
        &self,
        decision: &mut Decision<D, DB, L>,
    ) {
        decision.on_success();
        self.instruments.success_after_retry(decision.budget(), self.limiter);
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

    /// The classification of a plain operation's error.
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
