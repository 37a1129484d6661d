//! Retries for reqwest, as a [`reqwest_middleware`] middleware (feature
//! `reqwest`).
//!
//! [`RetryMiddleware`] retries a request on the staggered schedule of its
//! [`RetryPolicy`], with every rule of the retry decision (`max_attempts`,
//! deadline, budget, hooks, `tracing`):
//! - **What retries**: 408, 429 and 5xx responses, and any failure that
//!   says it is a throttle (an AWS throttling code, GitHub's rate limits:
//!   see [the body](#the-body-of-a-failed-response)); connection failures and
//!   timeouts ([`classify_error`]). Other 4xx and malformed requests stop at
//!   once. These are the rules of any policy: one with no classifier
//!   ([`DefaultRules`](crate::DefaultRules), adjusted by a configuration
//!   file's status lists), [`ClassifyHttp`], and a classifier of errors
//!   alone (a closure, a [`RetryIf`](crate::RetryIf)), which classifies the
//!   errors while the responses keep the HTTP rules. Only a classifier that
//!   judges responses itself ([`ByResult`](crate::ByResult)) replaces them.
//! - **Server hints**: `Retry-After` (seconds or HTTP-date),
//!   `x-amz-retry-after` and `grpc-retry-pushback-ms` are honoured: the
//!   retry waits at least that long, and a hint past the policy's `max_hint`
//!   stops instead. Unless set, `max_hint` here is at least a minute
//!   ([`SERVICE_MAX_HINT`](crate::SERVICE_MAX_HINT)), so an ordinary 429
//!   with `Retry-After: 30` waits, as long as the deadline allows.
//! - **Announced quotas**: the rate-limit headers of every response, a
//!   success's too (`RateLimit`, `X-RateLimit-Remaining` and `-Reset`: see
//!   [`http::quota`](crate::http::quota)), go to the policy's rate limiter,
//!   which paces the next requests to them
//!   ([`AdaptiveLimiter::announce`](crate::limiter::AdaptiveLimiter::announce)).
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
//! # The body of a failed response
//! A throttle is sometimes said only in the body: S3's 503 with
//! `<Code>SlowDown</Code>`, DynamoDB's 400 with a `ThrottlingException`
//! `__type`, GitHub's 403 that says "secondary rate limit" (see
//! [what counts as a throttle](crate::http#what-counts-as-a-throttle)).
//! So, within each attempt (its time limit covers the reading), the
//! middleware reads the start of the body of a response whose body can
//! change its classification ([`wants_body_start`](crate::http::wants_body_start):
//! a 400, 403, 429 or 503 that no header has already decided), frame by
//! frame until [`BODY_START_BYTES`](crate::http::BODY_START_BYTES) have
//! come or the body ends, and puts those bytes in the response's
//! extensions as a [`BodyStart`](crate::http::BodyStart), where the
//! classifier reads them. Every other response, successes included, is
//! handed on untouched.
//!
//! A response that was read is rebuilt around the same body: the frames
//! read come first, then the rest as the server sends it (or the error
//! that stopped the reading, where it happened), so the caller reads the
//! whole body. It keeps its status, version, headers, extensions (the
//! [`BodyStart`](crate::http::BodyStart) added), URL and
//! `content_length`, and reqwest's body timeouts still apply.
//!
//! When retrying stops, the caller gets the last attempt's outcome as it
//! came (a 503 stays an `Ok` response, a connection error stays an error),
//! and a successful or failed response carries a [`RetryReport`] in its
//! extensions, with why the retrying stopped (a request that could not be
//! repeated says so: [`StopReason::NotRepeatable`]).
//!
//! [`RetryMiddleware::until`] retries a response that is not ready yet (an
//! operation still running) as a transient failure, and
//! [`RetryMiddleware::cancel_on`] gives each request a cancel signal (see
//! [`CancelSignal`]).
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

mod body;

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::time::Duration;
use std::time::SystemTime;

use ::http::Extensions;
use ::reqwest::{Request, Response};
use reqwest_middleware::{Middleware, Next};

