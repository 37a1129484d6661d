//! `RetryPolicy`: a schedule plus classification, hooks, limits and budget,
//! configured once and used for many operations by every driver. The
//! drivers decide through the same [`Decision`] and report through the same
//! step ([`Parts::step`]), so a rule or a hook cannot exist in one and not
//! the other.

use core::time::Duration;

use crate::budget::{Budget, NoBudget};
use crate::classify::{DefaultRules, RetryIf};
use crate::error::{ConfigError, Field, Rule};
use crate::retry::event::{GiveUpEvent, Hooks, NoNotify, OnGiveUp, OnRetry, RetryEvent};
use crate::retry::instruments::Instruments;
use crate::retry::limit::PolicyLimiter;
use crate::retry::parts::Parts;
use crate::retry::timeout::{AttemptTimeout, NoTimeout};
use crate::retry::trace::TraceLevels;
use crate::{Decision, Limits, Schedule};

/// The longest server hint the service integrations honour by default,
/// when the policy's `max_hint` was not set (and the schedule's largest
/// delay is shorter): servers ask for seconds to a minute.
pub const SERVICE_MAX_HINT: Duration = Duration::from_secs(60);

/// How to retry: a [`Schedule`] with a classifier, hooks, a budget, a
/// per-attempt timeout and limits. Built once, used for many operations
/// (share it by reference or in an `Arc`).
///
/// ```
/// use std::time::Duration;
/// use staggered::{Preset, RetryPolicy, StopReason};
///
/// let policy = RetryPolicy::new(Preset::Interactive.backoff()) // 3 attempts
///     .with_deadline(Duration::from_secs(10));
/// # let sleeper = |_: Duration| {};
/// # let clock = || Duration::ZERO;
/// let mut calls = 0;
/// let done = policy
///     .retry(|attempt| {
///         calls += 1; // the operation may borrow mutably
///         if attempt < 3 { Err(std::io::Error::other("flaky")) } else { Ok(attempt) }
///     })
///     .when(|e| e.kind() != std::io::ErrorKind::NotFound) // `e` is a `&std::io::Error`
///     .run_with(&sleeper, &clock)
///     .unwrap();
/// assert_eq!((done.value, done.attempts, calls), (3, 3, 3));
/// ```
///
/// # Type parameters
/// Each part is a type parameter with a default that does nothing, so a
/// policy names only what it sets (`RetryPolicy<Backoff, ClassifyHttp>`):
/// `S` the schedule, `C` the classifier ([`DefaultRules`]), `N` the hooks
/// ([`NoNotify`]), `B` the budget ([`NoBudget`]), `T` the per-attempt
/// timeout ([`NoTimeout`]). A part added later comes last, with a default
/// that does nothing, so the types written today keep their meaning.
///
/// # Defaults
/// | part | default | set with |
/// |---|---|---|
/// | classifier | [`DefaultRules`]: every error of an operation transient; HTTP responses by the HTTP rules | [`classify`](RetryPolicy::classify), [`retry_if`](RetryPolicy::retry_if) |
/// | hooks | none | [`on_retry`](RetryPolicy::on_retry), [`on_give_up`](RetryPolicy::on_give_up), [`notify`](RetryPolicy::notify) |
/// | budget | none | [`with_budget`](RetryPolicy::with_budget) |
/// | rate limiter | none | [`with_rate_limiter`](RetryPolicy::with_rate_limiter) |
/// | per-attempt timeout | none (async drivers still cut an attempt at the deadline) | [`with_attempt_timeout`](RetryPolicy::with_attempt_timeout) |
/// | `max_attempts` | the schedule's (a [`Backoff`](crate::Backoff)'s `max_attempts`) | [`with_max_attempts`](RetryPolicy::with_max_attempts) |
/// | deadline | the schedule's (none for most) | [`with_deadline`](RetryPolicy::with_deadline) |
/// | `max_hint` | see the table below | [`with_max_hint`](RetryPolicy::with_max_hint) |
/// | hint jitter, hint policy | 0.1, [`HintPolicy::AtLeast`](crate::HintPolicy) | [`with_hint_jitter`](RetryPolicy::with_hint_jitter), [`with_hint_policy`](RetryPolicy::with_hint_policy) |
/// | `tracing` level of a give-up | `WARN` (`DEBUG` for a permanent failure on attempt 1) | `with_give_up_level` (feature `tracing`) |
/// | `metrics` | none recorded | `with_metrics`, `with_operation_name` (feature `metrics`) |
///
/// `max_hint`, the longest server hint (`Retry-After` and friends) to
/// honour, unless set:
///
/// | driver | default `max_hint` |
/// |---|---|
/// | plain operations (`call`, `call_async`, [`retry`](RetryPolicy::retry)) | the schedule's largest delay (a `Backoff`'s `max_delay`, or more in interval mode) |
/// | the HTTP and gRPC integrations (`tower::RetryLayer`, `reqwest::RetryMiddleware`, `retry_grpc`) | the larger of that and one minute ([`SERVICE_MAX_HINT`]) |
///
/// A plain operation's hints come from your own classifier, so they are
/// held to what the schedule itself would wait. Servers ask HTTP and gRPC
/// clients to come back after seconds to a minute; with a 500 ms
/// `max_delay`, a `Retry-After: 1` would otherwise end the retrying. Either
/// way the deadline bounds the wait, and a longer hint stops with
/// [`StopReason::HintTooLong`](crate::StopReason::HintTooLong) rather than knock early.
///
/// # The clock
/// The deadline is measured from the start of attempt 1, so with a deadline
/// the loop reads the clock before the first call. Without one it reads the
/// clock only after attempt 1 fails, keeping the success path free of clock
/// reads; [`RetryEvent::elapsed`] then counts from that failure.
#[derive(Debug, Clone)]
pub struct RetryPolicy<S, C = DefaultRules, N = NoNotify, B = NoBudget, T = NoTimeout> {
    pub(crate) schedule: S,
    pub(crate) classifier: C,
    pub(crate) notify: N,
    pub(crate) budget: B,
    pub(crate) timeout: T,
    pub(crate) limits: Limits,
    /// Whether `max_hint` was set rather than taken from the schedule: the
    /// service integrations raise a taken one to [`SERVICE_MAX_HINT`].
    pub(crate) max_hint_set: bool,
    pub(crate) trace: TraceLevels,
    /// The keys of its `metrics`, with its operation name if it has one.
    pub(crate) instruments: Instruments,
    /// The client-side rate limiter every attempt takes a token from, if any.
    pub(crate) limiter: PolicyLimiter,
}

