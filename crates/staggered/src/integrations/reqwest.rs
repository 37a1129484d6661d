//! Retries for reqwest, as a [`reqwest_middleware`] middleware (feature
//! `reqwest`).
//!
//! [`RetryMiddleware`] retries a request on the staggered schedule of its
//! [`RetryPolicy`], with every rule of the retry decision (`max_attempts`,
//! deadline, budget, hooks, `tracing`):
//! - **What retries**: 408, 429 and 5xx responses; connection failures and
//!   timeouts ([`classify_error`]). Other 4xx and malformed requests stop at
//!   once. These are the rules of any policy: one with no classifier
//!   ([`DefaultRules`](crate::DefaultRules), adjusted by a configuration
//!   file's status lists), [`ClassifyHttp`], and a classifier of errors
//!   alone (a closure, [`RetryPolicy::retry_if`]), which classifies the
//!   errors while the responses keep the HTTP rules. Only a classifier that
//!   judges responses itself ([`ByResult`](crate::ByResult)) replaces them.
//! - **Server hints**: `Retry-After` (seconds or HTTP-date),
//!   `x-amz-retry-after` and `grpc-retry-pushback-ms` are honoured: the
//!   retry waits at least that long, and a hint past the policy's `max_hint`
//!   stops instead. Unless set, `max_hint` here is at least a minute
//!   ([`SERVICE_MAX_HINT`](crate::SERVICE_MAX_HINT)), so an ordinary 429
//!   with `Retry-After: 30` waits, as long as the deadline allows.
//! - **The deadline** bounds the whole request: an attempt still running
//!   when the time left runs out is cut, and the caller gets a
//!   [`TimedOut`] error (as a `reqwest_middleware::Error::Middleware`).
//! - **Which requests**: only those safe to send twice, an idempotent method
//!   (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) or an `Idempotency-Key` header,
//!   because a retried POST can charge a card twice. Opt in for
//!   all requests with [`RetryMiddleware::retry_non_idempotent`], or for one
//!   with the [`Idempotent`] extension. A request whose body cannot be cloned
//!   (a stream) is sent once.
//!
//! When retrying stops, the caller gets the last attempt's outcome as it
//! came (a 503 stays an `Ok` response, a connection error stays an error),
//! and a successful or failed response carries a [`RetryReport`] in its
//! extensions.
//!
//! reqwest is built here without TLS or HTTP/2; enable its features in your
//! own `Cargo.toml` (`reqwest = { version = "0.13", features = ["rustls"] }`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), reqwest_middleware::Error> {
//! use staggered::reqwest::{RetryMiddleware, RetryReport};
//! use staggered::{Preset, RetryPolicy, TokenBucket};
//!
//! let retry = RetryMiddleware::from_policy(
//!     RetryPolicy::new(Preset::Interactive.backoff()).with_budget(TokenBucket::new()),
//! );
//! let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new()).with(retry).build();
//! let response = client.get("http://127.0.0.1:8080/flaky").send().await?;
//! let report = response.extensions().get::<RetryReport>().copied();
//! println!("{} after {:?}", response.status(), report.map(|r| r.attempts));
//! # Ok(())
//! # }
//! ```

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::time::Duration;

use ::http::Extensions;
use ::reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};

use crate::budget::Budget;
use crate::classify::{ClassifyResult, DefaultRules, ErrorKind, Failure, ResponseRules};
use crate::http::ClassifyHttp;
use crate::retry::event::Notify;
use crate::retry::timeout::TimeoutFor;
use crate::service::attempts::Attempts;
use crate::service::FailedAttempt;
use crate::sleep::{Clock, Sleeper, TokioClock, TokioSleeper};
use crate::{Decision, RetryPolicy, Schedule, StopReason, TimedOut};

/// The error type of `reqwest_middleware`.
type Error = reqwest_middleware::Error;

