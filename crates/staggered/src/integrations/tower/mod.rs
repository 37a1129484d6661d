//! A tower middleware that retries on a staggered schedule (feature `tower`).
//!
//! [`RetryLayer`] wraps a service in [`Retry`]: each request gets one
//! [`Decision`](crate::Decision) from the [`RetryPolicy`] (schedule,
//! `max_attempts`, deadline, server hints, budget, hooks and `tracing`, the
//! same rules as the blocking and async drivers), a
//! [`ClassifyResult`] decides which responses and errors are failures, and
//! a [`CloneRequest`] makes the copy each retry sends. A request that
//! cannot be cloned is sent once and never retried.
//!
//! ```
//! # async fn demo() -> Result<(), std::io::Error> {
//! use std::time::Duration;
//! use staggered::classify::io::classify_io;
//! use staggered::tower::RetryLayer;
//! use staggered::{Backoff, RetryPolicy, Strategy, TokenBucket};
//! use tower::{service_fn, Service, ServiceBuilder, ServiceExt};
//!
//! let backoff = Backoff::builder(Strategy::Full)
//!     .with_base(Duration::from_millis(10))
//!     .with_max_delay(Duration::from_millis(100))
//!     .with_max_attempts(4)
//!     .build()
//!     .expect("valid schedule");
//! let policy = RetryPolicy::new(backoff)
//!     .classify(classify_io) // any classifier of errors classifies a service's results
//!     .with_budget(TokenBucket::new()) // share one budget per client
//!     .with_deadline(Duration::from_secs(2))
//!     .expect("a deadline above zero")
//!     .on_retry(|event| eprintln!("{event}")); // no annotation needed
//! let mut calls = 0;
//! let mut service = ServiceBuilder::new()
//!     .layer(RetryLayer::new(policy)) // `String` requests are cloned with `Clone`
//!     .service(service_fn(move |request: String| {
//!         calls += 1;
//!         let attempt = calls;
//!         async move {
//!             if attempt < 3 {
//!                 Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset))
//!             } else {
//!                 Ok(request.len())
//!             }
//!         }
//!     }));
//! let length = service.ready().await?.call("hello".to_owned()).await?;
//! assert_eq!(length, 5);
//! # Ok(())
//! # }
//! # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(demo()).unwrap();
//! ```
//!
//! # Which responses fail
//! A service's response can itself be a failure (an HTTP 503), so the
//! layer asks the policy's classifier about both:
//! - a policy with no classifier ([`DefaultRules`](crate::DefaultRules))
//!   knows the responses of `http`: 408, 429 and 5xx retry, with their
//!   server hints; other 4xx stop. For a service of any other response
//!   type it does not compile until a classifier is chosen, so that no
//!   failed response is taken for a success without anyone saying so;
//! - a classifier of errors (a closure, [`classify_io`](crate::classify::io::classify_io),
//!   [`RetryIf`](crate::RetryIf), [`AlwaysTransient`](crate::AlwaysTransient))
//!   classifies the errors and accepts every response;
//! - [`ClassifyHttp`](crate::classify::http::ClassifyHttp) and
//!   [`ByResult`](crate::ByResult) judge the responses too.
//!
//! For an HTTP service with a rule of your own for its errors, keep the
//! HTTP rules for its responses with a [`ByResult`](crate::ByResult) that
//! asks `ClassifyHttp` about them.
//!
//! # Codes in the body
//! The HTTP rules count a response as throttled by what its headers say
//! (a 429, a 503 with `Retry-After`, an AWS code in `x-amzn-ErrorType`,
//! GitHub's spent quota) and by a code at the start of its body (S3's
//! `<Code>SlowDown</Code>`): see
//! [what counts as a throttle](crate::http#what-counts-as-a-throttle). The
//! layer reads no body: a response's body is of any type, and reading a
//! stream consumes it. So the header forms always count, and the body's
//! codes count when a service below the layer puts the body's start in the
//! response's extensions: [`keep_body_start`](crate::http::keep_body_start)
//! for bodies held whole, or a [`BodyStart`](crate::http::BodyStart) read
//! by a service that streams them.
//!
//! ```
//! # async fn demo() -> Result<(), tower::BoxError> {
//! use staggered::http::{keep_body_start, ClassifyHttp};
//! use staggered::tower::RetryLayer;
//! use staggered::{AdaptiveLimiter, Preset, RetryPolicy};
//! use tower::{service_fn, Service, ServiceBuilder, ServiceExt};
//!
//! let slow_down = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
//! let limiter = AdaptiveLimiter::new();
//! let policy = RetryPolicy::new(Preset::Interactive.backoff())
//!     .classify(ClassifyHttp::new())
//!     .with_rate_limiter(limiter.clone());
//! let mut service = ServiceBuilder::new()
//!     .layer(RetryLayer::new(policy))
//!     .map_response(|mut response| {
//!         keep_body_start(&mut response); // below the layer: its classifier sees the start
//!         response
//!     })
//!     .service(service_fn(move |_: ()| async move {
//!         Ok::<_, tower::BoxError>(http::Response::builder().status(503).body(slow_down.to_owned())?)
//!     }));
//! let response = service.ready().await?.call(()).await?;
//! assert_eq!(response.body(), slow_down, "the last answer, whole");
//! assert!(limiter.metrics().enabled, "every SlowDown was a throttle");
//! # Ok(())
//! # }
//! # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(demo()).unwrap();
//! ```
//!
//! ```compile_fail,E0599
//! # async fn demo() {
//! use staggered::tower::RetryLayer;
//! use staggered::{Preset, RetryPolicy};
//! use tower::{service_fn, Service, ServiceBuilder, ServiceExt};
//!
//! // Which `u32` responses are failures? Nobody said: this does not compile.
//! let mut service = ServiceBuilder::new()
//!     .layer(RetryLayer::new(RetryPolicy::new(Preset::Interactive.backoff())))
//!     .service(service_fn(|n: u32| async move { Ok::<_, std::io::Error>(n) }));
//! let _ = service.ready().await.unwrap().call(1).await;
//! # }
//! ```
//!
//! # Readiness and cloning the inner service
//! `call` sends the first attempt on the inner service that `poll_ready`
//! readied, and keeps a clone of the inner service for the retries, as
//! tower's own `Retry` does; so the inner service must be `Clone`, and a
//! retry first waits for the clone's `poll_ready`. An error from that
//! `poll_ready` ends the request with that error. The clone is made only for
//! a request that can be retried.
//!
//! # Requirements
//! The inner service is `Clone`, and its error type `Display` (for hooks
//! and `tracing`) and able to hold a [`TimedOut`](crate::TimedOut)
//! ([`FromTimedOut`](crate::FromTimedOut): `std::io::Error` and
//! `tower::BoxError` are; map another with `.map_err(BoxError::from)` below
//! the layer), since the layer cuts an attempt that runs into the deadline
//! and returns that as the service's error.
//!
//! # What the caller gets
//! The first success, or, once the policy stops, the last attempt's outcome
//! as it came: a failed response stays a response (an HTTP 503), an error
//! stays the service's error. The policy's hooks ([`RetryPolicy::on_retry`])
//! and the `tracing` events hear each failed attempt, with the stop reason
//! in the give-up event.
//!
//! # Polling and cancelling
//! [`RetryLayer::until`] retries a response that is not ready yet (a job
//! still running) as a transient failure; the last one is returned if the
//! retrying stops on it. [`RetryLayer::cancel_on`] gives each request a
//! cancel signal (any future, made per request): when it fires, the
//! request stops at once, during a wait or an attempt (which is dropped),
//! with the last failed attempt's outcome, or with a [`Cancelled`](crate::Cancelled)
//! error (the service's error type must hold one) if none had ended.
//!
//! # Time
//! Waits use the layer's [`Sleeper`] and the deadline its [`Clock`]: tokio's
//! by default, any runtime's with [`RetryLayer::with_timer`] (a recording
//! sleeper in tests). Every attempt races the time it has, the per-attempt
//! timeout ([`RetryPolicy::with_attempt_timeout`]) cut to the time left
//! before the deadline, so the deadline bounds the whole request. Unless
//! the policy sets `max_hint`, a server hint is honoured up to a minute (or
//! the schedule's largest delay, if longer): see
//! [`RetryPolicy`'s defaults](RetryPolicy#defaults).

