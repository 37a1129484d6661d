//! One tonic call under a policy: [`RetryPolicy::retry_grpc`]. Each attempt
//! gets a fresh request, built from a copy of the message, with its time
//! limit as `grpc-timeout`, and a fresh clone of the client; the retry state
//! is the service drivers' ([`Attempts`]), deciding through the same
//! [`Decision`] and reporting through the same hooks and `tracing` events as
//! every other driver.

use core::fmt;
use core::future::Future;
use core::time::Duration;

use ::tonic::metadata::MetadataValue;
use ::tonic::{Request, Response, Status};

use super::classify::{is_client_timeout, ClassifyStatus};
use crate::budget::Budget;
use crate::retry::event::Notify;
use crate::retry::future::race;
use crate::retry::timeout::TimeoutFor;
use crate::service::attempts::Attempts;
use crate::sleep::{Clock, Sleeper, TokioClock, TokioSleeper};
use crate::{Decision, HintPolicy, Limits, Retried, RetryError, RetryPolicy, Schedule, TimedOut};

/// The metadata key that tells the server how many attempts came before
/// this one, on every retry (gRPC's retry design, A6).
pub const GRPC_PREVIOUS_RPC_ATTEMPTS: &str = "grpc-previous-rpc-attempts";

/// The longest `grpc-timeout` the protocol can say: eight digits of hours.
const MAX_GRPC_TIMEOUT: Duration = Duration::from_secs(99_999_999 * 3600);

impl<S, C, N, B, T> RetryPolicy<S, C, N, B, T> {
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
    /// the policy's.
    ///
    /// A unary call, or the start of a server-streaming one: the retrying
    /// ends when the call returns its response, as A6's retries end once
    /// the server has committed to one.
    pub fn retry_grpc<'a, Cl, M, F, Fut, R>(
        &'a self,
        client: &'a Cl,
        message: M,
        call: F,
    ) -> GrpcRetrying<'a, Self, Cl, M, F>
    where
        Cl: Clone,
        M: Clone,
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        GrpcRetrying { policy: self, client, message, call }
    }
}

/// One tonic call under a [`RetryPolicy`], made by
/// [`RetryPolicy::retry_grpc`]; `.call().await` runs it.
#[must_use = "nothing is called until `.call().await`"]
pub struct GrpcRetrying<'a, P, Cl, M, F> {
    policy: &'a P,
    client: &'a Cl,
    message: M,
    call: F,
}

impl<P, Cl, M, F> fmt::Debug for GrpcRetrying<'_, P, Cl, M, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcRetrying").finish_non_exhaustive()
    }
}

impl<S, C, N, B, T, Cl, M, F> GrpcRetrying<'_, RetryPolicy<S, C, N, B, T>, Cl, M, F>
where
    S: Schedule,
    C: ClassifyStatus,
    N: Notify<Status>,
    B: Budget,
    T: TimeoutFor<Status>,
    Cl: Clone,
    M: Clone,
{
    /// Calls until a call succeeds or the policy gives up, on tokio's
    /// timer. The future is `Send` when the client, the message, `call` and
    /// its future, and the policy's parts are, so a tonic service can await
    /// it in its handlers.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last
    /// status; `?` in a function returning `Result<_, Status>` turns it
    /// into that status.
    pub async fn call<R, Fut>(self) -> Result<Response<R>, RetryError<Status>>
    where
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        self.run_with(&TokioSleeper, &TokioClock).await.map(|done| done.value)
    }

    /// Like [`call`](GrpcRetrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](GrpcRetrying::call).
    pub async fn run<R, Fut>(self) -> Result<Retried<Response<R>>, RetryError<Status>>
    where
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
    {
        self.run_with(&TokioSleeper, &TokioClock).await
    }

    /// Like [`run`](GrpcRetrying::run), waiting with `sleeper` and reading
    /// `clock` (a `RecordingSleeper` in tests).
    ///
    /// # Errors
    /// As [`call`](GrpcRetrying::call).
    pub async fn run_with<R, Fut, Z, K>(
        self,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<Response<R>>, RetryError<Status>>
    where
        F: FnMut(Cl, Request<M>) -> Fut,
        Fut: Future<Output = Result<Response<R>, Status>>,
        Z: Sleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let GrpcRetrying { policy, client, message, mut call } = self;
        let timeout = <T as TimeoutFor<Status>>::timeout(&policy.timeout);
        let mut attempts = Attempts::start(policy, timeout, clock);
        // The previous attempt's status, given back if the rate limiter has
        // no token for the next attempt before the deadline.
        let mut previous: Option<Status> = None;
        loop {
            if let Err(reason) = attempts.acquire(policy, sleeper, clock).await {
                let (made, waited) = (attempts.attempt().saturating_sub(1), attempts.waited());
                return Err(match previous {
                    Some(status) => RetryError::new(reason, made, waited, status),
                    None => RetryError::unsent(reason, 0, waited, None),
                });
            }
            let attempt = attempts.attempt();
            let limit = attempts.attempt_limit(clock);
            let sent = call(client.clone(), request(&message, attempt, limit));
            let outcome = match limit {
                None => sent.await,
                Some(after) => {
                    let started = clock.now();
                    match race(sent, sleeper.cut_after(after)).await {
                        // tonic's channel enforces the `grpc-timeout` it was
                        // given, the same limit as the cut: whichever timer
                        // fired first, the attempt was cut.
                        Some(Err(status)) if is_client_timeout(&status) && clock.since(started) >= after => {
                            Err(Status::from(TimedOut { after }))
                        }
                        Some(outcome) => outcome,
                        None => Err(Status::from(TimedOut { after })),
                    }
                }
            };
            let status = match outcome {
                Ok(response) => {
                    policy.limiter.record(false);
                    attempts.on_success(policy);
                    return Ok(Retried { value: response, attempts: attempt, waited: attempts.waited() });
                }
                Err(status) => status,
            };
            let failure = policy.classifier.classify_status(&status);
            // RESOURCE_EXHAUSTED is throttled: the limiter slows down.
            policy.limiter.record(failure.kind == crate::ErrorKind::Throttled);
            let decision =
                |limits| Decision::for_schedule(&policy.schedule, grpc_limits(limits), &policy.budget);
            let error_type = core::any::type_name::<Status>();
            match attempts.on_failure(policy, clock, &status, error_type, failure, decision) {
                Ok(delay) => {
                    previous = policy.limiter.is_set().then_some(status);
                    sleeper.sleep(delay).await;
                }
                Err(reason) => {
                    return Err(RetryError::new(reason, attempts.attempt(), attempts.waited(), status));
                }
            }
        }
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
