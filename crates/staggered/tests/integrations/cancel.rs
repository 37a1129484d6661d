//! Cancelling through the service drivers, on tokio's paused time: a
//! cancel during a 10 s backoff ends the request within 5 ms with the last
//! failed attempt's outcome; a cancel during an attempt drops it and stops
//! at once, with the outcome of the attempt before it, or a `Cancelled`
//! error when none had ended. The policy's give-up hook hears
//! `StopReason::Cancelled`, and nothing is taken from the budget or the
//! rate limiter after the cancel.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::reqwest::{Request, Response, StatusCode};
use ::tonic::{Code, Status};
use http::Extensions;
use reqwest_middleware::{ClientBuilder, Middleware, Next};
use staggered::reqwest::{RetryMiddleware, RetryReport};
use staggered::tower::RetryLayer;
use staggered::{AlwaysTransient, Backoff, Cancelled, RetryPolicy, StopReason};
use tokio::time::Instant;
use tower::{Service, ServiceBuilder, ServiceExt};

use super::grpc_server::{self, message, GrpcServer};
use super::server::{Reply, Server};
use super::tonic::backoff;
use crate::retry::every_10_s;
use crate::retry::probes::{
    assert_cancelled_during_attempt, assert_cancelled_during_backoff, within_a_minute, Drops, Watch,
};

/// A service whose attempts from `hanging` on never answer, and whose
/// earlier attempts fail at once; each attempt's future holds a guard.
fn tower_service(hanging: u32, drops: &Drops) -> impl Service<(), Response = (), Error = io::Error> + Clone {
    let (calls, drops) = (Arc::new(AtomicU32::new(0)), drops.clone());
    tower::service_fn(move |()| {
        let attempt = calls.fetch_add(1, Ordering::SeqCst) + 1;
        let guard = drops.guard(attempt);
        async move {
            let _guard = guard;
            if attempt >= hanging {
                std::future::pending::<()>().await;
            }
            Err(io::Error::other(format!("attempt {attempt} failed")))
        }
    })
}

#[tokio::test(start_paused = true)]
async fn tower_a_cancel_during_a_10_s_backoff_ends_the_request_within_5_ms() {
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(every_10_s(5)).classify(AlwaysTransient));
    let cancel_at = Instant::now() + Duration::from_secs(2);
    let layer = RetryLayer::new(policy).cancel_on(move || tokio::time::sleep_until(cancel_at));
    let mut service = ServiceBuilder::new().layer(layer).service(tower_service(u32::MAX, &Drops::default()));
    let err = service.ready().await.unwrap().call(()).await.unwrap_err();
    assert_cancelled_during_backoff(cancel_at, &watch);
    assert_eq!(err.to_string(), "attempt 1 failed", "the last failed attempt's outcome");
}

#[tokio::test(start_paused = true)]
async fn tower_a_cancel_during_an_attempt_drops_it_and_stops_at_once() {
    for hanging in [1, 2] {
        let watch = Watch::default();
        let policy = watch.policy(RetryPolicy::new(backoff(5)).classify(AlwaysTransient));
        let start = Instant::now();
        let cancel_at = start + Duration::from_secs(1);
        let layer = RetryLayer::new(policy).cancel_on(move || tokio::time::sleep_until(cancel_at));
        let drops = Drops::default();
        let mut service = ServiceBuilder::new().layer(layer).service(tower_service(hanging, &drops));
        let err = within_a_minute(service.ready().await.unwrap().call(())).await.unwrap_err();
        assert_cancelled_during_attempt(hanging, start, &drops, &watch);
        if hanging == 1 {
            // No attempt ended: the service's error type holds a `Cancelled`.
            assert_eq!(err.kind(), io::ErrorKind::Interrupted);
            assert!(err.get_ref().is_some_and(|inner| inner.is::<Cancelled>()), "{err:?}");
        } else {
            assert_eq!(err.to_string(), "attempt 1 failed");
        }
    }
}

