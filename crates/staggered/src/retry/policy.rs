//! `RetryPolicy`: a schedule plus classification, hooks, limits and budget,
//! configured once and used for many operations by every driver.

use core::time::Duration;

use crate::classify::DefaultRules;
use crate::error::{ConfigError, Field, Rule};
use crate::retry::event::PolicyHooks;
use crate::retry::instruments::Instruments;
use crate::retry::limit::PolicyLimiter;
use crate::retry::timeout::{AttemptTimeout, NoTimeout};
use crate::retry::trace::TraceLevels;
use crate::{Backoff, Limits, Schedule};

/// The longest server hint the service integrations honour by default,
/// when the policy's `max_hint` was not set (and the schedule's largest
/// delay is shorter): servers ask for seconds to a minute.
pub const SERVICE_MAX_HINT: Duration = Duration::from_secs(60);

/// A policy's budget, shared by its clones and by every operation it runs.
#[cfg(feature = "std")]
pub(crate) type PolicyBudget = Option<std::sync::Arc<dyn crate::Budget + Send + Sync>>;

/// Without `std` a policy has no budget (a [`Decision`](crate::Decision)
/// takes one directly).
#[cfg(not(feature = "std"))]
pub(crate) type PolicyBudget = crate::NoBudget;

/// How to retry: a [`Schedule`] with a classifier, hooks, a budget, a rate
/// limiter, a per-attempt timeout and limits. Built once, used for many
/// operations: keep it in a struct field, share it by reference or in an
/// `Arc`. Its clones share the budget, the rate limiter and the hooks.
///
/// ```
/// use std::time::Duration;
/// use staggered::{Preset, RetryPolicy};
///
/// struct Client {
///     policy: RetryPolicy, // a `Backoff` schedule, the default classifier
/// }
///
/// let client = Client {
///     policy: RetryPolicy::new(Preset::Interactive.backoff()) // 3 attempts
///         .with_deadline(Duration::from_secs(10))?
///         .on_retry(|event| eprintln!("{event}")), // attempt 1/3 failed (...); retrying in 110ms
/// };
/// let mut calls = 0;
/// let done = client
///     .policy
///     .retry(|attempt| {
///         calls += 1; // the operation may borrow mutably
///         if attempt < 3 { Err(std::io::Error::other("flaky")) } else { Ok(attempt) }
///     })
///     .when(|e| e.kind() != std::io::ErrorKind::NotFound) // `e` is a `&std::io::Error`
/// #   .with_timer(&|_| {}, &|| Duration::ZERO)
///     .call()?;
/// assert_eq!((done, calls), (3, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Type parameters
/// `S` is the schedule ([`Backoff`] unless named), `C` the classifier
/// ([`DefaultRules`] unless set with [`classify`](RetryPolicy::classify)),
/// `T` the per-attempt timeout ([`NoTimeout`], or [`AttemptTimeout`] after
/// [`with_attempt_timeout`](RetryPolicy::with_attempt_timeout), which a
/// blocking call cannot honour). Hooks, the budget and the rate limiter do
/// not change the type, so `RetryPolicy` or `RetryPolicy<Backoff, ClassifyHttp>`
/// names a policy with all of them. A classifier that is a closure has a
/// type no one can write: name one with a function pointer
/// (`classify(classify_io as fn(&std::io::Error) -> Failure)`).
///
/// # Defaults
/// | part | default | set with |
/// |---|---|---|
/// | classifier | [`DefaultRules`]: every error of an operation transient; HTTP responses by the HTTP rules | [`classify`](RetryPolicy::classify) (or, per call, [`Retrying::when`](crate::Retrying::when)) |
/// | hooks | none | [`on_retry`](RetryPolicy::on_retry), [`on_give_up`](RetryPolicy::on_give_up) |
/// | budget | none | [`with_budget`](RetryPolicy::with_budget) |
/// | rate limiter | none | [`with_rate_limiter`](RetryPolicy::with_rate_limiter) |
/// | per-attempt timeout | none (async drivers still cut an attempt at the deadline) | [`with_attempt_timeout`](RetryPolicy::with_attempt_timeout) |
/// | `max_attempts` | the schedule's (a [`Backoff`]'s `max_attempts`) | [`with_max_attempts`](RetryPolicy::with_max_attempts) |
/// | deadline | the schedule's (none for most) | [`with_deadline`](RetryPolicy::with_deadline) |
/// | `max_hint` | see the table below | [`with_max_hint`](RetryPolicy::with_max_hint) |
/// | `max_token_wait` | none: an attempt waits for the rate limiter's token up to the deadline | [`with_max_token_wait`](RetryPolicy::with_max_token_wait) |
/// | hint jitter, hint policy | 0.1, [`HintPolicy::AtLeast`](crate::HintPolicy) | [`with_hint_jitter`](RetryPolicy::with_hint_jitter), [`with_hint_policy`](RetryPolicy::with_hint_policy) |
/// | `tracing` level of a give-up | `WARN` (`DEBUG` for a permanent failure on attempt 1) | `with_give_up_level` (feature `tracing`) |
/// | `metrics` | none recorded | `with_metrics`, `with_operation_name` (feature `metrics`) |
///
/// `max_hint`, the longest server hint (`Retry-After` and friends) to
/// honour, unless set:
///
/// | driver | default `max_hint` |
/// |---|---|
/// | plain operations ([`retry`](RetryPolicy::retry)) | the schedule's largest delay (a `Backoff`'s `max_delay`, or more in interval mode) |
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
/// (or a per-attempt timeout) the drivers read the clock before the first
/// call. Without one they read it only once attempt 1 has failed (or waited
/// for a rate limiter's token), keeping the success path free of clock
/// reads; [`RetryEvent::elapsed`](crate::RetryEvent::elapsed) then counts
/// from that moment.
#[derive(Clone)]
pub struct RetryPolicy<S = Backoff, C = DefaultRules, T = NoTimeout> {
    pub(crate) schedule: S,
    pub(crate) classifier: C,
    pub(crate) timeout: T,
    pub(crate) limits: Limits,
    /// Whether `max_hint` was set rather than taken from the schedule: the
    /// service integrations raise a taken one to [`SERVICE_MAX_HINT`].
    pub(crate) max_hint_set: bool,
    pub(crate) hooks: PolicyHooks,
    pub(crate) budget: PolicyBudget,
    pub(crate) limiter: PolicyLimiter,
    pub(crate) trace: TraceLevels,
    /// The keys of its `metrics`, with its operation name if it has one.
    pub(crate) instruments: Instruments,
}