/// Retries requests: see the [module docs](self).
///
/// # Default
/// | part | default |
/// |---|---|
/// | classifier | the policy's; the HTTP rules for responses unless it judges responses itself |
/// | `max_hint` | the policy's if set, else at least one minute |
/// | requests retried | idempotent methods and `Idempotency-Key` only |
/// | timer | [`TokioSleeper`] and [`TokioClock`] |
#[derive(Debug, Clone)]
pub struct RetryMiddleware<P, Z = TokioSleeper, K = TokioClock> {
    policy: P,
    sleeper: Z,
    clock: K,
    any_method: bool,
}

impl<S: Schedule> RetryMiddleware<RetryPolicy<S, ClassifyHttp>> {
    /// Retries on `schedule` with the HTTP classifier and no budget.
    pub fn new(schedule: S) -> Self {
        RetryMiddleware::from_policy(RetryMiddleware::policy_for(schedule))
    }

    /// A policy on `schedule` with the HTTP classifier, to add a budget, a
    /// deadline or hooks to before [`from_policy`](RetryMiddleware::from_policy).
    pub fn policy_for(schedule: S) -> RetryPolicy<S, ClassifyHttp> {
        RetryPolicy::new(schedule).classify(ClassifyHttp::new())
    }
}

impl<S, C, N, B, T> RetryMiddleware<RetryPolicy<S, C, N, B, T>> {
    /// Retries with `policy`: any policy, its classifier included (see the
    /// [module docs](self) for what each kind of classifier does here), such
    /// as a configuration file's (`RetryConfig::async_policy`). A classifier
    /// of other errors than reqwest-middleware's is refused here, by name:
    ///
    /// ```compile_fail,E0277
    /// use staggered::classify::io::classify_io;
    /// use staggered::reqwest::RetryMiddleware;
    /// use staggered::{Preset, RetryPolicy};
    ///
    /// // `classify_io` classifies `std::io::Error`s, which reqwest never returns.
    /// let retry = RetryMiddleware::from_policy(RetryPolicy::new(Preset::Interactive.backoff()).classify(classify_io));
    /// ```
    pub fn from_policy(policy: RetryPolicy<S, C, N, B, T>) -> Self
    where
        C: ClassifyResult<Response, Error>,
        N: Notify<FailedAttempt<Response, Error>>,
        T: TimeoutFor<TimedOut>,
    {
        RetryMiddleware { policy, sleeper: TokioSleeper, clock: TokioClock, any_method: false }
    }
}

impl<P, Z, K> RetryMiddleware<P, Z, K> {
    /// Retries requests of any method, POST and PATCH included. Only for
    /// servers that deduplicate: a retried payment can charge twice.
    pub fn retry_non_idempotent(mut self, any_method: bool) -> Self {
        self.any_method = any_method;
        self
    }

    /// Waits with `sleeper` and measures the deadline on `clock` (a
    /// `RecordingSleeper` in tests).
    pub fn with_timer<Z2: Sleeper, K2: Clock>(self, sleeper: Z2, clock: K2) -> RetryMiddleware<P, Z2, K2> {
        RetryMiddleware { policy: self.policy, sleeper, clock, any_method: self.any_method }
    }

    /// The policy.
    pub const fn policy(&self) -> &P {
        &self.policy
    }
}

/// A request extension that marks one request as safe to repeat, whatever
/// its method (`client.post(url).with_extension(Idempotent)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Idempotent;

/// How the retrying went, in the extensions of the response returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryReport {
    /// Attempts made, the last one included.
    pub attempts: u32,
    /// Total time spent waiting between attempts.
    pub waited: Duration,
    /// Why the retrying stopped on a failed response; `None` for a success
    /// or a request that could not be retried.
    pub stopped: Option<StopReason>,
}