mod future;

use core::fmt;
use core::task::{Context, Poll};
use std::sync::Arc;

use tower_layer::Layer;
use tower_service::Service;

pub use future::ResponseFuture;

use crate::retry::judge::{Always, Ready};
use crate::retry::retrying::NoCancel;
use crate::retry::timeout::{FromTimedOut, Timeout};
use crate::service::{ByClone, CancelSignal, ClassifyResult, CloneRequest};
use crate::sleep::{Clock, Sleeper, TokioClock, TokioSleeper};
use crate::{Hedging, RetryPolicy, Schedule};

/// Wraps services in [`Retry`]: see the [module docs](self).
///
/// # Default
/// | part | default |
/// |---|---|
/// | classifier | the policy's: see [which responses fail](self#which-responses-fail) |
/// | `max_hint` | the policy's if set, else at least one minute |
/// | request cloning | [`ByClone`] (`Req: Clone`) |
/// | timer | [`TokioSleeper`] and [`TokioClock`] |
/// | polling | none: every response the classifier accepts is a success |
/// | cancel signal | none |
/// | hedging | none: retries only |
#[derive(Clone)]
pub struct RetryLayer<P, Q = ByClone, Z = TokioSleeper, K = TokioClock, U = Always, X = NoCancel> {
    shared: Shared<P, Q, Z, K, U, X>,
}