/// A reqwest client retrying with `policy`, cancelled at `cancel_at`; below
/// the retry, each attempt holds a guard from `drops`.
fn reqwest_client(
    policy: RetryPolicy<Backoff, staggered::http::ClassifyHttp>,
    cancel_at: Instant,
    drops: &Drops,
) -> reqwest_middleware::ClientWithMiddleware {
    let retry = RetryMiddleware::from_policy(policy).cancel_on(move || tokio::time::sleep_until(cancel_at));
    let guarded = Guarded { drops: drops.clone(), attempts: AtomicU32::new(0) };
    let inner = ::reqwest::Client::builder().no_proxy().build().unwrap();
    ClientBuilder::new(inner).with(retry).with(guarded).build()
}

/// A middleware under the retry: each attempt's future holds a guard.
struct Guarded {
    drops: Drops,
    attempts: AtomicU32,
}

impl Middleware for Guarded {
    // The shape `async_trait` gives the trait's method, as the library writes it.
    fn handle<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        request: Request,
        extensions: &'life1 mut Extensions,
        next: Next<'life2>,
    ) -> Pin<Box<dyn Future<Output = reqwest_middleware::Result<Response>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        let guard = self.drops.guard(self.attempts.fetch_add(1, Ordering::SeqCst) + 1);
        Box::pin(async move {
            let _guard = guard;
            next.run(request, extensions).await
        })
    }
}

fn report(response: &Response) -> RetryReport {
    *response.extensions().get::<RetryReport>().expect("a retry report")
}

#[tokio::test(start_paused = true)]
async fn reqwest_a_cancel_during_a_10_s_backoff_ends_the_request_within_5_ms() {
    let server = Server::start(|_, _| Reply::status(503)).await;
    let watch = Watch::default();
    let policy = watch.policy(RetryMiddleware::policy_for(every_10_s(5)));
    let cancel_at = Instant::now() + Duration::from_secs(2);
    let client = reqwest_client(policy, cancel_at, &Drops::default());
    let response = client.get(server.url("/")).send().await.unwrap();
    assert_cancelled_during_backoff(cancel_at, &watch);
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    let report = report(&response);
    assert_eq!((report.attempts, report.stopped), (1, Some(StopReason::Cancelled)));
}

#[tokio::test(start_paused = true)]
async fn reqwest_a_cancel_during_an_attempt_drops_it_and_stops_at_once() {
    for hanging in [1, 2] {
        let server =
            Server::start(move |hit, _| if hit < hanging { Reply::status(503) } else { Reply::Hang }).await;
        let watch = Watch::default();
        let policy = watch.policy(RetryMiddleware::policy_for(backoff(5)));
        let start = Instant::now();
        let cancel_at = start + Duration::from_secs(1);
        let drops = Drops::default();
        let client = reqwest_client(policy, cancel_at, &drops);
        let outcome = within_a_minute(client.get(server.url("/")).send()).await;
        assert_cancelled_during_attempt(hanging, start, &drops, &watch);
        if hanging == 1 {
            // No attempt ended: a `Cancelled` error.
            let err = outcome.unwrap_err();
            assert!(
                matches!(&err, reqwest_middleware::Error::Middleware(e) if e.is::<Cancelled>()),
                "{err:?}"
            );
        } else {
            let response = outcome.unwrap();
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "attempt 1's response");
            let report = report(&response);
            assert_eq!((report.attempts, report.stopped), (2, Some(StopReason::Cancelled)));
        }
        assert_eq!(server.hits(), hanging);
    }
}

#[tokio::test(start_paused = true)]
async fn tonic_a_cancel_during_a_10_s_backoff_ends_the_call_within_5_ms() {
    let server = GrpcServer::start(|_| grpc_server::Reply::Fail(Status::unavailable("restarting"))).await;
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(every_10_s(5)));
    let cancel_at = Instant::now() + Duration::from_secs(2);
    let err = policy
        .retry_grpc(&server.client().await, message(), |mut client, request| async move {
            client.check(request).await
        })
        .cancel_on(tokio::time::sleep_until(cancel_at))
        .call()
        .await
        .unwrap_err();
    assert_cancelled_during_backoff(cancel_at, &watch);
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Cancelled, 1, 1));
    assert_eq!(err.error().map(Status::code), Some(Code::Unavailable));
}

