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
//!     .on_retry(|event| eprintln!("{event}")); // no annotation: the types come from the service
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
//! and returns that as the service's error. The schedule's delays are
//! `Send + 'static` (a [`Backoff`](crate::Backoff)'s are): a failing request
//! boxes them once, so that [`ResponseFuture`] need not name the schedule.
//!
//! # What the caller gets
//! The first success, or, once the policy stops, the last attempt's outcome
//! as it came: a failed response stays a response (an HTTP 503), an error
//! stays the service's error. Hooks ([`RetryPolicy::on_retry`]) and the
//! `tracing` events get a [`FailedAttempt`]
//! with the stop reason in the give-up event.
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

use crate::budget::{Budget, BudgetMetrics};
use crate::classify::Failure;
use crate::retry::event::Notify;
use crate::retry::timeout::{FromTimedOut, TimeoutFor};
use crate::service::attempts::Attempts;
use crate::service::{ByClone, ClassifyResult, CloneRequest, FailedAttempt};
use crate::sleep::{Clock, Sleeper, TokioClock, TokioSleeper};
use crate::{RetryPolicy, Schedule};

/// Wraps services in [`Retry`]: see the [module docs](self).
///
/// # Default
/// | part | default |
/// |---|---|
/// | classifier | the policy's: see [which responses fail](self#which-responses-fail) |
/// | `max_hint` | the policy's if set, else at least one minute |
/// | request cloning | [`ByClone`] (`Req: Clone`) |
/// | timer | [`TokioSleeper`] and [`TokioClock`] |
#[derive(Clone)]
pub struct RetryLayer<P, Q = ByClone, Z = TokioSleeper, K = TokioClock> {
    shared: Shared<P, Q, Z, K>,
}

/// What every request of a [`Retry`] reads: the policy, the request cloner and the timer.
#[derive(Clone)]
pub(crate) struct Shared<P, Q, Z, K> {
    pub(crate) policy: P,
    pub(crate) clone_request: Q,
    pub(crate) sleeper: Z,
    pub(crate) clock: K,
}

impl<P> RetryLayer<P> {
    /// A layer retrying with `policy` (a [`RetryPolicy`]), cloning requests
    /// with `Clone`, on tokio's timer.
    pub fn new(policy: P) -> Self {
        RetryLayer {
            shared: Shared { policy, clone_request: ByClone, sleeper: TokioSleeper, clock: TokioClock },
        }
    }
}

impl<P, Q, Z, K> RetryLayer<P, Q, Z, K> {
    /// Clones requests with `clone_request` (any `Fn(&Req) -> Option<Req>`,
    /// or [`IdempotentOnly`](crate::http::IdempotentOnly)); a request it
    /// returns `None` for is sent once.
    pub fn clone_requests_with<Q2>(self, clone_request: Q2) -> RetryLayer<P, Q2, Z, K> {
        let Shared { policy, sleeper, clock, .. } = self.shared;
        RetryLayer { shared: Shared { policy, clone_request, sleeper, clock } }
    }

    /// Waits with `sleeper` and measures the deadline on `clock`: another
    /// runtime's timer, or a `RecordingSleeper` (feature `test-util`) and its
    /// clock in tests.
    pub fn with_timer<Z2: Sleeper, K2: Clock>(self, sleeper: Z2, clock: K2) -> RetryLayer<P, Q, Z2, K2> {
        let Shared { policy, clone_request, .. } = self.shared;
        RetryLayer { shared: Shared { policy, clone_request, sleeper, clock } }
    }

    /// The policy.
    pub const fn policy(&self) -> &P {
        &self.shared.policy
    }
}

impl<P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug> fmt::Debug for RetryLayer<P, Q, Z, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.fmt(f)
    }
}

impl<P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug> fmt::Debug for Shared<P, Q, Z, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryLayer")
            .field("policy", &self.policy)
            .field("clone_request", &self.clone_request)
            .field("sleeper", &self.sleeper)
            .field("clock", &self.clock)
            .finish()
    }
}

impl<Svc, P: Clone, Q: Clone, Z: Clone, K: Clone> Layer<Svc> for RetryLayer<P, Q, Z, K> {
    type Service = Retry<Svc, P, Q, Z, K>;