/// What every request of a [`Retry`] reads: the policy, the request
/// cloner, the timer, the readiness rule and the cancel signal.
#[derive(Clone)]
pub(crate) struct Shared<P, Q, Z, K, U, X> {
    pub(crate) policy: P,
    pub(crate) clone_request: Q,
    pub(crate) sleeper: Z,
    pub(crate) clock: K,
    pub(crate) ready: U,
    pub(crate) cancel: X,
    pub(crate) hedging: Option<Hedging>,
}

impl<P> RetryLayer<P> {
    /// A layer retrying with `policy` (a [`RetryPolicy`]), cloning requests
    /// with `Clone`, on tokio's timer.
    pub fn new(policy: P) -> Self {
        RetryLayer {
            shared: Shared {
                policy,
                clone_request: ByClone,
                sleeper: TokioSleeper,
                clock: TokioClock,
                ready: Always,
                cancel: NoCancel,
                hedging: None,
            },
        }
    }
}

impl<P, Q, Z, K, U, X> RetryLayer<P, Q, Z, K, U, X> {
    /// Clones requests with `clone_request` (any `Fn(&Req) -> Option<Req>`,
    /// or [`IdempotentOnly`](crate::http::IdempotentOnly)); a request it
    /// returns `None` for is sent once.
    pub fn clone_requests_with<Q2>(self, clone_request: Q2) -> RetryLayer<P, Q2, Z, K, U, X> {
        let Shared { policy, sleeper, clock, ready, cancel, hedging, .. } = self.shared;
        RetryLayer { shared: Shared { policy, clone_request, sleeper, clock, ready, cancel, hedging } }
    }

    /// Waits with `sleeper` and measures the deadline on `clock`: another
    /// runtime's timer, or a `RecordingSleeper` (feature `test-util`) and its
    /// clock in tests.
    pub fn with_timer<Z2: Sleeper, K2: Clock>(
        self,
        sleeper: Z2,
        clock: K2,
    ) -> RetryLayer<P, Q, Z2, K2, U, X> {
        let Shared { policy, clone_request, ready, cancel, hedging, .. } = self.shared;
        RetryLayer { shared: Shared { policy, clone_request, sleeper, clock, ready, cancel, hedging } }
    }

    /// Polls: a response the classifier accepts but for which `ready` is
    /// false is retried as a transient failure, on the schedule and under
    /// every limit (a job still running). The last one is returned if the
    /// retrying stops on it.
    pub fn until<U2>(self, ready: U2) -> RetryLayer<P, Q, Z, K, U2, X> {
        let Shared { policy, clone_request, sleeper, clock, cancel, hedging, .. } = self.shared;
        RetryLayer { shared: Shared { policy, clone_request, sleeper, clock, ready, cancel, hedging } }
    }

