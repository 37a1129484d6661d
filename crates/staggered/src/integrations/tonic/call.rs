//! One tonic call under a policy: [`RetryPolicy::retry_grpc`]. Each attempt
//! gets a fresh request, built from a copy of the message, with its time
//! limit as `grpc-timeout`, and a fresh clone of the client; the call steps
//! the same per-operation machine as every other driver, deciding through
//! the same `Decision` and reporting through the same hooks, `tracing`
//! events and metrics.

// The builder's type records what each call added; nobody writes it out.
#![allow(clippy::type_complexity)]

use core::fmt;
use core::future::{Future, IntoFuture};
use core::marker::PhantomData;
use core::time::Duration;

use ::tonic::metadata::MetadataValue;
use ::tonic::{Request, Response, Status};

use super::classify::{is_client_timeout, ClassifyStatus, Statuses};
use crate::retry::event::{GiveUpEvent, Hooks, NoNotify, Notify, OnGiveUp, OnRetry, RetryEvent};
use crate::retry::future::{drive, Sending};
use crate::retry::hedge;
use crate::retry::judge::{Always, Call, Judge, Readiness, Until};
use crate::retry::retrying::{Async, DefaultTimer, NoCancel, Timer, TimerFor};
use crate::retry::timeout::Timeout;
use crate::sleep::{Clock, Sleeper};
use crate::{Hedging, HintPolicy, Limits, Retried, RetryError, RetryPolicy, Schedule, TimedOut};

/// The metadata key that tells the server how many attempts came before
/// this one, on every retry (gRPC's retry design, A6).
pub const GRPC_PREVIOUS_RPC_ATTEMPTS: &str = "grpc-previous-rpc-attempts";

/// The longest `grpc-timeout` the protocol can say: eight digits of hours.
const MAX_GRPC_TIMEOUT: Duration = Duration::from_secs(99_999_999 * 3600);

impl<S, C, T> RetryPolicy<S, C, T> {
    /// Retries one tonic call (feature `tonic`): `call` is given a clone of
    /// `client` and a fresh request carrying a copy of `message`, and makes
    /// the call; `.call().await` runs it until it succeeds or the policy
    /// gives up.
    ///
    /// ```no_run
    /// # async fn demo(channel: tonic::transport::Channel) -> Result<(), tonic::Status> {
    /// use staggered::{Preset, RetryPolicy};
    /// use tonic_health::pb::health_client::HealthClient;
    /// use tonic_health::pb::HealthCheckRequest;
    ///
    /// let policy = RetryPolicy::new(Preset::Interactive.backoff()); // gRPC's rules: UNAVAILABLE retries
    /// let client = HealthClient::new(channel);
    /// let reply = policy
    ///     .retry_grpc(&client, HealthCheckRequest { service: String::new() }, |mut client, request| async move {
    ///         client.check(request).await
    ///     })
    ///     .call()
    ///     .await?; // a `RetryError<Status>`, which `?` turns into the last `Status`
    /// println!("{:?}", reply.into_inner().status);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Each attempt's request:
    /// - carries the attempt's time limit as its `grpc-timeout`
    ///   ([`Request::set_timeout`]), so the server stops working when the
    ///   client stops waiting: the per-attempt timeout, cut to the time
    ///   left before the deadline, and none when neither is set. The
    ///   attempt is cut at that limit on the client too.
    /// - says on a retry how many attempts came before
    ///   (`grpc-previous-rpc-attempts`), as A6 asks.
    /// - can be given metadata of your own in `call` (`mut request` and
    ///   `request.metadata_mut()`), such as credentials.
    ///
    /// A failed call is classified by the policy's classifier
    /// ([`ClassifyStatus`]); with none set, by gRPC's rules
    /// ([`ClassifyGrpc`](super::ClassifyGrpc)). A server's
    /// pushback is waited exactly and starts the schedule over, as A6 says
    /// ([`HintPolicy::Pushback`]), unless the policy names another hint
    /// policy than the default; `max_hint` is at least a minute unless set,
    /// as in the HTTP integrations. Hooks, the budget and the deadline are
    /// the policy's; the call adds its own hooks, polling ([`GrpcRetrying::until`]),
    /// a cancel signal and a timer as [`Retrying`](crate::Retrying) does.
    ///
    /// A unary call, or the start of a server-streaming one: the retrying
    /// ends when the call returns its response, as A6's retries end once
    /// the server has committed to one.
    pub fn retry_grpc<'a, Cl, M, F, Fut, R>(
        &'a self,
        client: &'a Cl,
        message: M,
        call: F,
    ) -> GrpcRetrying<'a, Self, Cl, M, F, R>
    where
        Cl: Clone,
        M: Clone,
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        GrpcRetrying {
            policy: self,
            client,
            message,
            call,
            ready: Always,
            hooks: NoNotify,
            cancel: NoCancel,
            timer: DefaultTimer,
            hedging: None,
            response: PhantomData,
        }
    }
}

