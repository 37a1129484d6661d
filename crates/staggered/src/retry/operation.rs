//! One operation under a policy: the state machine every driver steps.
//!
//! A driver (the blocking loop, the async future, the tower, reqwest and
//! tonic integrations, `stagger run`) asks [`Operation::before`] before each
//! attempt and reports each attempt to [`Operation::after`]; the answer is
//! "send attempt `n`, cut it at this limit", "wait this long", "done" or
//! "stop, for this reason". Everything around an attempt happens here: the
//! clock's start, the rate limiter's token and every response reported to
//! it, the attempt's time limit, classifying the outcome, the budget, the
//! [`Decision`] (which holds every stop rule), and telling the hooks,
//! `tracing` and `metrics`. A driver only sleeps, calls and races.

use core::fmt;
use core::time::Duration;

use crate::classify::{ErrorKind, Failure};
use crate::retry::event::{GiveUpEvent, Notify, RetryEvent};
use crate::retry::judge::Judge;
use crate::retry::policy::PolicyBudget;
use crate::retry::timeout::Timeout;
use crate::sleep::Clock;
use crate::{Action, Budget, Decision, Limits, Retried, RetryPolicy, Schedule, StopReason};

/// What to do before the next attempt.
pub(crate) enum Before<X> {
    /// Send attempt `attempt` now, cut after `limit` if there is one.
    Send { attempt: u32, limit: Option<Duration> },
    /// Wait this long for the rate limiter's token, then ask again.
    Wait(Duration),
    /// Stop without sending it.
    Stop(Stopped<X>),
}

/// What to do after an attempt.
pub(crate) enum After<V, X> {
    /// It succeeded.
    Done(Retried<V>),
    /// Wait this long, then ask [`Operation::before`] for the next attempt.
    Wait(Duration),
    /// Stop.
    Stop(Stopped<X>),
}

/// How an attempt ended: with its outcome, or cut at its time limit (its
/// error then says so: a [`TimedOut`](crate::TimedOut)).
pub(crate) enum Attempted<V, E> {
    Ended(Result<V, E>),
    Cut(E),
}

/// The retrying stopped: why, the attempts sent, the time waited, and the
/// last failed attempt (none when no attempt had failed).
pub(crate) struct Stopped<X> {
    pub(crate) reason: StopReason,
    pub(crate) attempts: u32,
    pub(crate) waited: Duration,
    pub(crate) last: Option<X>,
}

impl<X> Stopped<X> {
    /// As a [`RetryError`](crate::RetryError), the last attempt turned into
    /// what it returned by `last`.
    pub(crate) fn into_error<V, E>(self, last: impl FnOnce(X) -> Result<V, E>) -> crate::RetryError<E, V> {
        crate::RetryError::new(self.reason, self.attempts, self.waited, self.last.map(last))
    }
}

/// The retry state of one operation on the schedule `S`, whose clock reads
/// `I`, whose failed attempts are `X`.
pub(crate) struct Operation<S: Schedule, I, X> {
    limits: Limits,
    timeout: Option<Duration>,
    /// When attempt 1 started: read before it when a deadline or a timeout
    /// needs it, otherwise at its failure.
    start: Option<I>,
    /// The attempt in flight, or the next one.
    attempt: u32,
    /// The attempts sent so far.
    sent: u32,
    waited: Duration,
    /// The time the next attempt has waited for its token so far.
    token_wait: Duration,
    /// Made when first needed (a failure, a wait for a token, a cancel), so
    /// that a success costs no schedule and no budget handle.
    decision: Option<Decision<S, PolicyBudget>>,
    /// The last failed attempt, kept for a stop that has no newer one.
    last: Option<X>,
    /// Whether the attempt in flight may be sent again.
    repeatable: bool,
}

impl<S: Schedule, I: Copy, X> Operation<S, I, X> {
    fn elapsed<K: Clock<Instant = I> + ?Sized>(&self, clock: &K) -> Duration {
        self.start.map_or(Duration::ZERO, |start| clock.since(start))
    }
}