impl<S: Schedule> RetryPolicy<S> {
    /// A policy on `schedule`, with its limits, the [`DefaultRules`] and
    /// nothing else.
    pub fn new(schedule: S) -> Self {
        let limits = Limits::for_schedule(&schedule);
        RetryPolicy {
            schedule,
            classifier: DefaultRules::new(),
            notify: NoNotify,
            budget: NoBudget,
            timeout: NoTimeout,
            limits,
            max_hint_set: false,
            trace: TraceLevels::DEFAULT,
            instruments: Instruments::DEFAULT,
            limiter: PolicyLimiter::default(),
        }
    }
}

impl<S, C, N, B, T> RetryPolicy<S, C, N, B, T> {
    /// The same policy with its classifier, hooks, budget and timeout
    /// replaced by `change`: the one place that lists every part.
    fn replace<C2, N2, B2, T2>(
        self,
        change: impl FnOnce(C, N, B, T) -> (C2, N2, B2, T2),
    ) -> RetryPolicy<S, C2, N2, B2, T2> {
        let (classifier, notify, budget, timeout) =
            change(self.classifier, self.notify, self.budget, self.timeout);
        RetryPolicy {
            schedule: self.schedule,
            classifier,
            notify,
            budget,
            timeout,
            limits: self.limits,
            max_hint_set: self.max_hint_set,
            trace: self.trace,
            instruments: self.instruments,
            limiter: self.limiter,
        }
    }

    /// Its argument needs its type here; on [`retry`](RetryPolicy::retry) it is
    /// inferred from the operation.
    ///
    /// Retries only the errors for which `predicate` is true; the others are
    /// permanent (the `retryIf` predicate many retry libraries offer).
    pub fn retry_if<F>(self, predicate: F) -> RetryPolicy<S, RetryIf<F>, N, B, T> {
        self.classify(RetryIf(predicate))
    }

    /// Classifies failures with `classifier`: any `Fn(&E) -> Failure`
    /// (such as [`classify_io`](crate::classify::io::classify_io)), a
    /// [`Classifier`](crate::Classifier), or a
    /// [`ClassifyResult`](crate::ClassifyResult) that judges responses too
    /// ([`ClassifyHttp`](crate::classify::http::ClassifyHttp)). Server hints
    /// come with the classification.
    pub fn classify<C2>(self, classifier: C2) -> RetryPolicy<S, C2, N, B, T> {
        self.replace(|_, notify, budget, timeout| (classifier, notify, budget, timeout))
    }