/// Classifies a `reqwest_middleware` error: reqwest's errors by
/// [`classify_reqwest_error`]; another middleware's error by the first
/// reqwest error, I/O error or [`TimedOut`] in its chain, otherwise permanent.
pub fn classify_error(error: &Error) -> Failure {
    match error {
        Error::Reqwest(error) => classify_reqwest_error(error),
        Error::Middleware(error) => {
            for cause in error.chain() {
                if cause.is::<TimedOut>() {
                    return Failure::timeout();
                }
                if let Some(error) = cause.downcast_ref::<::reqwest::Error>() {
                    return classify_reqwest_error(error);
                }
                if let Some(error) = cause.downcast_ref::<std::io::Error>() {
                    return crate::classify::io::classify_io(error);
                }
            }
            Failure::PERMANENT
        }
    }
}

/// Classifies a reqwest error: a timeout is a timeout (AWS's token bucket
/// charges it more), a connection failure transient, another failure to send
/// transient unless an I/O error in its chain says otherwise
/// ([`classify_io`](crate::classify::io::classify_io)); a bad URL, a
/// redirect loop, a body or decoding error is permanent.
pub fn classify_reqwest_error(error: &::reqwest::Error) -> Failure {
    if error.is_timeout() {
        return Failure::timeout();
    }
    if error.is_connect() {
        return Failure::TRANSIENT;
    }
    if error.is_request() {
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                return crate::classify::io::classify_io(io);
            }
            source = cause.source();
        }
        return Failure::TRANSIENT;
    }
    Failure::PERMANENT
}

impl ClassifyResult<Response, Error> for ClassifyHttp {
    fn classify_result(&self, result: Result<&Response, &Error>) -> Option<Failure> {
        match result {
            Ok(response) => self.classify_parts(response.status(), response.headers()),
            Err(error) => Some(classify_error(error)),
        }
    }

    fn describe(response: &Response, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(response.status(), f)
    }
}

/// A policy with no classifier of its own classifies reqwest's responses by
/// the HTTP rules (its [`DefaultRules::http`] lists), its errors by
/// [`classify_error`].
impl ResponseRules<Error> for Response {
    fn classify_default(rules: &DefaultRules, result: Result<&Self, &Error>) -> Option<Failure> {
        rules.http().classify_result(result)
    }

    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(self.status(), f)
    }
}

/// How one attempt went, as the middleware classified it.
enum Judged {
    /// Not a failure: what the caller gets.
    Success(Result<Response, Error>),
    /// A failed attempt, as the hooks see it, and its classification.
    Failed(FailedAttempt<Response, Error>, Failure),
}

/// The outcome of one attempt by `classifier`, the responses by the HTTP
/// rules when it judges only errors.
fn classify<C: ClassifyResult<Response, Error>>(classifier: &C, result: Result<Response, Error>) -> Judged {
    let failure = match (C::JUDGES_RESPONSES, result.as_ref()) {
        (false, Ok(response)) => ClassifyHttp::new().classify_parts(response.status(), response.headers()),
        (_, outcome) => classifier.classify_result(outcome),
    };
    match failure {
        None => Judged::Success(result),
        Some(failure) if C::JUDGES_RESPONSES => Judged::Failed(FailedAttempt::new::<C>(result), failure),
        Some(failure) => Judged::Failed(FailedAttempt::new::<ClassifyHttp>(result), failure),
    }
}