impl<S: Schedule, I: Copy, X: fmt::Display> Operation<S, I, X> {
    /// Starts an operation under `policy` with `limits` (the policy's, or
    /// its service limits): the budget counts a request, and the clock is
    /// read now if the deadline or a per-attempt timeout will need it.
    pub(crate) fn start<C, T: Timeout, K: Clock<Instant = I> + ?Sized>(
        policy: &RetryPolicy<S, C, T>,
        limits: Limits,
        clock: &K,
    ) -> Self {
        policy.budget.record_request();
        let timeout = policy.timeout.limit();
        let start = (limits.deadline.is_some() || timeout.is_some()).then(|| clock.now());
        Operation {
            limits,
            timeout,
            start,
            attempt: 1,
            sent: 0,
            waited: Duration::ZERO,
            token_wait: Duration::ZERO,
            decision: None,
            last: None,
            repeatable: true,
        }
    }

    /// Says whether the attempt in flight can be sent again (see
    /// [`Decision::set_repeatable`]).
    pub(crate) fn set_repeatable(&mut self, repeatable: bool) {
        self.repeatable = repeatable;
    }

    fn decision<C, T>(&mut self, policy: &RetryPolicy<S, C, T>) -> &mut Decision<S, PolicyBudget> {
        let limits = self.limits;
        self.decision
            .get_or_insert_with(|| Decision::for_schedule(&policy.schedule, limits, policy.budget.clone()))
    }

    /// Before each attempt: the rate limiter's token, if the policy has a
    /// limiter; then the attempt, with its time limit (the per-attempt
    /// timeout, cut to the time left before the deadline).
    pub(crate) fn before<C, T, K, H>(
        &mut self,
        policy: &RetryPolicy<S, C, T>,
        hooks: &H,
        clock: &K,
    ) -> Before<X>
    where
        K: Clock<Instant = I> + ?Sized,
        H: Notify<X>,
    {
        if let Err(wait) = policy.limiter.try_acquire() {
            let elapsed = self.elapsed(clock);
            return match self.decision(policy).on_token_wait(wait, elapsed) {
                Action::Retry(wait) => {
                    self.waited = self.waited.saturating_add(wait);
                    self.token_wait = self.token_wait.saturating_add(wait);
                    Before::Wait(wait)
                }
                Action::Stop(reason) => Before::Stop(self.give_up(policy, hooks, reason, None, elapsed)),
            };
        }
        if !self.token_wait.is_zero() {
            policy.limiter.record_wait(core::mem::take(&mut self.token_wait));
        }
        if let Some(decision) = &mut self.decision {
            decision.on_send();
        }
        self.sent = self.attempt;
        let limit = self.start.and_then(|start| self.limits.attempt_limit(self.timeout, clock.since(start)));
        Before::Send { attempt: self.attempt, limit }
    }

    /// After an attempt: judge it by `judge`; a success ends the operation,
    /// a failure is reported to the limiter and decided on.
    pub(crate) fn after<V, E, C, T, K, H, J>(
        &mut self,
        policy: &RetryPolicy<S, C, T>,
        hooks: &H,
        judge: &J,
        attempted: Attempted<V, E>,
        clock: &K,
    ) -> After<J::Success, X>
    where
        K: Clock<Instant = I> + ?Sized,
        H: Notify<X>,
        J: Judge<V, E, Failed = X>,
    {
        let (failed, failure) = match attempted {
            Attempted::Ended(outcome) => match judge.judge(outcome) {
                Ok(success) => return After::Done(self.succeed(policy, success)),
                Err(failed) => failed,
            },
            Attempted::Cut(error) => (J::failed(error), Failure::timeout()),
        };
        policy.limiter.record(failure.kind == ErrorKind::Throttled);
        let elapsed = match self.start {
            Some(start) => clock.since(start),
            None => {
                self.start = Some(clock.now());
                Duration::ZERO
            }
        };
        let attempt = self.attempt;
        let repeatable = self.repeatable;
        let decision = self.decision(policy);
        decision.set_repeatable(repeatable);
        let action = decision.on_failure(&failure, elapsed);
        let budget = self.decision(policy).budget().metrics();
        let max_attempts = self.limits.max_attempts;
        let error_type = J::type_name(&failed);
        match action {
            Action::Retry(delay) => {
                let event =
                    RetryEvent { attempt, max_attempts, delay, error: &failed, failure, elapsed, budget };
                policy.hooks.on_retry(&event);
                hooks.on_retry(&event);
                crate::retry::trace::retry(&event, error_type);
                policy.instruments.retry(&event, &policy.limiter);
                self.attempt = attempt.saturating_add(1);
                self.waited = self.waited.saturating_add(delay);
                self.last = Some(failed);
                After::Wait(delay)
            }
            Action::Stop(reason) => {
                self.last = Some(failed);
                After::Stop(self.give_up(policy, hooks, reason, Some(error_type), elapsed))
            }
        }
    }