impl<S: core::fmt::Debug, C: core::fmt::Debug, T: core::fmt::Debug> core::fmt::Debug
    for RetryPolicy<S, C, T>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        #[cfg(feature = "std")]
        let budget = self.budget.as_ref().map(|budget| budget.metrics());
        #[cfg(not(feature = "std"))]
        let budget = self.budget;
        f.debug_struct("RetryPolicy")
            .field("schedule", &self.schedule)
            .field("classifier", &self.classifier)
            .field("timeout", &self.timeout)
            .field("limits", &self.limits)
            .field("hooks", &self.hooks)
            .field("budget", &budget)
            .field("limiter", &self.limiter)
            .finish_non_exhaustive()
    }
}

impl<S: Schedule> RetryPolicy<S> {
    /// A policy on `schedule`, with its limits, the [`DefaultRules`] and
    /// nothing else.
    pub fn new(schedule: S) -> Self {
        let limits = Limits::for_schedule(&schedule);
        RetryPolicy {
            schedule,
            classifier: DefaultRules::new(),
            timeout: NoTimeout,
            limits,
            max_hint_set: false,
            hooks: PolicyHooks::default(),
            budget: PolicyBudget::default(),
            limiter: PolicyLimiter::default(),
            trace: TraceLevels::DEFAULT,
            instruments: Instruments::DEFAULT,
        }
    }
}

impl<S, C, T> RetryPolicy<S, C, T> {
    /// The same policy with its classifier and timeout replaced: the one
    /// place that lists every part.
    fn replace<C2, T2>(self, change: impl FnOnce(C, T) -> (C2, T2)) -> RetryPolicy<S, C2, T2> {
        let (classifier, timeout) = change(self.classifier, self.timeout);
        RetryPolicy {
            schedule: self.schedule,
            classifier,
            timeout,
            limits: self.limits,
            max_hint_set: self.max_hint_set,
            hooks: self.hooks,
            budget: self.budget,
            limiter: self.limiter,
            trace: self.trace,
            instruments: self.instruments,
        }
    }