#[tokio::test(start_paused = true)]
async fn tonic_a_cancel_during_an_attempt_drops_it_and_stops_at_once() {
    for hanging in [1, 2] {
        let server = GrpcServer::start(move |call| {
            if call < hanging {
                grpc_server::Reply::Fail(Status::unavailable("restarting"))
            } else {
                grpc_server::Reply::Hang
            }
        })
        .await;
        let client = server.client().await;
        let watch = Watch::default();
        let policy = watch.policy(RetryPolicy::new(backoff(5)));
        let (start, drops) = (Instant::now(), Drops::default());
        let cancel_at = start + Duration::from_secs(1);
        let mut attempts = 0;
        let call = policy
            .retry_grpc(&client, message(), |mut client, request| {
                attempts += 1;
                let guard = drops.guard(attempts);
                async move {
                    let _guard = guard;
                    client.check(request).await
                }
            })
            .cancel_on(tokio::time::sleep_until(cancel_at))
            .call();
        let err = within_a_minute(call).await.unwrap_err();
        assert_cancelled_during_attempt(hanging, start, &drops, &watch);
        assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Cancelled, hanging, hanging));
        // The last status that came back; none if no attempt ended.
        assert_eq!(err.error().map(Status::code), (hanging == 2).then_some(Code::Unavailable));
    }
}

#[tokio::test(start_paused = true)]
async fn a_signal_fired_before_the_request_sends_nothing_in_every_integration() {
    // tower: the readied service is never called.
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(backoff(5)).classify(AlwaysTransient));
    let drops = Drops::default();
    let layer = RetryLayer::new(policy.clone()).cancel_on(|| std::future::ready(()));
    let mut service = ServiceBuilder::new().layer(layer).service(tower_service(u32::MAX, &drops));
    let err = service.ready().await.unwrap().call(()).await.unwrap_err();
    assert!(err.get_ref().is_some_and(|inner| inner.is::<Cancelled>()), "{err:?}");
    assert!(drops.since(Instant::now()).is_empty(), "no attempt was made");
    assert_eq!((watch.limiter.given(), watch.heard.give_ups()), (0, vec![(StopReason::Cancelled, 0)]));
    // Hedged, the same.
    let layer = RetryLayer::new(policy.clone())
        .hedge(staggered::Hedging::after(Duration::from_millis(10)))
        .cancel_on(|| std::future::ready(()));
    let mut service = ServiceBuilder::new().layer(layer).service(tower_service(u32::MAX, &drops));
    let err = service.ready().await.unwrap().call(()).await.unwrap_err();
    assert!(err.get_ref().is_some_and(|inner| inner.is::<Cancelled>()), "{err:?}");
    assert_eq!(watch.limiter.given(), 0);

    // reqwest: the server is never reached.
    let server = Server::start(|_, _| Reply::status(503)).await;
    let client =
        reqwest_client(watch.policy(RetryMiddleware::policy_for(backoff(5))), Instant::now(), &drops);
    let err = client.get(server.url("/")).send().await.unwrap_err();
    assert!(matches!(&err, reqwest_middleware::Error::Middleware(e) if e.is::<Cancelled>()), "{err:?}");
    assert_eq!((server.hits(), watch.limiter.given()), (0, 0));

    // tonic: no call reaches the server.
    let grpc = GrpcServer::start(|_| grpc_server::Reply::Fail(Status::unavailable("restarting"))).await;
    let err = watch
        .policy(RetryPolicy::new(backoff(5)))
        .retry_grpc(&grpc.client().await, message(), |mut client, request| async move {
            client.check(request).await
        })
        .cancel_on(std::future::ready(()))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), grpc.calls()), (StopReason::Cancelled, 0, 0));
    assert_eq!(watch.limiter.given(), 0);
}

#[tokio::test(start_paused = true)]
async fn tower_a_response_that_arrives_as_the_signal_fires_is_kept() {
    let answer_at = Instant::now() + Duration::from_secs(1);
    let layer = RetryLayer::new(RetryPolicy::new(backoff(5)).classify(AlwaysTransient))
        .cancel_on(move || tokio::time::sleep_until(answer_at));
    let answering = tower::service_fn(move |()| async move {
        tokio::time::sleep_until(answer_at).await;
        Ok::<_, io::Error>("answer")
    });
    let mut service = ServiceBuilder::new().layer(layer).service(answering);
    assert_eq!(service.ready().await.unwrap().call(()).await.unwrap(), "answer");
}
