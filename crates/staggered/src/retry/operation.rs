//! One operation under a policy: the state machine every driver steps.
//!
//! A driver (the blocking loop, the async loop, the tower layer, `stagger
//! run` through the blocking loop) asks [`Operation::before`] before each
//! attempt and reports each attempt to [`Operation::after`]; the answer is
//! "send attempt `n`, cut it at this limit", "wait this long", "done" or
//! "stop, for this reason". Everything around an attempt happens here: the
//! clock's start, the rate limiter's token and every response reported to
//! it (with the quota the server announced on it), the attempt's time limit, classifying the outcome, the budget, the
//! [`Decision`] (which holds every stop rule), and telling the hooks,
//! `tracing` and `metrics`. A driver only sleeps, calls and races.

use core::fmt;
use core::time::Duration;

use crate::classify::{ErrorKind, Failure};
use crate::retry::event::{GiveUpEvent, Notify, RetryEvent};
use crate::retry::judge::Judge;
use crate::retry::limit::PolicyLimiter;
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
    /// Tells the hooks, `tracing` and `metrics` of a retry; `error_type`
    /// names the failed attempt's type, for `tracing`.
    pub(super) fn tell_retry<X: fmt::Display>(&self, event: &RetryEvent<'_, X>, error_type: &'static str)
    where
        H: Notify<X>,
    {
        self.policy.hooks.on_retry(event);
        self.hooks.on_retry(event);
        crate::retry::trace::retry(event, error_type);
        self.policy.instruments.retry(event, &self.policy.limiter);
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

impl<V, E> Attempted<V, E> {
    /// Judged by `judge`: the success, or the failed attempt and its
    /// failure (an attempt cut at its limit is a timeout). The quota the
    /// server announced on it, success or failure, goes to the `limiter`
    /// first: the one place a response's quota reaches the limiter.
    #[inline]
    pub(crate) fn judged<J: Judge<V, E>>(
        self,
        judge: &J,
        limiter: &PolicyLimiter,
    ) -> Result<J::Success, (J::Failed, Failure)> {
        match self {
            Attempted::Ended(outcome) => {
                limiter.announce(|| judge.quota(outcome.as_ref()));
                judge.judge(outcome)
            }
            Attempted::Cut(error) => Err((J::failed(error), Failure::timeout())),
        }
    }
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

/// The state of one operation on the schedule `S`, whose clock reads `I`,
/// whose failed attempts are `X`.
pub(crate) struct Operation<S: Schedule, I, X> {
    /// When attempt 1 started: read before it when the deadline or a
    /// timeout needs it, otherwise at its failure (or its first wait for a
    /// token): a success needs no clock.
    pub(super) start: Option<I>,
    /// The attempt in flight, or the next one.
    pub(super) attempt: u32,
    /// The attempts sent so far.
    pub(super) sent: u32,
    /// What there is to know once an attempt has failed or waited for a
    /// token: made then, so that a first-try success builds none of it.
    pub(super) retrying: Option<Retrying<S, X>>,
}

/// An operation's state once it has something to retry or to wait for.
pub(super) struct Retrying<S: Schedule, X> {
    pub(super) decision: Decision<S, PolicyBudget>,
    /// The waits so far, the one under way included.
    waited: Duration,
    /// The wait under way, if any: when it began (since the start) and how
    /// long it is, so that a wait the caller cancels counts only its part.
    waiting: Option<(Duration, Duration)>,
    /// The time the next attempt has waited for its token so far.
    token_wait: Duration,
    /// The last failed attempt, kept for a stop that has no newer one.
    pub(super) last: Option<X>,
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
        Operation { start: cx.times_attempts().then(|| cx.clock.now()), attempt: 1, sent: 0, retrying: None }
    }

    /// Says whether the attempt in flight can be sent again (see
    /// [`Decision::set_repeatable`]): a request that cannot be stops with
    /// [`StopReason::NotRepeatable`] if it fails.
    pub(crate) fn set_repeatable<C, T, H, K: ?Sized>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        repeatable: bool,
    ) {
        if !repeatable {
            self.retrying(cx).decision.set_repeatable(false);
        }
    }

    /// Before each attempt, `fired` saying whether the caller's cancel
    /// signal has fired: a cancelled call stops here, before it takes
    /// anything. Otherwise the rate limiter's token, if the policy has a
    /// limiter; then the attempt, with its time limit (the per-attempt
    /// timeout, cut to the time left before the deadline).
    #[inline]
    pub(crate) fn before<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>, fired: bool) -> Before<X>
    where
        T: Timeout,
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        if fired {
            return Before::Stop(self.cancel(cx));
        }
        if let Err(wait) = cx.policy.limiter.try_acquire() {
            return self.wait_for_token(cx, wait);
        }
        if let Some(retrying) = &mut self.retrying {
            retrying.sent(cx.policy);
        }
        self.sent = self.attempt;
        let limit = match self.start {
            Some(start) if cx.times_attempts() => Self::attempt_limit(cx, start),
            _ => None,
        };
        Before::Send { attempt: self.attempt, limit }
    }

    /// The time limit of an attempt starting now, attempt 1 having started
    /// at `start`.
    fn attempt_limit<C, T, H, K>(cx: &CallParts<'_, S, C, T, H, K>, start: I) -> Option<Duration>
    where
        T: Timeout,
        K: Clock<Instant = I> + ?Sized,
    {
        cx.limits.attempt_limit(cx.policy.timeout.limit(), cx.clock.since(start))
    }

    /// After an attempt: judge it by `judge`; a success ends the operation,
    /// a failure is reported to the limiter and decided on. `fired` tells
    /// whether the caller's cancel signal fired by the time the attempt
    /// ended, asked of a failure only: a response that has arrived is
    /// kept, so a success still wins, and a failure stops the retrying as
    /// cancelled, with that failure as the last.
    #[inline]
    pub(crate) fn after<V, E, C, T, H, K, J>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        judge: &J,
        attempted: Attempted<V, E>,
        fired: impl FnOnce() -> bool,
    ) -> After<J::Success, X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
        J: Judge<V, E, Failed = X>,
    {
        match attempted.judged(judge, &cx.policy.limiter) {
            Ok(success) => After::Done(self.succeed(cx.policy, success, self.attempt)),
            Err((failed, failure)) => self.fail(cx, failed, failure, J::type_name, fired()),
        }
    }

    /// The caller cancelled, during a wait or during an attempt (which is
    /// dropped): the retrying stops, a retry allowed but not sent is given
    /// back to the budget, and the hooks hear it.
    #[cold]
    pub(crate) fn cancel<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>) -> Stopped<X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.elapsed(cx.clock);
        let retrying = self.retrying(cx);
        retrying.decision.cancel();
        if let Some((began, wait)) = retrying.waiting.take() {
            let unwaited = wait.saturating_sub(elapsed.saturating_sub(began));
            retrying.waited = retrying.waited.saturating_sub(unwaited);
        }
        self.give_up(cx, StopReason::Cancelled, None, elapsed)
    }

    // Without `std` the policy's budget is a `NoBudget`, which is `Copy`.
    #[cfg_attr(not(feature = "std"), allow(clippy::clone_on_copy))]
    pub(super) fn retrying<C, T, H, K: ?Sized>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
    ) -> &mut Retrying<S, X> {
        let policy = cx.policy;
        self.retrying.get_or_insert_with(|| Retrying {
            decision: Decision::for_schedule(&policy.schedule, *cx.limits, policy.budget.clone()),
            waited: Duration::ZERO,
            waiting: None,
            token_wait: Duration::ZERO,
            last: None,
        })
    }

    fn elapsed<K: Clock<Instant = I> + ?Sized>(&self, clock: &K) -> Duration {
        self.start.map_or(Duration::ZERO, |start| clock.since(start))
    }

    /// The time since attempt 1 started, starting the clock now if it has
    /// not started yet.
    pub(super) fn started<K: Clock<Instant = I> + ?Sized>(&mut self, clock: &K) -> Duration {
        match self.start {
            Some(start) => clock.since(start),
            None => {
                self.start = Some(clock.now());
                Duration::ZERO
            }
        }
    }

    fn waited(&self) -> Duration {
        self.retrying.as_ref().map_or(Duration::ZERO, |retrying| retrying.waited)
    }

    /// The rate limiter has no token for the next attempt yet: wait for one,
    /// or stop if the wait would reach the deadline.
    #[cold]
    fn wait_for_token<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>, wait: Duration) -> Before<X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.started(cx.clock);
        let retrying = self.retrying(cx);
        match retrying.decision.on_token_wait(wait, elapsed) {
            Action::Retry(wait) => {
                retrying.waited = retrying.waited.saturating_add(wait);
                retrying.waiting = Some((elapsed, wait));
                retrying.token_wait = retrying.token_wait.saturating_add(wait);
                Before::Wait(wait)
            }
            Action::Stop(reason) => Before::Stop(self.give_up(cx, reason, None, elapsed)),
        }
    }

    /// The attempt `winner` succeeded with `value`.
    #[inline]
    pub(super) fn succeed<C, T, V>(
        &mut self,
        policy: &RetryPolicy<S, C, T>,
        value: V,
        winner: u32,
    ) -> Retried<V> {
        policy.limiter.record(false);
        match &mut self.retrying {
            None => {
                policy.budget.deposit(1, None);
                policy.instruments.first_try_success();
                Retried { value, attempts: 1, waited: Duration::ZERO, winner: 1 }
            }
            Some(retrying) => {
                let waited = retrying.succeed(policy, winner);
                Retried { value, attempts: self.sent, waited, winner }
            }
        }
    }

    /// A failed attempt, classified `failure`: reported to the limiter,
    /// decided on (as cancelled if the signal `fired`), and heard by the
    /// hooks. `type_name` names what failed, for `tracing`.
    fn fail<V, C, T, H, K>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        failed: X,
        failure: Failure,
        type_name: fn(&X) -> &'static str,
        fired: bool,
    ) -> After<V, X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let policy = cx.policy;
        policy.limiter.record(failure.kind == ErrorKind::Throttled);
        // Without a deadline the clock starts at attempt 1's failure.
        let elapsed = self.started(cx.clock);
        let attempt = self.attempt;
        let retrying = self.retrying(cx);
        if fired {
            retrying.decision.cancel();
        }
        match retrying.decision.on_failure(&failure, elapsed) {
            Action::Retry(delay) => {
                let budget = retrying.decision.budget().metrics();
                let max_attempts = cx.limits.max_attempts;
                let event =
                    RetryEvent { attempt, max_attempts, delay, error: &failed, failure, elapsed, budget };
                cx.tell_retry(&event, type_name(&failed));
                retrying.waited = retrying.waited.saturating_add(delay);
                retrying.waiting = Some((elapsed, delay));
                retrying.last = Some(failed);
                self.attempt = attempt.saturating_add(1);
                After::Wait(delay)
            }
            Action::Stop(reason) => {
                let error_type = type_name(&failed);
                retrying.last = Some(failed);
                After::Stop(self.give_up(cx, reason, Some(error_type), elapsed))
            }
        }
    }

    /// Stops for `reason`, `elapsed` after attempt 1 started, with the last
    /// failed attempt (of the type `error_type` names, for `tracing`).
    #[cold]
    pub(super) fn give_up<C, T, H, K>(
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
        let (policy, attempts) = (cx.policy, self.sent);
        let waited = self.waited();
        let retrying = self.retrying(cx);
        let event = GiveUpEvent {
            reason,
            attempts,
            max_attempts: cx.limits.max_attempts,
            error: retrying.last.as_ref(),
            wait: retrying.decision.last_wait(),
            elapsed,
            budget: retrying.decision.budget().metrics(),
        };
        policy.hooks.on_give_up(&event);
        cx.hooks.on_give_up(&event);
        crate::retry::trace::give_up(&event, error_type.unwrap_or(core::any::type_name::<X>()), policy.trace);
        policy.instruments.give_up(&event, &policy.limiter);
        Stopped { reason, attempts, waited, last: retrying.last.take() }
    }
}

impl<S: Schedule, X> Retrying<S, X> {
    /// The attempt `winner` succeeded after a failure or a wait: the budget
    /// and the instruments hear it. Returns the time waited.
    fn succeed<C, T>(&mut self, policy: &RetryPolicy<S, C, T>, winner: u32) -> Duration {
        self.decision.on_success();
        if winner == 1 {
            policy.instruments.first_try_success();
        } else {
            policy.instruments.success_after_retry(self.decision.budget(), &policy.limiter);
        }
        self.waited
    }

    /// The next attempt is being sent: its token's wait is over, and the
    /// retry that the budget paid for is spent.
    pub(super) fn sent<C, T>(&mut self, policy: &RetryPolicy<S, C, T>) {
        self.waiting = None;
        if !self.token_wait.is_zero() {
            policy.limiter.record_wait(core::mem::take(&mut self.token_wait));
        }
        self.decision.on_send();
    }
}

/// An operation dropped during a wait (an outer timeout, a `select!`) gives
/// back to the budget the retry it was waiting to send.
impl<S: Schedule, I, X> Drop for Operation<S, I, X> {
    fn drop(&mut self) {
        if let Some(retrying) = &mut self.retrying {
            retrying.decision.retry_not_sent();
        }
    }
}