use crate::classify::{ClassifyResult, DefaultRules, Failure, ResponseRules};
use crate::http::ClassifyHttp;
use crate::retry::event::NoNotify;
use crate::retry::future::{drive, Sending};
use crate::retry::hedge;
use crate::retry::judge::{Judge, Outcomes};
use crate::retry::timeout::Timeout;
use crate::service::{give_back, Always, CancelError, CancelSignal, FailedAttempt, NoCancel, Ready};
use crate::sleep::{Clock, Sleeper, TokioClock, TokioSleeper};
use crate::{Cancelled, Hedging, Quota, RetryPolicy, Schedule, StopReason, TimedOut};

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
/// | polling | none: every response the classifier accepts is a success |
/// | cancel signal | none |
/// | hedging | none: retries only |
#[derive(Debug, Clone)]
pub struct RetryMiddleware<P, Z = TokioSleeper, K = TokioClock, U = Always, X = NoCancel> {
    policy: P,
    sleeper: Z,
    clock: K,
    ready: U,
    cancel: X,
    any_method: bool,
    hedging: Option<Hedging>,
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

impl<S, C, T> RetryMiddleware<RetryPolicy<S, C, T>> {
    /// Retries with `policy`: any policy, its classifier included (see the
    /// [module docs](self) for what each kind of classifier does here), such
    /// as a configuration file's (`RetryConfig::async_policy`). A classifier
    /// of other errors than reqwest-middleware's is refused here, by name:
    ///
    /// ```compile_fail,E0631
    /// use staggered::classify::io::classify_io;
    /// use staggered::reqwest::RetryMiddleware;
    /// use staggered::{Preset, RetryPolicy};
    ///
    /// // `classify_io` classifies `std::io::Error`s, which reqwest never returns.
    /// let retry = RetryMiddleware::from_policy(RetryPolicy::new(Preset::Interactive.backoff()).classify(classify_io));
    /// ```
    pub fn from_policy(policy: RetryPolicy<S, C, T>) -> Self
    where
        C: ClassifyResult<Response, Error>,
        T: Timeout,
    {
        RetryMiddleware {
            policy,
            sleeper: TokioSleeper,
            clock: TokioClock,
            ready: Always,
            cancel: NoCancel,
            any_method: false,
            hedging: None,
        }
    }
}

impl<P, Z, K, U, X> RetryMiddleware<P, Z, K, U, X> {
    /// Retries requests of any method, POST and PATCH included. Only for
    /// servers that deduplicate: a retried payment can charge twice.
    pub fn retry_non_idempotent(mut self, any_method: bool) -> Self {
        self.any_method = any_method;
        self
    }

    /// Waits with `sleeper` and measures the deadline on `clock` (a
    /// `RecordingSleeper` in tests).
    pub fn with_timer<Z2: Sleeper, K2: Clock>(
        self,
        sleeper: Z2,
        clock: K2,
    ) -> RetryMiddleware<P, Z2, K2, U, X> {
        let RetryMiddleware { policy, ready, cancel, any_method, hedging, .. } = self;
        RetryMiddleware { policy, sleeper, clock, ready, cancel, any_method, hedging }
    }

    /// Polls: a response the classifier accepts but for which `ready` is
    /// false (`Fn(&Response) -> bool`) is retried as a transient failure,
    /// on the schedule and under every limit; the last one is returned if
    /// the retrying stops on it.
    pub fn until<U2>(self, ready: U2) -> RetryMiddleware<P, Z, K, U2, X> {
        let RetryMiddleware { policy, sleeper, clock, cancel, any_method, hedging, .. } = self;
        RetryMiddleware { policy, sleeper, clock, ready, cancel, any_method, hedging }
    }

    /// Gives each request a cancel signal made by `signal` (see
    /// [`CancelSignal`]): when it fires, the request stops at once, during
    /// a wait or an attempt, with the last failed attempt's outcome, or a
    /// [`Cancelled`] error if none had ended.
    pub fn cancel_on<X2>(self, signal: X2) -> RetryMiddleware<P, Z, K, U, X2> {
        let RetryMiddleware { policy, sleeper, clock, ready, any_method, hedging, .. } = self;
        RetryMiddleware { policy, sleeper, clock, ready, cancel: signal, any_method, hedging }
    }

    /// Hedges the requests that may be sent more than once (the same rule
    /// as for retries: idempotent ones by default) instead of retrying
    /// them: while no copy has answered, another is sent after the
    /// [`Hedging`] delay, and the first success wins (see [`Hedging`] for
    /// the rules; a 5xx or 429 lets the other copies go on, another 4xx
    /// ends the request). A request that may not be repeated is sent once,
    /// as it would be with retries; [`RetryReport::winner`] says which copy
    /// answered.
    pub fn hedge(mut self, hedging: Hedging) -> Self {
        self.hedging = Some(hedging);
        self
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
    /// Why the retrying stopped on a failed response
    /// ([`StopReason::NotRepeatable`] for a request that could not be sent
    /// again); `None` for a success.
    pub stopped: Option<StopReason>,
    /// The attempt whose response this is: the last one, except for a
    /// [hedged](RetryMiddleware::hedge) request, where an earlier copy may
    /// answer first.
    pub winner: u32,
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
            Ok(response) => self.classify_head(response.status(), response.headers(), response.extensions()),
            Err(error) => Some(classify_error(error)),
        }
    }

    fn quota(&self, result: Result<&Response, &Error>) -> Option<Quota> {
        crate::http::quota(result.ok()?.headers(), SystemTime::now())
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

    fn quota(&self) -> Option<Quota> {
        crate::http::quota(self.headers(), SystemTime::now())
    }

    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ClassifyHttp::describe_status(self.status(), f)
    }
}

/// The HTTP judge: the policy's classifier, the HTTP rules for the
/// responses when it judges only errors, and the readiness rule.
struct HttpOutcomes<'a, C, U> {
    classifier: &'a C,
    ready: &'a U,
}

