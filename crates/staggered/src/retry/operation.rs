//! One operation under a policy: the state machine every driver steps.
//!
//! A driver (the blocking loop, the async loop, the tower layer, `stagger
//! run` through the blocking loop) asks [`Operation::before`] before each
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

/// What the machine reads of a call at each step: the policy, the limits
/// in force (the policy's, or its service limits), the call's own hooks,
/// and the clock.
pub(crate) struct CallParts<'a, S, C, T, H, K: ?Sized> {
    pub(crate) policy: &'a RetryPolicy<S, C, T>,
    pub(crate) limits: &'a Limits,
    pub(crate) hooks: &'a H,
    pub(crate) clock: &'a K,
}

impl<S, C, T: Timeout, H, K: ?Sized> CallParts<'_, S, C, T, H, K> {
    /// Whether the clock must be read before attempt 1: for the deadline,
    /// or to cut attempts at their timeout.
    fn times_attempts(&self) -> bool {
        self.limits.deadline.is_some() || self.policy.timeout.limit().is_some()
    }
}

impl<S, C, T, H, K: ?Sized> CallParts<'_, S, C, T, H, K> {
    /// Whether anything reads an event's elapsed time: a hook, or `tracing`.
    fn hears<X: ?Sized>(&self) -> bool
    where
        H: Notify<X>,
    {
        self.policy.hooks.hears() || Notify::<X>::hears(self.hooks) || cfg!(feature = "tracing")
    }
}

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
    /// When attempt 1 started: read before it when the deadline or a
    /// timeout needs it, otherwise at its failure if a hook will read it.
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

impl<S: Schedule, I: Copy, X: fmt::Display> Operation<S, I, X> {
    /// Starts an operation: the budget counts a request, and the clock is
    /// read now if the deadline or a per-attempt timeout will need it.
    #[inline]
    pub(crate) fn start<C, T, H, K>(cx: &CallParts<'_, S, C, T, H, K>) -> Self
    where
        T: Timeout,
        K: Clock<Instant = I> + ?Sized,
    {
        cx.policy.budget.record_request();
        Operation {
            start: cx.times_attempts().then(|| cx.clock.now()),
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
    #[inline]
    pub(crate) fn set_repeatable(&mut self, repeatable: bool) {
        self.repeatable = repeatable;
    }

    /// Before each attempt: the rate limiter's token, if the policy has a
    /// limiter; then the attempt, with its time limit (the per-attempt
    /// timeout, cut to the time left before the deadline).
    #[inline]
    pub(crate) fn before<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>) -> Before<X>
    where
        T: Timeout,
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        if let Err(wait) = cx.policy.limiter.try_acquire() {
            return self.wait_for_token(cx, wait);
        }
        if !self.token_wait.is_zero() {
            cx.policy.limiter.record_wait(core::mem::take(&mut self.token_wait));
        }
        if let Some(decision) = &mut self.decision {
            decision.on_send();
        }
        self.sent = self.attempt;
        let limit = match self.start {
            Some(start) if cx.times_attempts() => {
                cx.limits.attempt_limit(cx.policy.timeout.limit(), cx.clock.since(start))
            }
            _ => None,
        };
        Before::Send { attempt: self.attempt, limit }
    }

    /// After an attempt: judge it by `judge`; a success ends the operation,
    /// a failure is reported to the limiter and decided on.
    #[inline]
    pub(crate) fn after<V, E, C, T, H, K, J>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        judge: &J,
        attempted: Attempted<V, E>,
    ) -> After<J::Success, X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
        J: Judge<V, E, Failed = X>,
    {
        match attempted {
            Attempted::Ended(outcome) => match judge.judge(outcome) {
                Ok(success) => After::Done(self.succeed(cx.policy, success)),
                Err((failed, failure)) => self.fail(cx, failed, failure, J::type_name),
            },
            Attempted::Cut(error) => self.fail(cx, J::failed(error), Failure::timeout(), J::type_name),
        }
    }

    /// The caller cancelled while an attempt ran to its end (a blocking
    /// attempt cannot be dropped): if it failed, the retrying stops as
    /// cancelled, with that failure.
    pub(crate) fn cancel_after_attempt<C, T, H, K: ?Sized>(&mut self, cx: &CallParts<'_, S, C, T, H, K>) {
        self.decision(cx).cancel();
    }

