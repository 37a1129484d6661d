//! The future of one request through [`Retry`](super::Retry): a small state
//! machine that calls, waits and readies; every decision is the policy's.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{ready, Context, Poll};
use core::time::Duration;
use std::sync::Arc;

use pin_project_lite::pin_project;
use tower_service::Service;

use super::Shared;
use crate::budget::Budget;
use crate::classify::Failure;
use crate::retry::event::Notify;
use crate::retry::timeout::{FromTimedOut, TimeoutFor};
use crate::service::attempts::Attempts;
use crate::service::{ClassifyResult, CloneRequest, FailedAttempt};
use crate::sleep::{Clock, Sleeper};
use crate::{Decision, RetryPolicy, Schedule, TimedOut};

// A schedule's delays are boxed once per failing request (with their
// steering), so that the future's type does not have to name the schedule.
use crate::retry::steering::BoxedDelays;

/// One request's retry state, reaching the budget through the shared state.
type RequestAttempts<P, Q, Z, K> = Attempts<BoxedDelays, Arc<Shared<P, Q, Z, K>>, <K as Clock>::Instant>;

pin_project! {
    /// The response future of [`Retry`](super::Retry): resolves to the first
    /// success, or to the last attempt's outcome once the policy stops.
    ///
    /// `P` is the [`RetryPolicy`], `Q` the request cloner, `Z` and `K` the
    /// sleeper and clock; the service names this type, so you rarely have to.
    pub struct ResponseFuture<Svc, Req, P, Q, Z, K>
    where
        Svc: Service<Req>,
        Z: Sleeper,
        K: Clock,
    {
        shared: Arc<Shared<P, Q, Z, K>>,
        // The clone of the inner service that sends the retries; `None` for a
        // request that cannot be retried.
        service: Option<Svc>,
        // The copy the next retry sends.
        request: Option<Req>,
        attempts: RequestAttempts<P, Q, Z, K>,
        // The current attempt's time limit.
        limit: Option<Duration>,
        // The time the next attempt has waited for the rate limiter's token.
        token_wait: Duration,
        #[pin]
        state: State<Svc::Future, Z::Sleep>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F, Sl> {
        // An attempt is in flight, racing its timeout if there is one.
        Calling { #[pin] future: F, #[pin] timer: Option<Sl> },
        // Waiting before the next attempt.
        Waiting { #[pin] sleep: Sl },
        // Taking the rate limiter's token for the next attempt, after a wait
        // for it if there is one.
        Admitting { #[pin] sleep: Option<Sl> },
        // Waiting for the inner service to be ready for the next attempt.
        Readying,
    }
}

impl<Svc, Req, P, Q, Z, K> ResponseFuture<Svc, Req, P, Q, Z, K>
where
    Svc: Service<Req>,
    Z: Sleeper,
    K: Clock,
{
    pub(super) fn new(
        shared: Arc<Shared<P, Q, Z, K>>,
        service: Option<Svc>,
        request: Option<Req>,
        attempts: RequestAttempts<P, Q, Z, K>,
        limit: Option<Duration>,
        future: Svc::Future,
        timer: Option<Z::Sleep>,
    ) -> Self {
        let token_wait = Duration::ZERO;
        ResponseFuture {
            shared,
            service,
            request,
            attempts,
            limit,
            token_wait,
            state: State::Calling { future, timer },
        }
    }

    /// A request whose attempt 1 waits for the rate limiter's token first:
    /// it is sent on `service` (a clone) once the token is taken.
    pub(super) fn admitting(
        shared: Arc<Shared<P, Q, Z, K>>,
        service: Svc,
        request: Req,
        attempts: RequestAttempts<P, Q, Z, K>,
    ) -> Self {
        ResponseFuture {
            shared,
            service: Some(service),
            request: Some(request),
            attempts,
            limit: None,
            token_wait: Duration::ZERO,
            state: State::Admitting { sleep: None },
        }
    }
}

impl<Svc, Req, P, Q, Z, K> fmt::Debug for ResponseFuture<Svc, Req, P, Q, Z, K>
where
    Svc: Service<Req>,
    Z: Sleeper,
    K: Clock,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Calling { .. } => "calling",
            State::Waiting { .. } => "waiting",
            State::Admitting { .. } => "admitting",
            State::Readying => "readying",
        };
        f.debug_struct("ResponseFuture")
            .field("attempt", &self.attempts.attempt())
            .field("waited", &self.attempts.waited())
            .field("retryable", &self.service.is_some())
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

impl<Svc, Req, S, C, N, B, T, Q, Z, K> Future
    for ResponseFuture<Svc, Req, RetryPolicy<S, C, N, B, T>, Q, Z, K>
where
    Svc: Service<Req>,
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
    type Output = Result<Svc::Response, Svc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            let this = self.as_mut().project();
            let shared_handle: &Arc<Shared<_, _, _, _>> = this.shared;
            let shared = &**shared_handle;
            let policy = &shared.policy;
            let mut state = this.state;
            match state.as_mut().project() {
                StateProj::Calling { future, timer } => {
                    let (result, cut) = match future.poll(cx) {
                        Poll::Ready(result) => (result, false),
                        Poll::Pending => match (timer.as_pin_mut(), *this.limit) {
                            (Some(timer), Some(after)) => {
                                ready!(timer.poll(cx));
                                (Err(Svc::Error::from(TimedOut { after })), true)
                            }
                            _ => return Poll::Pending,
                        },
                    };
                    let failure = if cut {
                        Failure::timeout()
                    } else {
                        match policy.classifier.classify_result(result.as_ref()) {
                            Some(failure) => failure,
                            None => {
                                policy.limiter.record(false);
                                this.attempts.on_success(policy);
                                return Poll::Ready(result);
                            }
                        }
                    };
                    policy.limiter.record(failure.kind == crate::ErrorKind::Throttled);
                    if this.service.is_none() || this.request.is_none() {
                        // Not repeatable: sent once, whatever the outcome.
                        return Poll::Ready(result);
                    }
                    let failed = FailedAttempt::new::<C>(result);
                    let decision = |limits| {
                        let (delays, steering) = crate::retry::steering::boxed(&policy.schedule);
                        Decision::steered(delays, limits, Arc::clone(shared_handle), steering)
                    };
                    let error_type = failed.type_name();
                    match this.attempts.on_failure(
                        policy,
                        &shared.clock,
                        &failed,
                        error_type,
                        failure,
                        decision,
                    ) {
                        Ok(delay) => state.set(State::Waiting { sleep: shared.sleeper.sleep(delay) }),
                        Err(_) => return Poll::Ready(failed.into_result()),
                    }
                }
                StateProj::Waiting { sleep } => {
                    ready!(sleep.poll(cx));
                    if policy.limiter.is_set() {
                        state.set(State::Admitting { sleep: None });
                    } else {
                        state.set(State::Readying);
                    }
                }
                StateProj::Admitting { sleep } => {
                    if let Some(sleep) = sleep.as_pin_mut() {
                        ready!(sleep.poll(cx));
                    }
                    match this.attempts.admit(policy, &shared.clock, this.token_wait) {
                        Ok(None) => state.set(State::Readying),
                        Ok(Some(wait)) => {
                            state.set(State::Admitting { sleep: Some(shared.sleeper.sleep(wait)) })
                        }
                        // No token before the deadline: the deadline passed
                        // before this attempt could be sent.
                        Err(_) => {
                            let after = this.attempts.time_left(&shared.clock);
                            return Poll::Ready(Err(Svc::Error::from(TimedOut { after })));
                        }
                    }
                }
                StateProj::Readying => {
                    let (Some(service), Some(_)) = (this.service.as_mut(), this.request.as_ref()) else {
                        unreachable!(
                            "a retry is only scheduled for a request with a service and a spare copy"
                        )
                    };
                    if let Err(error) = ready!(service.poll_ready(cx)) {
                        return Poll::Ready(Err(error));
                    }
                    let Some(request) = this.request.take() else { unreachable!("checked above") };
                    *this.request = shared.clone_request.clone_request(&request);
                    let limit = this.attempts.attempt_limit(&shared.clock);
                    *this.limit = limit;
                    let timer = limit.map(|cut| shared.sleeper.cut_after(cut));
                    let future = service.call(request);
                    state.set(State::Calling { future, timer });
                }
            }
        }
    }
}