    /// The caller cancelled while an attempt ran to its end (a blocking
    /// attempt cannot be dropped): if it failed, the retrying stops as
    /// cancelled, with that failure.
    pub(crate) fn cancel_after_attempt<C, T>(&mut self, policy: &RetryPolicy<S, C, T>) {
        self.decision(policy).cancel();
    }

    /// The caller cancelled, during a wait or during an attempt (which is
    /// dropped): the retrying stops, a retry allowed but not sent is given
    /// back to the budget, and the hooks hear it.
    pub(crate) fn cancel<C, T, K, H>(
        &mut self,
        policy: &RetryPolicy<S, C, T>,
        hooks: &H,
        clock: &K,
    ) -> Stopped<X>
    where
        K: Clock<Instant = I> + ?Sized,
        H: Notify<X>,
    {
        self.decision(policy).cancel();
        let elapsed = self.elapsed(clock);
        self.give_up(policy, hooks, StopReason::Cancelled, None, elapsed)
    }

    fn succeed<C, T, V>(&mut self, policy: &RetryPolicy<S, C, T>, value: V) -> Retried<V> {
        policy.limiter.record(false);
        match &mut self.decision {
            Some(decision) if self.attempt > 1 => {
                decision.on_success();
                policy.instruments.success_after_retry(decision.budget(), &policy.limiter);
            }
            _ => {
                policy.budget.deposit(1, None);
                policy.instruments.first_try_success();
            }
        }
        Retried { value, attempts: self.attempt, waited: self.waited }
    }

    /// Stops for `reason`, `elapsed` after attempt 1 started, with the last
    /// failed attempt (of the type `error_type` names, for `tracing`).
    fn give_up<C, T, H: Notify<X>>(
        &mut self,
        policy: &RetryPolicy<S, C, T>,
        hooks: &H,
        reason: StopReason,
        error_type: Option<&'static str>,
        elapsed: Duration,
    ) -> Stopped<X> {
        let attempts = self.sent;
        let decision = self.decision.as_ref();
        let budget = decision.and_then(|decision| decision.budget().metrics());
        let wait = decision.and_then(Decision::last_wait);
        let event = GiveUpEvent {
            reason,
            attempts,
            max_attempts: self.limits.max_attempts,
            error: self.last.as_ref(),
            wait,
            elapsed,
            budget,
        };
        policy.hooks.on_give_up(&event);
        hooks.on_give_up(&event);
        crate::retry::trace::give_up(&event, error_type.unwrap_or(core::any::type_name::<X>()), policy.trace);
        policy.instruments.give_up(&event, &policy.limiter);
        Stopped { reason, attempts, waited: self.waited, last: self.last.take() }
    }
}

/// An operation dropped during a wait (an outer timeout, a `select!`) gives
/// back to the budget the retry it was waiting to send.
impl<S: Schedule, I, X> Drop for Operation<S, I, X> {
    fn drop(&mut self) {
        if let Some(decision) = &mut self.decision {
            decision.retry_not_sent();
        }
    }
}