    /// Classifies failures with `classifier`: any `Fn(&E) -> Failure`
    /// (such as [`classify_io`](crate::classify::io::classify_io)), a
    /// [`RetryIf`](crate::RetryIf) predicate, a [`Classifier`](crate::Classifier),
    /// or a [`ClassifyResult`](crate::ClassifyResult) that judges responses
    /// too ([`ClassifyHttp`](crate::classify::http::ClassifyHttp)). Server
    /// hints come with the classification. A call can use its own instead
    /// ([`Retrying::when`](crate::Retrying::when), [`Retrying::classify`](crate::Retrying::classify)).
    pub fn classify<C2>(self, classifier: C2) -> RetryPolicy<S, C2, T> {
        self.replace(|_, timeout| (classifier, timeout))
    }

    /// Adds `hook`, called before every retry of every operation this
    /// policy runs with a [`RetryEvent`](crate::RetryEvent) (which displays as a log line:
    /// `attempt 1/5 failed (connection reset); retrying in 1.1s`). A policy
    /// serves operations of any error type, so its hooks see the error as
    /// text; a call's own hooks ([`Retrying::on_retry`](crate::Retrying::on_retry))
    /// see it typed. The closure needs no annotation.
    #[cfg(feature = "std")]
    pub fn on_retry<F>(mut self, hook: F) -> Self
    where
        F: Fn(&crate::RetryEvent<'_, dyn core::fmt::Display + '_>) + Send + Sync + 'static,
    {
        self.hooks.retry.push(std::sync::Arc::new(hook));
        self
    }

    /// Adds `hook`, called once when an operation of this policy gives up,
    /// with a [`GiveUpEvent`](crate::GiveUpEvent) (which displays as a log line), the error
    /// seen as text as for [`on_retry`](RetryPolicy::on_retry).
    #[cfg(feature = "std")]
    pub fn on_give_up<F>(mut self, hook: F) -> Self
    where
        F: Fn(&crate::GiveUpEvent<'_, dyn core::fmt::Display + '_>) + Send + Sync + 'static,
    {
        self.hooks.give_up.push(std::sync::Arc::new(hook));
        self
    }

