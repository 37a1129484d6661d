//! The future of one request through [`Retry`](super::Retry): a loop over
//! the retry machine, written as a state machine that calls, waits and
//! readies; every rule is the machine's.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{ready, Context, Poll};
use core::time::Duration;
use std::sync::Arc;

use pin_project_lite::pin_project;
use tower_service::Service;

use super::Shared;
use crate::retry::event::NoNotify;
use crate::retry::future::Sending;
use crate::retry::hedge::Copies;
use crate::retry::judge::{Outcomes, Ready};
use crate::retry::operation::{After, Attempted, Before, CallParts, Operation};
use crate::retry::timeout::{FromTimedOut, Timeout};
use crate::service::{give_back, CancelError, CancelSignal, ClassifyResult, CloneRequest, FailedAttempt};
use crate::sleep::{Clock, Sleeper};
use crate::{Limits, RetryPolicy, Schedule, TimedOut};

/// One request's shared state.
type SharedOf<S, C, T, Q, Z, K, U, X> = Arc<Shared<RetryPolicy<S, C, T>, Q, Z, K, U, X>>;

pin_project! {
    /// The response future of [`Retry`](super::Retry): resolves to the first
    /// success, or to the last attempt's outcome once the policy stops.
    ///
    /// The service names this type, so you rarely have to: `S`, `C` and `T`
    /// are the policy's, `Q` the request cloner, `Z` and `K` the sleeper and
    /// clock, `U` the readiness rule and `X` the cancel signal.
    pub struct ResponseFuture<Svc, Req, S, C, T, Q, Z, K, U, X>
    where
        Svc: Service<Req>,
        S: Schedule,
        Z: Sleeper,
        K: Clock,
        X: CancelSignal<Svc::Error>,
    {
        shared: SharedOf<S, C, T, Q, Z, K, U, X>,
        // The clone of the inner service that sends the retries; `None` for a
        // request that cannot be retried.
        service: Option<Svc>,
        // The request the next attempt sends.
        request: Option<Req>,
        // The policy's limits for services.
        limits: Limits,
        operation: Operation<S, K::Instant, FailedAttempt<Svc::Response, Svc::Error>>,
        #[pin]
        cancel: X::Signal,
        #[pin]
        state: State<Svc::Future, Z::Sleep, Result<Svc::Response, Svc::Error>, Copies<CopyCall<Svc, Req>, Z::Sleep, K::Instant>>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F, Sl, O, H> {
        // An attempt is in flight, racing its time limit if it has one.
        Calling { #[pin] future: F, #[pin] timer: Option<Sl>, limit: Option<Duration> },
        // Waiting before the next attempt, or for its rate-limiter token.
        Waiting { #[pin] sleep: Sl },
        // Waiting for the inner service to be ready for the next attempt.
        Readying,
        // A hedged request's copies in flight.
        Hedging { copies: H },
        // Stopped before attempt 1 was sent: the outcome to return.
        Stopped { outcome: Option<O> },
    }
}

impl<Svc, Req, S, C, T, Q, Z, K, U, X> ResponseFuture<Svc, Req, S, C, T, Q, Z, K, U, X>
where
    Svc: Service<Req> + Clone,
    Svc::Error: fmt::Display + FromTimedOut,
    S: Schedule,
    T: Timeout,
    Q: CloneRequest<Req>,
    Z: Sleeper,
    K: Clock,
    X: CancelSignal<Svc::Error>,
{
    /// Starts a request: attempt 1 goes to `inner`, which the caller
    /// readied, unless it must wait for a rate-limiter token (then it goes
    /// to a clone, readied after the wait, as a retry's does).
    pub(super) fn start(shared: SharedOf<S, C, T, Q, Z, K, U, X>, inner: &mut Svc, request: Req) -> Self {
        let policy = &shared.policy;
        let spare = shared.clone_request.clone_request(&request);
        // Only a request that can be copied is hedged.
        let hedging = shared.hedging.as_ref().filter(|_| spare.is_some());
        let limits = match hedging {
            Some(hedging) => hedging.limits(policy.service_limits()),
            None => policy.service_limits(),
        };
        let parts = CallParts { policy, limits: &limits, hooks: &NoNotify, clock: &shared.clock };
        let mut operation = Operation::start(&parts);
        let cancel = shared.cancel.signal();
        let (state, service, request) = match operation.before(&parts) {
            Before::Send { limit, .. } => {
                let service = spare.as_ref().map(|_| inner.clone());
                let state = match hedging {
                    Some(hedging) => {
                        let first = Sending { future: CopyCall::sent(inner.call(request)), repeatable: true };
                        let copies =
                            Copies::start(&mut operation, &parts, hedging, first, limit, &shared.sleeper);
                        State::Hedging { copies }
                    }
                    None => {
                        let timer = limit.map(|limit| shared.sleeper.cut_after(limit));
                        State::Calling { future: inner.call(request), timer, limit }
                    }
                };
                (state, service, spare)
            }
            Before::Wait(wait) => {
                (State::Waiting { sleep: shared.sleeper.sleep(wait) }, Some(inner.clone()), Some(request))
            }
            Before::Stop(stopped) => (State::Stopped { outcome: Some(give_back(stopped, None)) }, None, None),
        };
        ResponseFuture { shared, service, request, limits, operation, cancel, state }
    }
}

impl<Svc, Req, S, C, T, Q, Z, K, U, X> fmt::Debug for ResponseFuture<Svc, Req, S, C, T, Q, Z, K, U, X>
where
    Svc: Service<Req>,
    S: Schedule,
    Z: Sleeper,
    K: Clock,
    X: CancelSignal<Svc::Error>,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Calling { .. } => "calling",
            State::Waiting { .. } => "waiting",
            State::Readying => "readying",
            State::Hedging { .. } => "hedging",
            State::Stopped { .. } => "stopped",
        };
        f.debug_struct("ResponseFuture")
            .field("retryable", &self.service.is_some())
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

impl<Svc, Req, S, C, T, Q, Z, K, U, X> Future for ResponseFuture<Svc, Req, S, C, T, Q, Z, K, U, X>
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
    type Output = Result<Svc::Response, Svc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            let mut this = self.as_mut().project();
            let shared = &**this.shared;
            let (policy, clock) = (&shared.policy, &shared.clock);
            let parts = CallParts { policy, limits: &*this.limits, hooks: &NoNotify, clock };
            if let StateProj::Stopped { outcome } = this.state.as_mut().project() {
                // Polled after it completed: nothing more will come.
                return outcome.take().map_or(Poll::Pending, Poll::Ready);
            }
            if let Poll::Ready(fired) = this.cancel.as_mut().poll(cx) {
                // Dropping the state drops an attempt in flight.
                this.state.set(State::Stopped { outcome: None });
                let stopped = this.operation.cancel(&parts);
                return Poll::Ready(give_back(stopped, Some(fired.into_error())));
            }
            match this.state.as_mut().project() {
                StateProj::Calling { future, timer, limit } => {
                    let attempted = match future.poll(cx) {
                        Poll::Ready(outcome) => Attempted::Ended(outcome),
                        Poll::Pending => match (timer.as_pin_mut(), *limit) {
                            (Some(timer), Some(after)) => {
                                ready!(timer.poll(cx));
                                Attempted::Cut(Svc::Error::from(TimedOut { after }))
                            }
                            _ => return Poll::Pending,
                        },
                    };
                    this.operation.set_repeatable(&parts, this.service.is_some() && this.request.is_some());
                    let judge = Outcomes { classifier: &policy.classifier, ready: &shared.ready };
                    match this.operation.after(&parts, &judge, attempted) {
                        After::Done(done) => return Poll::Ready(done.value),
                        After::Wait(delay) => {
                            this.state.set(State::Waiting { sleep: shared.sleeper.sleep(delay) })
                        }
                        After::Stop(stopped) => return Poll::Ready(give_back(stopped, None)),
                    }
                }
                StateProj::Waiting { sleep } => {
                    ready!(sleep.poll(cx));
                    this.state.set(State::Readying);
                }
                StateProj::Readying => {
                    let Some(service) = this.service.as_mut() else {
                        unreachable!("a request waits only when it can be sent again")
                    };
                    if let Err(error) = ready!(service.poll_ready(cx)) {
                        return Poll::Ready(Err(error));
                    }
                    match this.operation.before(&parts) {
                        Before::Send { limit, .. } => {
                            let Some(request) = this.request.take() else {
                                unreachable!("a request waits only when it can be sent again")
                            };
                            *this.request = shared.clone_request.clone_request(&request);
                            let future = service.call(request);
                            match &shared.hedging {
                                // A hedged request readies only for copy 1,
                                // after its token: its copies ready themselves.
                                Some(hedging) => {
                                    let first = Sending { future: CopyCall::sent(future), repeatable: true };
                                    let copies = Copies::start(
                                        this.operation,
                                        &parts,
                                        hedging,
                                        first,
                                        limit,
                                        &shared.sleeper,
                                    );
                                    this.state.set(State::Hedging { copies });
                                }
                                _ => {
                                    let timer = limit.map(|limit| shared.sleeper.cut_after(limit));
                                    this.state.set(State::Calling { future, timer, limit });
                                }
                            }
                        }
                        Before::Wait(wait) => {
                            this.state.set(State::Waiting { sleep: shared.sleeper.sleep(wait) })
                        }
                        Before::Stop(stopped) => return Poll::Ready(give_back(stopped, None)),
                    }
                }
                StateProj::Hedging { copies } => {
                    let Some(hedging) = &shared.hedging else {
                        unreachable!("only a hedged request has copies")
                    };
                    let (service, request) = (this.service.as_ref(), this.request);
                    let mut send = |_, _| {
                        let (Some(service), Some(copy)) = (service, request.take()) else {
                            unreachable!("a request is hedged only when it can be copied")
                        };
                        *request = shared.clone_request.clone_request(&copy);
                        Sending {
                            future: CopyCall::new(service.clone(), copy),
                            repeatable: request.is_some(),
                        }
                    };
                    let judge = Outcomes { classifier: &policy.classifier, ready: &shared.ready };
                    let sleeper = &shared.sleeper;
                    let done =
                        ready!(copies.poll(cx, this.operation, &parts, &judge, hedging, sleeper, &mut send));
                    this.state.set(State::Stopped { outcome: None });
                    return Poll::Ready(
                        done.map_or_else(|stopped| give_back(stopped, None), |done| done.value),
                    );
                }
                StateProj::Stopped { .. } => unreachable!("handled above"),
            }
        }
    }
}

pin_project! {
    /// One copy of a hedged request: readies its own clone of the inner
    /// service, then calls it (copy 1 goes to the service the caller
    /// readied, and starts calling).
    #[project = CopyProj]
    pub(crate) enum CopyCall<Svc, Req>
    where
        Svc: Service<Req>,
    {
        Readying { service: Svc, request: Option<Req> },
        Calling { #[pin] future: Svc::Future },
    }
}

impl<Svc: Service<Req>, Req> CopyCall<Svc, Req> {
    fn new(service: Svc, request: Req) -> Self {
        CopyCall::Readying { service, request: Some(request) }
    }

    fn sent(future: Svc::Future) -> Self {
        CopyCall::Calling { future }
    }
}

impl<Svc: Service<Req>, Req> Future for CopyCall<Svc, Req> {
    type Output = Result<Svc::Response, Svc::Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            match self.as_mut().project() {
                CopyProj::Readying { service, request } => {
                    ready!(service.poll_ready(cx))?;
                    let Some(request) = request.take() else { unreachable!("a copy is called once") };
                    let future = service.call(request);
                    self.set(CopyCall::Calling { future });
                }
                CopyProj::Calling { future } => return future.poll(cx),
            }
        }
    }
}