/// One tonic call under a [`RetryPolicy`], made by
/// [`RetryPolicy::retry_grpc`]; `.call().await` runs it. `R` is the
/// response's message type.
#[must_use = "nothing is called until `.call().await`"]
pub struct GrpcRetrying<'a, P, Cl, M, F, R, U = Always, H = NoNotify, X = NoCancel, Tm = DefaultTimer> {
    policy: &'a P,
    client: &'a Cl,
    message: M,
    call: F,
    ready: U,
    hooks: H,
    cancel: X,
    timer: Tm,
    hedging: Option<Hedging>,
    response: PhantomData<fn() -> R>,
}

impl<P, Cl, M, F, R, U, H, X, Tm> fmt::Debug for GrpcRetrying<'_, P, Cl, M, F, R, U, H, X, Tm> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcRetrying").finish_non_exhaustive()
    }
}

impl<'a, P, Cl, M, F, R, X, Tm> GrpcRetrying<'a, P, Cl, M, F, R, Always, NoNotify, X, Tm> {
    /// Polls: a response for which `ready` is false is retried as a
    /// transient failure, on the schedule and under every limit (a
    /// long-running operation not done yet); [`RetryError::value`] gives
    /// the last one back if the retrying stops on it. Set it before the
    /// hooks, as [`Retrying::until`](crate::Retrying::until).
    pub fn until<P2>(self, ready: P2) -> GrpcRetrying<'a, P, Cl, M, F, R, Until<P2>, NoNotify, X, Tm>
    where
        P2: Fn(&Response<R>) -> bool,
    {
        let GrpcRetrying { policy, client, message, call, hooks, cancel, timer, hedging, response, .. } =
            self;
        GrpcRetrying {
            policy,
            client,
            message,
            call,
            ready: Until(ready),
            hooks,
            cancel,
            timer,
            hedging,
            response,
        }
    }
}