    /// Adds `hook`, called before every retry with a [`RetryEvent`] (which
    /// displays as a log line). The error type is inferred from the
    /// operation the policy runs, so the closure needs no annotation:
    /// `.on_retry(|event| eprintln!("{event}"))`.
    pub fn on_retry<E, F>(self, hook: F) -> RetryPolicy<S, C, Hooks<N, OnRetry<F, E>>, B, T>
    where
        F: Fn(&RetryEvent<'_, E>),
    {
        self.notify(OnRetry::new(hook))
    }

    /// Adds `hook`, called once when the loop gives up with a
    /// [`GiveUpEvent`] (which displays as a log line), the error type
    /// inferred as for [`on_retry`](RetryPolicy::on_retry).
    pub fn on_give_up<E, F>(self, hook: F) -> RetryPolicy<S, C, Hooks<N, OnGiveUp<F, E>>, B, T>
    where
        F: Fn(&GiveUpEvent<'_, E>),
    {
        self.notify(OnGiveUp::new(hook))
    }

    /// Adds a [`Notify`](crate::Notify) hook, told of every retry and give-up: a type that
    /// hears both, or serves several error types.
    pub fn notify<N2>(self, hook: N2) -> RetryPolicy<S, C, Hooks<N, N2>, B, T> {
        self.replace(|classifier, notify, budget, timeout| (classifier, Hooks(notify, hook), budget, timeout))
    }

    /// Asks `budget` before every retry; share one budget between all the
    /// tasks of a client (pass a reference or an `Arc`, or clone the
    /// budget's handle).
    pub fn with_budget<B2>(self, budget: B2) -> RetryPolicy<S, C, N, B2, T> {
        self.replace(|classifier, notify, _, timeout| (classifier, notify, budget, timeout))
    }

    /// Takes a token from `limiter` before every attempt, the first
    /// included, waiting through the driver's sleeper while there is none,
    /// and reports every response to it (throttled when the classifier says
    /// [`ErrorKind::Throttled`](crate::ErrorKind::Throttled)): an
    /// [`AdaptiveLimiter`](crate::AdaptiveLimiter) learns the rate a
    /// throttling server admits. Every driver does it: the blocking and
    /// async loops, [`retry`](RetryPolicy::retry), and the tower, reqwest
    /// and tonic integrations. One limiter per client: the policy's clones
    /// share it, and so do the limiter's own clones.
    ///
    /// A wait for a token counts against the deadline like any other: if
    /// it would end at or after the deadline, the retrying stops with
    /// [`StopReason::Deadline`](crate::StopReason::Deadline) at once rather
    /// than sleep past it (before attempt 1, the [`RetryError`](crate::RetryError)
    /// then counts 0 attempts and holds no error). Waits for tokens count in
    /// [`Retried::waited`](crate::Retried::waited) and [`RetryError::waited`](crate::RetryError::waited).
    ///
    /// A policy without a limiter pays nothing for it.
    #[cfg(feature = "std")]
    pub fn with_rate_limiter<L: crate::limiter::RateLimit + 'static>(mut self, limiter: L) -> Self {
        self.limiter = PolicyLimiter::new(std::sync::Arc::new(limiter));
        self
    }

    /// Removes the rate limiter.
    pub fn without_rate_limiter(mut self) -> Self {
        self.limiter = PolicyLimiter::default();
        self
    }

    /// The rate limiter, if the policy has one.
    #[cfg(feature = "std")]
    pub fn rate_limiter(&self) -> Option<&dyn crate::limiter::RateLimit> {
        self.limiter.get()
    }

    /// Cuts each attempt of the async drivers after `timeout`, or at the
    /// deadline if that comes first. The cut attempt fails with
    /// [`TimedOut`](crate::TimedOut), so the operation's error type must implement
    /// `From<TimedOut>` (`std::io::Error` does), and is classified a
    /// transient timeout.
    ///
    /// A blocking call cannot be cut, so the policy this returns has no
    /// blocking `call` (see [`CanBlock`](crate::CanBlock)).
    pub fn with_attempt_timeout(self, timeout: Duration) -> RetryPolicy<S, C, N, B, AttemptTimeout> {
        self.replace(|classifier, notify, budget, _| (classifier, notify, budget, AttemptTimeout(timeout)))
    }

    /// The same policy with its per-attempt timeout setting mapped by `map`.
    #[cfg(feature = "serde")]
    pub(crate) fn map_timeout<T2>(self, map: impl FnOnce(T) -> T2) -> RetryPolicy<S, C, N, B, T2> {
        self.replace(|classifier, notify, budget, timeout| (classifier, notify, budget, map(timeout)))
    }

    /// Sets the deadline, the longest hint, the hint jitter and the hint
    /// policy from `limits`, and `max_attempts` as
    /// [`with_max_attempts`](RetryPolicy::with_max_attempts) does (a limit
    /// of `None` keeps the schedule's).
    ///
    /// # Errors
    /// As [`with_max_attempts`](RetryPolicy::with_max_attempts).
    pub fn with_limits(self, limits: Limits) -> Result<Self, ConfigError>
    where
        S: Schedule,
    {
        let mut policy = match limits.max_attempts {
            Some(max_attempts) => self.with_max_attempts(max_attempts)?,
            None => self,
        };
        let max_attempts = policy.limits.max_attempts;
        policy.limits = limits.with_max_attempts(max_attempts).with_hint_jitter(limits.hint_jitter);
        policy.max_hint_set = true;
        Ok(policy)
    }

    /// Sets the total number of calls, the first included. The limit is the
    /// one applied: the schedule is extended to it by its own rule (a
    /// [`Backoff`](crate::Backoff) goes on with its formula), or cut.
    ///
    /// # Errors
    /// A [`ConfigError`] for 0 (as the schedule builders refuse it), or for
    /// more attempts than a schedule that cannot be extended has delays for
    /// (a fixed list of delays).
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Result<Self, ConfigError>
    where
        S: Schedule,
    {
        if max_attempts == 0 {
            return Err(ConfigError::count(Field::MaxAttempts, Rule::AtLeast(1.0), 0));
        }
        self.schedule = self.schedule.with_max_attempts(max_attempts)?;
        self.limits.max_attempts = Some(max_attempts);
        Ok(self)
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
    /// [`StopReason::HintTooLong`](crate::StopReason::HintTooLong). Unset, it depends on the driver (see
    /// the [defaults](RetryPolicy#defaults)).
    pub fn with_max_hint(mut self, max_hint: Duration) -> Self {
        self.limits.max_hint = Some(max_hint);
        self.max_hint_set = true;
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

    /// Sets the `tracing` level of a give-up after a retryable failure
    /// (default `WARN`; a permanent failure on attempt 1 stays `DEBUG`).
    #[cfg(feature = "tracing")]
    pub fn with_give_up_level(mut self, level: tracing::Level) -> Self {
        self.trace.give_up = level;
        self
    }

    /// Records the `metrics` of this policy's operations (see
    /// [`crate::metrics`]): every driver counts them from then on. A policy
    /// records nothing unless it asks, here or with
    /// [`with_operation_name`](RetryPolicy::with_operation_name).
    #[cfg(feature = "metrics")]
    pub fn with_metrics(mut self) -> Self {
        if !self.instruments.is_on() {
            self.instruments = Instruments::UNNAMED;
        }
        self
    }

    /// Records the `metrics` of this policy's operations, as
    /// [`with_metrics`](RetryPolicy::with_metrics) does, labelled
    /// `staggered.operation` = `name`, so the numbers of policies with
    /// different names stay apart.
    #[cfg(feature = "metrics")]
    pub fn with_operation_name(mut self, name: impl Into<metrics::SharedString>) -> Self {
        self.instruments = Instruments::named(name.into());
        self
    }

    /// Whether the policy records `metrics`.
    #[cfg(feature = "metrics")]
    pub fn records_metrics(&self) -> bool {
        self.instruments.is_on()
    }

    /// The operation name set by
    /// [`with_operation_name`](RetryPolicy::with_operation_name), if any.
    #[cfg(feature = "metrics")]
    pub fn operation_name(&self) -> Option<&str> {
        self.instruments.name()
    }

    /// The limits in force for plain operations.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The limits in force for the service integrations: the same, with
    /// `max_hint` raised to [`SERVICE_MAX_HINT`] unless it was set.
    pub fn service_limits(&self) -> Limits {
        if self.max_hint_set {
            return self.limits;
        }
        let max_hint = self.limits.max_hint.map(|max| max.max(SERVICE_MAX_HINT));
        self.limits.with_max_hint(max_hint)
    }

    /// The schedule.
    pub const fn schedule(&self) -> &S {
        &self.schedule
    }

    /// The classifier.
    pub const fn classifier(&self) -> &C {
        &self.classifier
    }

    /// The budget.
    pub const fn budget(&self) -> &B {
        &self.budget
    }

    /// The parts every driver reads, with the plain operations' limits.
    #[inline]
    pub(crate) fn parts(&self) -> Parts<'_, S, C, N, B, T> {
        self.parts_with(&self.limits)
    }

    /// The parts every driver reads, with `limits`.
    #[inline]
    pub(crate) fn parts_with<'a>(&'a self, limits: &'a Limits) -> Parts<'a, S, C, N, B, T> {
        Parts {
            schedule: &self.schedule,
            classifier: &self.classifier,
            notify: &self.notify,
            budget: &self.budget,
            timeout: &self.timeout,
            limits,
            trace: self.trace,
            instruments: &self.instruments,
            limiter: &self.limiter,
        }
    }
}

impl<S: Schedule, C, N, B: Budget, T> RetryPolicy<S, C, N, B, T> {
    /// A fresh decision for one operation, sharing this policy's budget.
    pub fn decision(&self) -> Decision<S::Delays, &B> {
        Decision::for_schedule(&self.schedule, self.limits, &self.budget)
    }
}