    /// Gives each request a cancel signal made by `signal` (any
    /// `Fn() -> impl Future<Output = ()>`, such as
    /// `move || token.clone().cancelled_owned()` for `tokio_util`'s
    /// `CancellationToken`): when it fires, the request stops at once with
    /// [`StopReason::Cancelled`](crate::StopReason::Cancelled) (see
    /// [polling and cancelling](self#polling-and-cancelling)).
    pub fn cancel_on<X2>(self, signal: X2) -> RetryLayer<P, Q, Z, K, U, X2> {
        let Shared { policy, clone_request, sleeper, clock, ready, hedging, .. } = self.shared;
        RetryLayer {
            shared: Shared { policy, clone_request, sleeper, clock, ready, cancel: signal, hedging },
        }
    }

    /// Hedges the requests the cloner can copy instead of retrying them:
    /// while no copy has answered, another goes to a clone of the inner
    /// service (readied first) after the [`Hedging`] delay, and the first
    /// success wins; the others are dropped (see [`Hedging`] for the
    /// rules). A request that cannot be cloned is sent once.
    pub fn hedge(mut self, hedging: Hedging) -> Self {
        self.shared.hedging = Some(hedging);
        self
    }

    /// The policy.
    pub const fn policy(&self) -> &P {
        &self.shared.policy
    }
}

impl<P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug, U, X> fmt::Debug
    for RetryLayer<P, Q, Z, K, U, X>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.fmt(f)
    }
}

impl<P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug, U, X> fmt::Debug
    for Shared<P, Q, Z, K, U, X>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryLayer")
            .field("policy", &self.policy)
            .field("clone_request", &self.clone_request)
            .field("sleeper", &self.sleeper)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl<Svc, P: Clone, Q: Clone, Z: Clone, K: Clone, U: Clone, X: Clone> Layer<Svc>
    for RetryLayer<P, Q, Z, K, U, X>
{
    type Service = Retry<Svc, P, Q, Z, K, U, X>;

    fn layer(&self, inner: Svc) -> Self::Service {
        Retry { inner, shared: Arc::new(self.shared.clone()) }
    }
}

/// A service that retries failed calls of `Svc`: see the [module docs](self).
pub struct Retry<Svc, P, Q = ByClone, Z = TokioSleeper, K = TokioClock, U = Always, X = NoCancel> {
    inner: Svc,
    shared: Arc<Shared<P, Q, Z, K, U, X>>,
}

impl<Svc, P> Retry<Svc, P> {
    /// Wraps `inner`, as [`RetryLayer::new`]`(policy).layer(inner)` does.
    pub fn new(inner: Svc, policy: P) -> Self {
        Retry { inner, shared: Arc::new(RetryLayer::new(policy).shared) }
    }
}

impl<Svc, P, Q, Z, K, U, X> Retry<Svc, P, Q, Z, K, U, X> {
    /// The inner service.
    pub const fn get_ref(&self) -> &Svc {
        &self.inner
    }

    /// The inner service, mutably.
    pub fn get_mut(&mut self) -> &mut Svc {
        &mut self.inner
    }

    /// The inner service, by value.
    pub fn into_inner(self) -> Svc {
        self.inner
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        &self.shared.policy
    }
}

impl<Svc: Clone, P, Q, Z, K, U, X> Clone for Retry<Svc, P, Q, Z, K, U, X> {
    fn clone(&self) -> Self {
        Retry { inner: self.inner.clone(), shared: Arc::clone(&self.shared) }
    }
}

impl<Svc: fmt::Debug, P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug, U, X> fmt::Debug
    for Retry<Svc, P, Q, Z, K, U, X>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retry").field("inner", &self.inner).field("layer", &self.shared).finish()
    }
}

impl<Svc, Req, S, C, T, Q, Z, K, U, X> Service<Req> for Retry<Svc, RetryPolicy<S, C, T>, Q, Z, K, U, X>
where
    Svc: Service<Req> + Clone,
    Svc::Error: fmt::Display + FromTimedOut,
    S: Schedule,
    C: ClassifyResult<Svc::Response, Svc::Error>,
    T: Timeout,
    Q: CloneRequest<Req>,
    Z: Sleeper,
    K: Clock,
    U: Ready<Svc::Response>,
    X: CancelSignal<Svc::Error>,
{
    type Response = Svc::Response;
    type Error = Svc::Error;
    type Future = ResponseFuture<Svc, Req, S, C, T, Q, Z, K, U, X>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        ResponseFuture::start(Arc::clone(&self.shared), &mut self.inner, request)
    }
}