impl<'a, P, Cl, M, F, R, U, H, X, Tm> GrpcRetrying<'a, P, Cl, M, F, R, U, H, X, Tm>
where
    U: Readiness<Response<R>, Status>,
{
    /// Adds `hook`, called before every retry of this call (after the
    /// policy's own hooks), with the failed call's [`Status`] (a
    /// [`FailedAttempt`](crate::FailedAttempt) after [`until`](GrpcRetrying::until)).
    pub fn on_retry<G>(
        self,
        hook: G,
    ) -> GrpcRetrying<'a, P, Cl, M, F, R, U, Hooks<H, OnRetry<G, U::Failed>>, X, Tm>
    where
        G: Fn(&RetryEvent<'_, U::Failed>),
    {
        self.with_hook(OnRetry::new(hook))
    }

    /// Adds `hook`, called if this call gives up (after the policy's own hooks).
    pub fn on_give_up<G>(
        self,
        hook: G,
    ) -> GrpcRetrying<'a, P, Cl, M, F, R, U, Hooks<H, OnGiveUp<G, U::Failed>>, X, Tm>
    where
        G: Fn(&GiveUpEvent<'_, U::Failed>),
    {
        self.with_hook(OnGiveUp::new(hook))
    }

    fn with_hook<K>(self, hook: K) -> GrpcRetrying<'a, P, Cl, M, F, R, U, Hooks<H, K>, X, Tm> {
        let GrpcRetrying { policy, client, message, call, ready, hooks, cancel, timer, hedging, response } =
            self;
        GrpcRetrying {
            policy,
            client,
            message,
            call,
            ready,
            hooks: Hooks(hooks, hook),
            cancel,
            timer,
            hedging,
            response,
        }
    }

    /// Stops the call with [`StopReason::Cancelled`](crate::StopReason::Cancelled)
    /// when `signal` (any future) fires, during a wait or an attempt (which
    /// is dropped), as [`Retrying::cancel_on`](crate::Retrying::cancel_on).
    pub fn cancel_on<X2>(self, signal: X2) -> GrpcRetrying<'a, P, Cl, M, F, R, U, H, X2, Tm> {
        let GrpcRetrying { policy, client, message, call, ready, hooks, timer, hedging, response, .. } = self;
        GrpcRetrying { policy, client, message, call, ready, hooks, cancel: signal, timer, hedging, response }
    }

    /// Waits with `sleeper` and reads `clock` instead of tokio's timer (a
    /// `RecordingSleeper` in tests).
    pub fn with_timer<'t, Z: ?Sized, K: ?Sized>(
        self,
        sleeper: &'t Z,
        clock: &'t K,
    ) -> GrpcRetrying<'a, P, Cl, M, F, R, U, H, X, Timer<'t, Z, K>> {
        let GrpcRetrying { policy, client, message, call, ready, hooks, cancel, hedging, response, .. } =
            self;
        let timer = Timer::new(sleeper, clock);
        GrpcRetrying { policy, client, message, call, ready, hooks, cancel, timer, hedging, response }
    }

    /// Hedges the call by gRPC's hedging policy (A6) instead of retrying
    /// it: copy 1 at once, each next copy after the [`Hedging`] delay while
    /// none has answered, up to its `max_attempts`; the first OK wins and
    /// the others are cancelled (dropped). The policy's classifier plays
    /// A6's `nonFatalStatusCodes`: a status it calls retryable lets the
    /// other copies go on and sends the next copy at once, any other ends
    /// the call. A pushback sends the next copy after it (the copies after
    /// resume the delay from there), a negative one sends no more. Every
    /// copy but the first is counted by the policy's budget (A6's retry
    /// throttle: none is sent while it is at or below half), carries
    /// `grpc-previous-rpc-attempts`, and the time left before the deadline
    /// as its `grpc-timeout`.
    pub fn hedge(mut self, hedging: Hedging) -> Self {
        self.hedging = Some(hedging);
        self
    }
}

impl<S, C, T, Cl, M, F, R, U, H, X, Tm> GrpcRetrying<'_, RetryPolicy<S, C, T>, Cl, M, F, R, U, H, X, Tm>
where
    S: Schedule,
    C: ClassifyStatus,
    T: Timeout,
    Cl: Clone,
    M: Clone,
    X: IntoFuture<Output = ()>,
    Tm: TimerFor<Async>,
    Tm::Sleeper: Sleeper,
{
    /// Calls until a call succeeds or the policy gives up, on tokio's
    /// timer unless [given one](GrpcRetrying::with_timer). The future is
    /// `Send` when the client, the message, `call` and its future, and the
    /// policy's parts are, so a tonic service can await it in its handlers.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last
    /// status; `?` in a function returning `Result<_, Status>` turns it
    /// into that status.
    pub async fn call<Fut>(self) -> Result<Response<R>, RetryError<Status, U::Unready>>
    where
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
        U: Readiness<Response<R>, Status>,
        H: Notify<U::Failed>,
    {
        self.run().await.map(|done| done.value)
    }

    /// Like [`call`](GrpcRetrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](GrpcRetrying::call).
    pub async fn run<Fut>(self) -> Result<Retried<Response<R>>, RetryError<Status, U::Unready>>
    where
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
        U: Readiness<Response<R>, Status>,
        H: Notify<U::Failed>,
    {
        let GrpcRetrying { policy, client, message, mut call, ready, hooks, cancel, timer, hedging, .. } =
            self;
        let (sleeper, clock) = (timer.sleeper(), timer.clock());
        let classifier = Statuses(&policy.classifier);
        let judge = Call { classifier: &classifier, ready: &ready };
        let send = |attempt, limit| {
            let sent = call(client.clone(), request(&message, attempt, limit));
            Sending { future: cut_by_channel(sent, limit, clock), repeatable: true }
        };
        let limits = grpc_limits(policy.service_limits());
        let cancel = cancel.into_future();
        let outcome = match &hedging {
            Some(hedging) => {
                hedge::drive(policy, &limits, hedging, send, &judge, &hooks, sleeper, clock, cancel).await
            }
            None => drive(policy, &limits, send, &judge, &hooks, sleeper, clock, cancel).await,
        };
        outcome.map_err(|stopped| {
            stopped.into_error(<Call<'_, Statuses<'_, C>, U> as Judge<Response<R>, Status>>::last)
        })
    }
}

