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
use crate::retry::future::{cut, Sending};
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
        state: State<Svc, Req, Svc::Future, Z::Sleep, Result<Svc::Response, Svc::Error>, Copies<CopyCall<Svc, Req>, Z::Sleep, K::Instant>>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<Svc, Req, F, Sl, O, H> {
        // Attempt 1, to the service the caller readied, once the first poll
        // has asked the cancel signal; hedged if the request can be copied.
        First { service: Option<Svc>, request: Option<Req>, hedged: bool },
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
        let operation = Operation::start(&parts);
        let cancel = shared.cancel.signal();
        // The readied service is the caller's to hand over: a clone takes
        // its place, as tower asks of a service that calls later.
        let readied = core::mem::replace(inner, inner.clone());
        let service = spare.as_ref().map(|_| readied.clone());
        let hedged = hedging.is_some();
        let state = State::First { service: Some(readied), request: Some(request), hedged };
        ResponseFuture { shared, service, request: spare, limits, operation, cancel, state }
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
            State::First { .. } => "starting",
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
        let fired = loop {
            let mut this = self.as_mut().project();
            let shared = &**this.shared;
            let (policy, clock) = (&shared.policy, &shared.clock);
            let parts = CallParts { policy, limits: &*this.limits, hooks: &NoNotify, clock };
            if let StateProj::Stopped { outcome } = this.state.as_mut().project() {
                // Polled after it completed: nothing more will come.
                return outcome.take().map_or(Poll::Pending, Poll::Ready);
            }
            // Once fired, the machine decides: nothing more is sent, and an
            // answer that has arrived is still judged.
            let fired = match this.cancel.as_mut().poll(cx) {
                Poll::Ready(fired) => Some(fired.into_error()),
                Poll::Pending => None,
            };
            let cancelled = fired.is_some();
            let judge = Outcomes { classifier: &policy.classifier, ready: &shared.ready };
            let next = match this.state.as_mut().project() {
                StateProj::First { service, request, hedged } => {
                    let (Some(mut service), Some(request)) = (service.take(), request.take()) else {
                        unreachable!("attempt 1 is sent once")
                    };
                    match this.operation.before(&parts, cancelled) {
                        Before::Send { limit, .. } => {
                            let future = service.call(request);
                            match shared.hedging.as_ref().filter(|_| *hedged) {
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
                                    State::Hedging { copies }
                                }
                                None => {
                                    let timer = limit.map(|limit| shared.sleeper.cut_after(limit));
                                    State::Calling { future, timer, limit }
                                }
                            }
                        }
                        Before::Wait(wait) => {
                            // Attempt 1 goes after its token, to a service
                            // readied then, as a retry's does.
                            this.service.get_or_insert(service);
                            this.request.get_or_insert(request);
                            State::Waiting { sleep: shared.sleeper.sleep(wait) }
                        }
                        Before::Stop(stopped) => return Poll::Ready(give_back(stopped, fired)),
                    }
                }
                StateProj::Calling { future, timer, limit } => {
                    let attempted = match future.poll(cx) {
                        Poll::Ready(outcome) => Attempted::Ended(outcome),
                        Poll::Pending => match cut(timer, *limit, cx) {
                            Some(after) => Attempted::Cut(Svc::Error::from(TimedOut { after })),
                            None if cancelled => break fired,
                            None => return Poll::Pending,
                        },
                    };
                    this.operation.set_repeatable(&parts, this.service.is_some() && this.request.is_some());
                    match this.operation.after(&parts, &judge, attempted, || cancelled) {
                        After::Done(done) => return Poll::Ready(done.value),
                        After::Wait(delay) => State::Waiting { sleep: shared.sleeper.sleep(delay) },
                        After::Stop(stopped) => return Poll::Ready(give_back(stopped, fired)),
                    }
                }
                StateProj::Waiting { .. } | StateProj::Readying if cancelled => break fired,
                StateProj::Waiting { sleep } => {
                    ready!(sleep.poll(cx));
                    State::Readying
                }
                StateProj::Readying => {
                    let Some(service) = this.service.as_mut() else {
                        unreachable!("a request waits only when it can be sent again")
                    };
                    if let Err(error) = ready!(service.poll_ready(cx)) {
                        return Poll::Ready(Err(error));
                    }
                    match this.operation.before(&parts, false) {
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
                                    State::Hedging { copies }
                                }
                                _ => {
                                    let timer = limit.map(|limit| shared.sleeper.cut_after(limit));
                                    State::Calling { future, timer, limit }
                                }
                            }
                        }
                        Before::Wait(wait) => State::Waiting { sleep: shared.sleeper.sleep(wait) },
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
                    let sleeper = &shared.sleeper;
                    let done = ready!(copies.poll(
                        cx,
                        this.operation,
                        &parts,
                        &judge,
                        hedging,
                        sleeper,
                        &mut send,
                        cancelled
                    ));
                    this.state.set(State::Stopped { outcome: None });
                    return Poll::Ready(
                        done.map_or_else(|stopped| give_back(stopped, fired), |done| done.value),
                    );
                }
                StateProj::Stopped { .. } => unreachable!("handled above"),
            };
            this.state.set(next);
        };
        // Cancelled with no answer in hand: dropping the state drops an
        // attempt in flight.
        let mut this = self.project();
        this.state.set(State::Stopped { outcome: None });
        let shared = &**this.shared;
        let parts = CallParts {
            policy: &shared.policy,
            limits: &*this.limits,
            hooks: &NoNotify,
            clock: &shared.clock,
        };
        let stopped = this.operation.cancel(&parts);
        Poll::Ready(give_back(stopped, fired))
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