impl<S, C, N, B, T, Z, K> RetryMiddleware<RetryPolicy<S, C, N, B, T>, Z, K>
where
    S: Schedule + Send + Sync,
    S::Delays: Send,
    C: ClassifyResult<Response, Error> + Send + Sync,
    N: Notify<FailedAttempt<Response, Error>> + Send + Sync,
    B: Budget + Send + Sync,
    T: TimeoutFor<TimedOut> + Send + Sync,
    Z: Sleeper + Send + Sync,
    Z::Sleep: Send,
    K: Clock + Send + Sync,
    K::Instant: Send,
{
    /// Whether `request` may be sent more than once.
    fn is_repeatable(&self, request: &Request, extensions: &Extensions) -> bool {
        self.any_method
            || extensions.get::<Idempotent>().is_some()
            || crate::http::is_repeatable(request.method(), request.headers())
    }

    async fn send(
        &self,
        request: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> Result<Response, Error> {
        let policy = &self.policy;
        let mut spare = if self.is_repeatable(&request, extensions) { request.try_clone() } else { None };
        let timeout = <T as TimeoutFor<TimedOut>>::timeout(&policy.timeout);
        let mut attempts = Attempts::start(policy, timeout, &self.clock);
        let mut request = request;
        // The previous attempt's outcome, returned if the rate limiter has no
        // token for the next one before the deadline.
        let mut previous: Option<FailedAttempt<Response, Error>> = None;
        loop {
            if let Err(reason) = attempts.acquire(policy, &self.sleeper, &self.clock).await {
                let (attempt, waited) = (attempts.attempt().saturating_sub(1), attempts.waited());
                return match previous {
                    Some(failed) => {
                        failed.into_result().map(|response| report(response, attempt, waited, Some(reason)))
                    }
                    None => Err(Error::middleware(TimedOut { after: attempts.time_left(&self.clock) })),
                };
            }
            let limit = attempts.attempt_limit(&self.clock);
            let sent = next.clone().run(request, extensions);
            let outcome = match limit {
                None => classify(&policy.classifier, sent.await),
                Some(after) => match crate::retry::future::race(sent, self.sleeper.cut_after(after)).await {
                    Some(result) => classify(&policy.classifier, result),
                    None => {
                        let cut = Err(Error::middleware(TimedOut { after }));
                        Judged::Failed(FailedAttempt::new::<ClassifyHttp>(cut), Failure::timeout())
                    }
                },
            };
            let (failed, failure) = match outcome {
                Judged::Success(result) => {
                    policy.limiter.record(false);
                    attempts.on_success(policy);
                    return result
                        .map(|response| report(response, attempts.attempt(), attempts.waited(), None));
                }
                Judged::Failed(failed, failure) => (failed, failure),
            };
            policy.limiter.record(failure.kind == ErrorKind::Throttled);
            let Some(next_request) = spare.take() else {
                let stopped = (failure.kind == ErrorKind::Permanent).then_some(StopReason::Permanent);
                return failed.into_result().map(|response| report(response, 1, Duration::ZERO, stopped));
            };
            let decision = |limits| Decision::for_schedule(&policy.schedule, limits, &policy.budget);
            let error_type = failed.type_name();
            match attempts.on_failure(policy, &self.clock, &failed, error_type, failure, decision) {
                Ok(delay) => {
                    // Free the failed response's connection before waiting,
                    // unless a rate limiter may need it to give up with.
                    previous = policy.limiter.is_set().then_some(failed);
                    self.sleeper.sleep(delay).await;
                    spare = next_request.try_clone();
                    request = next_request;
                }
                Err(reason) => {
                    let (attempt, waited) = (attempts.attempt(), attempts.waited());
                    return failed
                        .into_result()
                        .map(|response| report(response, attempt, waited, Some(reason)));
                }
            }
        }
    }
}

fn report(mut response: Response, attempts: u32, waited: Duration, stopped: Option<StopReason>) -> Response {
    response.extensions_mut().insert(RetryReport { attempts, waited, stopped });
    response
}

impl<S, C, N, B, T, Z, K> Middleware for RetryMiddleware<RetryPolicy<S, C, N, B, T>, Z, K>
where
    S: Schedule + Send + Sync + 'static,
    S::Delays: Send,
    C: ClassifyResult<Response, Error> + Send + Sync + 'static,
    N: Notify<FailedAttempt<Response, Error>> + Send + Sync + 'static,
    B: Budget + Send + Sync + 'static,
    T: TimeoutFor<TimedOut> + Send + Sync + 'static,
    Z: Sleeper + Send + Sync + 'static,
    Z::Sleep: Send,
    K: Clock + Send + Sync + 'static,
    K::Instant: Send,
{
    // The shape `async_trait` gives the trait's method, written out so that
    // this crate does not need the macro.
    fn handle<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        request: Request,
        extensions: &'life1 mut Extensions,
        next: Next<'life2>,
    ) -> Pin<Box<dyn Future<Output = Result<Response, Error>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(self.send(request, extensions, next))
    }
}