    /// The caller cancelled, during a wait or during an attempt (which is
    /// dropped): the retrying stops, a retry allowed but not sent is given
    /// back to the budget, and the hooks hear it.
    pub(crate) fn cancel<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>) -> Stopped<X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        self.decision(cx).cancel();
        let elapsed = self.elapsed(cx.clock);
        self.give_up(cx, StopReason::Cancelled, None, elapsed)
    }

    fn decision<C, T, H, K: ?Sized>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
    ) -> &mut Decision<S, PolicyBudget> {
        let policy = cx.policy;
        self.decision.get_or_insert_with(|| {
            Decision::for_schedule(&policy.schedule, *cx.limits, policy.budget.clone())
        })
    }

    fn elapsed<K: Clock<Instant = I> + ?Sized>(&self, clock: &K) -> Duration {
        self.start.map_or(Duration::ZERO, |start| clock.since(start))
    }

    /// The rate limiter has no token for the next attempt yet: wait for one,
    /// or stop if the wait would reach the deadline.
    fn wait_for_token<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>, wait: Duration) -> Before<X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.elapsed(cx.clock);
        match self.decision(cx).on_token_wait(wait, elapsed) {
            Action::Retry(wait) => {
                self.waited = self.waited.saturating_add(wait);
                self.token_wait = self.token_wait.saturating_add(wait);
                Before::Wait(wait)
            }
            Action::Stop(reason) => Before::Stop(self.give_up(cx, reason, None, elapsed)),
        }
    }

    #[inline]
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

    /// A failed attempt, classified `failure`: reported to the limiter,
    /// decided on, and heard by the hooks. `type_name` names what failed,
    /// for `tracing`.
    fn fail<V, C, T, H, K>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        failed: X,
        failure: Failure,
        type_name: fn(&X) -> &'static str,
    ) -> After<V, X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let policy = cx.policy;
        policy.limiter.record(failure.kind == ErrorKind::Throttled);
        // Without a deadline the clock starts at attempt 1's failure, and
        // only if a hook or `tracing` will read the time.
        let elapsed = match self.start {
            Some(start) => cx.clock.since(start),
            None => {
                if cx.hears::<X>() {
                    self.start = Some(cx.clock.now());
                }
                Duration::ZERO
            }
        };
        let (attempt, repeatable) = (self.attempt, self.repeatable);
        let decision = self.decision(cx);
        decision.set_repeatable(repeatable);
        let action = decision.on_failure(&failure, elapsed);
        match action {
            Action::Retry(delay) => {
                let budget = decision.budget().metrics();
                let max_attempts = cx.limits.max_attempts;
                let event =
                    RetryEvent { attempt, max_attempts, delay, error: &failed, failure, elapsed, budget };
                policy.hooks.on_retry(&event);
                cx.hooks.on_retry(&event);
                crate::retry::trace::retry(&event, type_name(&failed));
                policy.instruments.retry(&event, &policy.limiter);
                self.attempt = attempt.saturating_add(1);
                self.waited = self.waited.saturating_add(delay);
                self.last = Some(failed);
                After::Wait(delay)
            }
            Action::Stop(reason) => {
                let error_type = type_name(&failed);
                self.last = Some(failed);
                After::Stop(self.give_up(cx, reason, Some(error_type), elapsed))
            }
        }
    }

    /// Stops for `reason`, `elapsed` after attempt 1 started, with the last
    /// failed attempt (of the type `error_type` names, for `tracing`).
    fn give_up<C, T, H, K>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        reason: StopReason,
        error_type: Option<&'static str>,
        elapsed: Duration,
    ) -> Stopped<X>
    where
        H: Notify<X>,
        K: ?Sized,
    {
        let policy = cx.policy;
        let decision = self.decision.as_ref();
        let event = GiveUpEvent {
            reason,
            attempts: self.sent,
            max_attempts: cx.limits.max_attempts,
            error: self.last.as_ref(),
            wait: decision.and_then(Decision::last_wait),
            elapsed,
            budget: decision.and_then(|decision| decision.budget().metrics()),
        };
        policy.hooks.on_give_up(&event);
        cx.hooks.on_give_up(&event);
        crate::retry::trace::give_up(&event, error_type.unwrap_or(core::any::type_name::<X>()), policy.trace);
        policy.instruments.give_up(&event, &policy.limiter);
        Stopped { reason, attempts: self.sent, waited: self.waited, last: self.last.take() }
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