    fn layer(&self, inner: Svc) -> Self::Service {
        Retry { inner, shared: Arc::new(self.shared.clone()) }
    }
}

/// A service that retries failed calls of `Svc`: see the [module docs](self).
pub struct Retry<Svc, P, Q = ByClone, Z = TokioSleeper, K = TokioClock> {
    inner: Svc,
    shared: Arc<Shared<P, Q, Z, K>>,
}

impl<Svc, P> Retry<Svc, P> {
    /// Wraps `inner`, as [`RetryLayer::new`]`(policy).layer(inner)` does.
    pub fn new(inner: Svc, policy: P) -> Self {
        Retry {
            inner,
            shared: Arc::new(Shared {
                policy,
                clone_request: ByClone,
                sleeper: TokioSleeper,
                clock: TokioClock,
            }),
        }
    }
}

impl<Svc, P, Q, Z, K> Retry<Svc, P, Q, Z, K> {
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

impl<Svc: Clone, P, Q, Z, K> Clone for Retry<Svc, P, Q, Z, K> {
    fn clone(&self) -> Self {
        Retry { inner: self.inner.clone(), shared: Arc::clone(&self.shared) }
    }
}

impl<Svc: fmt::Debug, P: fmt::Debug, Q: fmt::Debug, Z: fmt::Debug, K: fmt::Debug> fmt::Debug
    for Retry<Svc, P, Q, Z, K>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retry").field("inner", &self.inner).field("layer", &self.shared).finish()
    }
}

impl<Svc, Req, S, C, N, B, T, Q, Z, K> Service<Req> for Retry<Svc, RetryPolicy<S, C, N, B, T>, Q, Z, K>
where
    Svc: Service<Req> + Clone,
    Svc::Error: fmt::Display + FromTimedOut,
    S: Schedule,
    S::Delays: Send + 'static,
    C: ClassifyResult<Svc::Response, Svc::Error>,
    N: Notify<FailedAttempt<Svc::Response, Svc::Error>>,
    B: Budget,
    T: TimeoutFor<Svc::Error>,
    Q: CloneRequest<Req>,
    Z: Sleeper,
    K: Clock,
{
    type Response = Svc::Response;
    type Error = Svc::Error;
    type Future = ResponseFuture<Svc, Req, RetryPolicy<S, C, N, B, T>, Q, Z, K>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        let shared = &*self.shared;
        let spare = shared.clone_request.clone_request(&request);
        let service = spare.as_ref().map(|_| self.inner.clone());
        let timeout = <T as TimeoutFor<Svc::Error>>::timeout(&shared.policy.timeout);
        let attempts = Attempts::start(&shared.policy, timeout, &shared.clock);
        if shared.policy.limiter.is_set() {
            // Attempt 1 waits for its token on a clone of the service, readied
            // by the future as a retry's is.
            let service = self.inner.clone();
            return ResponseFuture::admitting(Arc::clone(&self.shared), service, request, attempts);
        }
        let limit = attempts.attempt_limit(&shared.clock);
        let timer = limit.map(|cut| shared.sleeper.cut_after(cut));
        let future = self.inner.call(request);
        ResponseFuture::new(Arc::clone(&self.shared), service, spare, attempts, limit, future, timer)
    }
}

/// The decision's handle on the policy's budget: the request's future owns
/// the shared state, so the decision reaches the budget through it.
impl<S, C, N, B: Budget, T, Q, Z, K> Budget for Shared<RetryPolicy<S, C, N, B, T>, Q, Z, K> {
    const READS_LAST_FAILURE: bool = B::READS_LAST_FAILURE;

    #[inline]
    fn withdraw(&self, failure: &Failure) -> bool {
        self.policy.budget.withdraw(failure)
    }
    #[inline]
    fn deposit(&self, attempt: u32, last_failure: Option<&Failure>) {
        self.policy.budget.deposit(attempt, last_failure)
    }
    #[inline]
    fn record_failure(&self, failure: &Failure) {
        self.policy.budget.record_failure(failure)
    }
    #[inline]
    fn record_request(&self) {
        self.policy.budget.record_request()
    }
    #[inline]
    fn metrics(&self) -> Option<BudgetMetrics> {
        self.policy.budget.metrics()
    }
}