/// A call whose channel gave up at the time limit it was given: tonic's
/// channel enforces the `grpc-timeout`, the same limit the loop cuts at, so
/// whichever timer fired first, the attempt was cut (a [`TimedOut`]).
async fn cut_by_channel<R, W, K>(sent: W, limit: Option<Duration>, clock: &K) -> Result<Response<R>, Status>
where
    W: Future<Output = Result<Response<R>, Status>>,
    K: Clock + ?Sized,
{
    let started = clock.now();
    match (sent.await, limit) {
        (Err(status), Some(after)) if is_client_timeout(&status) && clock.since(started) >= after => {
            Err(Status::from(TimedOut { after }))
        }
        (outcome, _) => outcome,
    }
}

/// Attempt `attempt`'s request: a copy of `message`, its time limit as
/// `grpc-timeout`, and on a retry the count of the attempts before it.
fn request<M: Clone>(message: &M, attempt: u32, limit: Option<Duration>) -> Request<M> {
    let mut request = Request::new(message.clone());
    if let Some(limit) = limit {
        // tonic refuses (panics on) a timeout past what the header can say.
        request.set_timeout(limit.min(MAX_GRPC_TIMEOUT));
    }
    if attempt > 1 {
        request.metadata_mut().insert(GRPC_PREVIOUS_RPC_ATTEMPTS, MetadataValue::from(attempt - 1));
    }
    request
}

/// The limits of a gRPC call's decision: gRPC's pushback rule, unless the
/// policy names another than the default.
fn grpc_limits(limits: Limits) -> Limits {
    match limits.hint_policy {
        HintPolicy::AtLeast => limits.with_hint_policy(HintPolicy::Pushback),
        _ => limits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_carries_its_limit_and_the_attempts_before() {
        let first = request(&"hello", 1, None);
        assert_eq!(*first.get_ref(), "hello");
        assert!(first.metadata().is_empty());
        let third = request(&"hello", 3, Some(Duration::from_millis(1500)));
        assert_eq!(third.metadata().get("grpc-timeout").unwrap(), "1500000u");
        assert_eq!(third.metadata().get(GRPC_PREVIOUS_RPC_ATTEMPTS).unwrap(), "2");
        // No limit is too long to say (tonic would panic past 11,415 years).
        let forever = request(&(), u32::MAX, Some(Duration::MAX));
        assert_eq!(forever.metadata().get("grpc-timeout").unwrap(), "99999999H");
        assert_eq!(forever.metadata().get(GRPC_PREVIOUS_RPC_ATTEMPTS).unwrap(), "4294967294");
    }

    #[test]
    fn the_default_hint_policy_becomes_grpcs() {
        assert_eq!(grpc_limits(Limits::NONE).hint_policy, HintPolicy::Pushback);
        let aws = Limits::NONE.with_hint_policy(HintPolicy::AWS);
        assert_eq!(grpc_limits(aws).hint_policy, HintPolicy::AWS);
    }
}