impl<C: ClassifyResult<Response, Error>, U: Ready<Response>> Judge<Response, Error>
    for HttpOutcomes<'_, C, U>
{
    type Success = Result<Response, Error>;
    type Failed = FailedAttempt<Response, Error>;
    type Unready = Response;

    fn judge(&self, outcome: Result<Response, Error>) -> Result<Self::Success, (Self::Failed, Failure)> {
        if self.classifier.judges_responses() {
            return Outcomes { classifier: self.classifier, ready: self.ready }.judge(outcome);
        }
        let failure = match &outcome {
            Ok(response) => ClassifyHttp::new().classify_head(
                response.status(),
                response.headers(),
                response.extensions(),
            ),
            Err(error) => self.classifier.classify_result(Err(error)),
        };
        match failure {
            Some(failure) => Err((FailedAttempt::new::<ClassifyHttp>(outcome), failure)),
            None => Outcomes { classifier: &ClassifyHttp::new(), ready: self.ready }.judge(outcome),
        }
    }

    fn failed(error: Error) -> Self::Failed {
        FailedAttempt::new::<ClassifyHttp>(Err(error))
    }

    /// The rate-limit headers of every response, whatever the classifier:
    /// they are HTTP's, as the status rules are.
    fn quota(&self, outcome: Result<&Response, &Error>) -> Option<Quota> {
        crate::http::quota(outcome.ok()?.headers(), SystemTime::now())
    }

    fn type_name(failed: &Self::Failed) -> &'static str {
        failed.type_name()
    }

    fn last(failed: Self::Failed) -> Result<Response, Error> {
        failed.into_result()
    }
}

impl From<TimedOut> for Error {
    fn from(cut: TimedOut) -> Self {
        Error::middleware(cut)
    }
}

impl From<Cancelled> for Error {
    fn from(cancelled: Cancelled) -> Self {
        Error::middleware(cancelled)
    }
}

impl<S, C, T, Z, K, U, X> RetryMiddleware<RetryPolicy<S, C, T>, Z, K, U, X>
where
    S: Schedule + Send + Sync,
    S::Delays: Send,
    C: ClassifyResult<Response, Error> + Send + Sync,
    T: Timeout + Send + Sync,
    Z: Sleeper + Send + Sync,
    Z::Sleep: Send,
    K: Clock + Send + Sync,
    K::Instant: Send,
    U: Ready<Response> + Send + Sync,
    X: CancelSignal<Error> + Send + Sync,
    X::Signal: Send,
    X::Fired: Send,
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
        let spare = if self.is_repeatable(&request, extensions) { request.try_clone() } else { None };
        let hedged = spare.is_some();
        let (mut first, mut pending) = (Some(request), spare);
        let send = |_, _| {
            // Each attempt sends its own copy of the request, with its own
            // copy of the extensions, so the futures of two attempts share nothing.
            let request = first.take().or_else(|| {
                let request = pending.take();
                pending = request.as_ref().and_then(Request::try_clone);
                request
            });
            let (next, mut extensions) = (next.clone(), extensions.clone());
            let future = async move {
                match request {
                    // The start of a failed response's body is read within
                    // the attempt, so its time limit covers the reading too.
                    Some(request) => {
                        Ok(body::with_body_start(next.run(request, &mut extensions).await?).await)
                    }
                    None => unreachable!("an attempt is sent only when the request can be"),
                }
            };
            Sending { future, repeatable: pending.is_some() }
        };
        let judge = HttpOutcomes { classifier: &policy.classifier, ready: &self.ready };
        let mut fired = None;
        let cancel = async { fired = Some(self.cancel.signal().await) };
        let limits = policy.service_limits();
        let (sleeper, clock) = (&self.sleeper, &self.clock);
        let outcome = match &self.hedging {
            Some(hedging) if hedged => {
                hedge::drive(policy, &limits, hedging, send, &judge, &NoNotify, sleeper, clock, cancel).await
            }
            _ => drive(policy, &limits, send, &judge, &NoNotify, sleeper, clock, cancel).await,
        };
        match outcome {
            Ok(done) => {
                let report = RetryReport {
                    attempts: done.attempts,
                    waited: done.waited,
                    stopped: None,
                    winner: done.winner,
                };
                done.value.map(|response| with_report(response, report))
            }
            Err(stopped) => {
                let (reason, attempts, waited) = (stopped.reason, stopped.attempts, stopped.waited);
                let report = RetryReport { attempts, waited, stopped: Some(reason), winner: attempts };
                give_back(stopped, fired.map(CancelError::into_error))
                    .map(|response| with_report(response, report))
            }
        }
    }
}

fn with_report(mut response: Response, report: RetryReport) -> Response {
    response.extensions_mut().insert(report);
    response
}

impl<S, C, T, Z, K, U, X> Middleware for RetryMiddleware<RetryPolicy<S, C, T>, Z, K, U, X>
where
    S: Schedule + Send + Sync + 'static,
    S::Delays: Send,
    C: ClassifyResult<Response, Error> + Send + Sync + 'static,
    T: Timeout + Send + Sync + 'static,
    Z: Sleeper + Send + Sync + 'static,
    Z::Sleep: Send,
    K: Clock + Send + Sync + 'static,
    K::Instant: Send,
    U: Ready<Response> + Send + Sync + 'static,
    X: CancelSignal<Error> + Send + Sync + 'static,
    X::Signal: Send,
    X::Fired: Send,
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