    /// Asks `budget` before every retry; the budget's clones share it, so
    /// give every policy of a client a clone of the same budget
    /// ([`TokenBucket`](crate::TokenBucket), [`RatioBudget`](crate::RatioBudget),
    /// [`RetryThrottle`](crate::RetryThrottle)).
    #[cfg(feature = "std")]
    pub fn with_budget<B: crate::Budget + Send + Sync + 'static>(mut self, budget: B) -> Self {
        self.budget = Some(std::sync::Arc::new(budget));
        self
    }

    /// Takes a token from `limiter` before every attempt, the first
    /// included, waiting through the driver's sleeper while there is none,
    /// and reports every response to it (throttled when the classifier says
    /// [`ErrorKind::Throttled`](crate::ErrorKind::Throttled)): an
    /// [`AdaptiveLimiter`](crate::AdaptiveLimiter) learns the rate a
    /// throttling server admits. Every driver does it. One limiter per
    /// client: the policy's clones share it, and so do the limiter's own
    /// clones.
    ///
    /// A wait for a token counts against the deadline like any other: if
    /// it would end at or after the deadline, the retrying stops with
    /// [`StopReason::Deadline`](crate::StopReason::Deadline) at once rather
    /// than sleep past it (before attempt 1, the [`RetryError`](crate::RetryError)
    /// then counts 0 attempts and holds no error). Waits for tokens count in
    /// [`Retried::waited`](crate::Retried::waited) and [`RetryError::waited`](crate::RetryError::waited).
    #[cfg(feature = "std")]
    pub fn with_rate_limiter<L: crate::limiter::RateLimit + 'static>(mut self, limiter: L) -> Self {
        self.limiter = PolicyLimiter::new(std::sync::Arc::new(limiter));
        self
    }

    /// The rate limiter, if the policy has one.
    #[cfg(feature = "std")]
    pub fn rate_limiter(&self) -> Option<&dyn crate::limiter::RateLimit> {
        self.limiter.get()
    }

    /// Cuts each attempt of the async drivers after `timeout`, or at the
    /// deadline if that comes first. The cut attempt fails with
    /// [`TimedOut`](crate::TimedOut) and is classified a transient timeout.
    ///
    /// A blocking call cannot be cut, so the policy this returns has no
    /// blocking `call` (see [`CanBlock`](crate::CanBlock)).
    ///
    /// # Errors
    /// A [`ConfigError`] for a zero timeout, which would cut every attempt
    /// before it could answer.
    pub fn with_attempt_timeout(
        self,
        timeout: Duration,
    ) -> Result<RetryPolicy<S, C, AttemptTimeout>, ConfigError> {
        if timeout.is_zero() {
            return Err(ConfigError::duration(Field::AttemptTimeout, Rule::NonZero, timeout));
        }
        Ok(self.replace(|classifier, _| (classifier, AttemptTimeout(timeout))))
    }

    /// The same policy with its per-attempt timeout setting mapped by `map`.
    #[cfg(feature = "serde")]
    pub(crate) fn map_timeout<T2>(self, map: impl FnOnce(T) -> T2) -> RetryPolicy<S, C, T2> {
        self.replace(|classifier, timeout| (classifier, map(timeout)))
    }

    /// Sets the deadline, the longest hint, the hint jitter and the hint
    /// policy from `limits`, and `max_attempts` as
    /// [`with_max_attempts`](RetryPolicy::with_max_attempts) does (a limit
    /// of `None` keeps the schedule's).
    ///
    /// # Errors
    /// As [`with_max_attempts`](RetryPolicy::with_max_attempts) and
    /// [`with_deadline`](RetryPolicy::with_deadline).
    pub fn with_limits(self, limits: Limits) -> Result<Self, ConfigError>
    where
        S: Schedule,
    {
        let mut policy = match limits.max_attempts {
            Some(max_attempts) => self.with_max_attempts(max_attempts)?,
            None => self,
        };
        if let Some(deadline) = limits.deadline {
            policy = policy.with_deadline(deadline)?;
        }
        let max_attempts = policy.limits.max_attempts;
        policy.limits = limits.with_max_attempts(max_attempts).with_hint_jitter(limits.hint_jitter);
        policy.max_hint_set = true;
        Ok(policy)
    }

    /// Sets the total number of calls, the first included. The limit is the
    /// one applied: the schedule is extended to it by its own rule (a
    /// [`Backoff`] goes on with its formula), or cut.
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
    ///
    /// # Errors
    /// A [`ConfigError`] for a zero deadline, which would leave no time for
    /// any retry (as a zero per-attempt timeout is refused).
    pub fn with_deadline(mut self, deadline: Duration) -> Result<Self, ConfigError> {
        if deadline.is_zero() {
            return Err(ConfigError::duration(Field::Deadline, Rule::NonZero, deadline));
        }
        self.limits.deadline = Some(deadline);
        Ok(self)
    }

    /// Sets the longest server hint to honour; a longer one stops with
    /// [`StopReason::HintTooLong`](crate::StopReason::HintTooLong). Unset, it depends on the driver (see
    /// the [defaults](RetryPolicy#defaults)).
    pub fn with_max_hint(mut self, max_hint: Duration) -> Self {
        self.limits.max_hint = Some(max_hint);
        self.max_hint_set = true;
        self
    }

    /// Sets the longest an attempt may wait for the rate limiter's token
    /// (unset: as long as the deadline allows). An attempt that would wait
    /// longer stops with [`StopReason::TokenWaitTooLong`](crate::StopReason::TokenWaitTooLong):
    /// a client offering more than the server admits sheds the excess at
    /// once instead of queueing it until the caller has given up. Without
    /// a [rate limiter](RetryPolicy::with_rate_limiter) it does nothing.
    pub fn with_max_token_wait(mut self, max_token_wait: Duration) -> Self {
        self.limits.max_token_wait = Some(max_token_wait);
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

    /// The limits in force for plain operations.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The limits in force for the service integrations: the same, with
    /// `max_hint` raised to [`SERVICE_MAX_HINT`] unless it was set.
    #[cfg(any(feature = "tower", feature = "reqwest", feature = "tonic"))]
    pub(crate) fn service_limits(&self) -> Limits {
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

    /// The budget, if the policy has one.
    #[cfg(feature = "std")]
    pub fn budget(&self) -> Option<&(dyn crate::Budget + Send + Sync)> {
        self.budget.as_deref()
    }
}
