//! A rate limiter through the service integrations and the gRPC driver: 429,
//! 503 with a hint to come back later, S3's `SlowDown` and GitHub's
//! secondary rate limit in a body, and gRPC's `RESOURCE_EXHAUSTED` are
//! throttled responses the limiter slows down for; every attempt, the first
//! included, takes a token first.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::reqwest::StatusCode;
use ::tonic::{Code, Status};
use reqwest_middleware::ClientBuilder;
use staggered::http::ClassifyHttp;
use staggered::limiter::AdaptiveLimiter;
use staggered::reqwest::RetryMiddleware;
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::tower::RetryLayer;
use staggered::{Backoff, RetryPolicy, StopReason, Strategy};
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

use super::grpc_server::{GrpcServer, Reply as GrpcReply};
use super::server::{Reply, Server};
use super::tonic::Check;

fn backoff() -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_attempts(5)
        .build()
        .unwrap()
}

/// Empties the bucket of a limiter that a throttle has turned on.
fn drain(limiter: &AdaptiveLimiter<MockClock>) {
    while limiter.try_acquire().is_ok() {}
}

#[tokio::test]
async fn the_reqwest_middleware_reports_throttles_and_takes_tokens() {
    let server = Server::start(|hit, _| match hit {
        1 => Reply::status(429),
        2 => Reply::with_header(503, "retry-after", "0"),
        3 => Reply::status(503),
        _ => Reply::ok(),
    })
    .await;
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryMiddleware::policy_for(backoff()).with_rate_limiter(limiter.clone());
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let inner = ::reqwest::Client::builder().no_proxy().build().unwrap();
    let client = ClientBuilder::new(inner).with(retry).build();
    let response = client.get(server.url("/busy")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let metrics = limiter.metrics();
    // The 429 and the 503 with Retry-After are throttles; the bare 503 is not.
    assert!(metrics.enabled);
    assert_eq!(metrics.throttles, 2, "{metrics:?}");
    // Now attempt 1 of the next request waits for its token first.
    drain(&limiter);
    let before = sleeper.sleeps().len();
    let response = client.get(server.url("/again")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(sleeper.sleeps().len(), before + 1, "one wait, for the token");
    assert_eq!(limiter.metrics().waits, metrics.waits + 1);
}

/// S3's answer to too many requests: a 503 with no `Retry-After`, the
/// throttle said only in the body.
const SLOW_DOWN: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
                         <Message>Please reduce your request rate.</Message></Error>";

#[tokio::test]
async fn s3s_slow_down_turns_the_limiter_on_through_reqwest_and_the_caller_gets_the_whole_body() {
    let server = Server::start(|_, _| Reply::Body(503, Vec::new(), SLOW_DOWN)).await;
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryMiddleware::policy_for(backoff_of(3)).with_rate_limiter(limiter.clone());
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let inner = ::reqwest::Client::builder().no_proxy().build().unwrap();
    let client = ClientBuilder::new(inner).with(retry).build();
    let response = client.get(server.url("/bucket/key")).send().await.unwrap();
    assert_eq!(server.hits(), 3);
    let metrics = limiter.metrics();
    assert!(metrics.enabled, "{metrics:?}");
    assert_eq!(metrics.throttles, 3, "every SlowDown is a throttle: {metrics:?}");
    let report = *response.extensions().get::<staggered::reqwest::RetryReport>().unwrap();
    assert_eq!((report.attempts, report.stopped), (3, Some(StopReason::AttemptsExhausted)));
    // The last response reaches the caller whole, as the server sent it.
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.content_length(), Some(SLOW_DOWN.len() as u64));
    assert_eq!(response.url().path(), "/bucket/key");
    assert_eq!(response.text().await.unwrap(), SLOW_DOWN);

    // The same 503 without its body's code is transient: the limiter stays off.
    let server = Server::start(|_, _| Reply::Body(503, Vec::new(), "<html>busy</html>")).await;
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryMiddleware::policy_for(backoff_of(3)).with_rate_limiter(limiter.clone());
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let client =
        ClientBuilder::new(::reqwest::Client::builder().no_proxy().build().unwrap()).with(retry).build();
    let response = client.get(server.url("/")).send().await.unwrap();
    assert_eq!(response.text().await.unwrap(), "<html>busy</html>");
    assert!(!limiter.metrics().enabled);
}

fn backoff_of(max_attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_attempts(max_attempts)
        .build()
        .unwrap()
}

#[tokio::test]
async fn githubs_secondary_rate_limit_is_a_throttle_that_waits_a_minute_through_reqwest() {
    let body = r#"{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/rest"}"#;
    let server =
        Server::start(move |hit, _| if hit == 1 { Reply::Body(403, Vec::new(), body) } else { Reply::ok() })
            .await;
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryMiddleware::policy_for(backoff_of(3)).with_rate_limiter(limiter.clone());
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let client =
        ClientBuilder::new(::reqwest::Client::builder().no_proxy().build().unwrap()).with(retry).build();
    let response = client.get(server.url("/repos/o/r/issues")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2));
    assert_eq!(limiter.metrics().throttles, 1);
    assert!(sleeper.sleeps().iter().any(|&wait| wait >= Duration::from_secs(60)), "{:?}", sleeper.sleeps());
}

#[tokio::test]
async fn the_tower_layer_reports_throttles_and_waits_for_attempt_1s_token() {
    let calls = Arc::new(AtomicU32::new(0));
    let inner = tower::service_fn({
        let calls = Arc::clone(&calls);
        move |_: String| {
            let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
            let status = if call == 1 { 429 } else { 200 };
            async move { Ok::<_, BoxError>(http::Response::builder().status(status).body(()).unwrap()) }
        }
    });
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryPolicy::new(backoff()).classify(ClassifyHttp::new()).with_rate_limiter(limiter.clone());
    let layer = RetryLayer::new(policy).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(inner);
    let response = service.ready().await.unwrap().call("a".to_owned()).await.unwrap();
    assert_eq!((response.status().as_u16(), calls.load(Ordering::SeqCst)), (200, 2));
    assert_eq!(limiter.metrics().throttles, 1);
    drain(&limiter);
    let before = sleeper.sleeps().len();
    let response = service.ready().await.unwrap().call("b".to_owned()).await.unwrap();
    assert_eq!((response.status().as_u16(), calls.load(Ordering::SeqCst)), (200, 3));
    assert_eq!(sleeper.sleeps().len(), before + 1, "one wait, for the token");

    // A wait past the deadline: the request fails at once with a timeout.
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    limiter.record_response(true); // 0.5 tokens a second: 2 s to the next
    drain(&limiter);
    let policy = RetryPolicy::new(backoff())
        .classify(ClassifyHttp::new())
        .with_deadline(Duration::from_secs(1))
        .unwrap()
        .with_rate_limiter(limiter);
    let layer = RetryLayer::new(policy).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(tower::service_fn(|_: String| async {
        Ok::<_, BoxError>(http::Response::builder().status(200).body(()).unwrap())
    }));
    let before = sleeper.sleeps().len();
    let error = service.ready().await.unwrap().call("c".to_owned()).await.unwrap_err();
    assert!(error.is::<staggered::TimedOut>(), "{error}");
    assert_eq!(sleeper.sleeps().len(), before, "no sleep past the deadline");
}

#[tokio::test]
async fn the_tower_layer_sees_codes_in_headers_always_and_in_bodies_kept_below_it() {
    // A service that answers with S3's SlowDown twice, then succeeds; with
    // or without its body's start kept for the classifier.
    fn slow_then_ok(
        calls: &Arc<AtomicU32>,
        code_header: bool,
    ) -> impl Service<(), Response = http::Response<String>, Error = BoxError, Future: Send> + Clone {
        let calls = Arc::clone(calls);
        tower::service_fn(move |()| {
            let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
            let mut response = http::Response::builder();
            let body = if call <= 2 {
                response = response.status(503);
                if code_header {
                    response = response.header("x-amzn-errortype", "SlowDown");
                }
                SLOW_DOWN
            } else {
                "done"
            };
            let response = response.body(body.to_owned()).map_err(BoxError::from);
            async move { response }
        })
    }
    let sleeper = RecordingSleeper::new();
    let policy = |limiter: &AdaptiveLimiter<MockClock>| {
        RetryPolicy::new(backoff()).classify(ClassifyHttp::new()).with_rate_limiter(limiter.clone())
    };
    let keep = |mut response: http::Response<String>| {
        staggered::http::keep_body_start(&mut response);
        response
    };

    // The body's code, kept below the layer: two throttles, and the body whole.
    let calls = Arc::new(AtomicU32::new(0));
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let layer = RetryLayer::new(policy(&limiter)).with_timer(sleeper.clone(), sleeper.clock());
    let mut service =
        ServiceBuilder::new().layer(layer).map_response(keep).service(slow_then_ok(&calls, false));
    let response = service.ready().await.unwrap().call(()).await.unwrap();
    assert_eq!((response.status().as_u16(), response.body().as_str()), (200, "done"));
    assert_eq!(limiter.metrics().throttles, 2);

    // Without it, the layer sees a plain 503: transient.
    let calls = Arc::new(AtomicU32::new(0));
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let layer = RetryLayer::new(policy(&limiter)).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(slow_then_ok(&calls, false));
    assert_eq!(service.ready().await.unwrap().call(()).await.unwrap().status().as_u16(), 200);
    assert!(!limiter.metrics().enabled);

    // The header form needs nothing below the layer.
    let calls = Arc::new(AtomicU32::new(0));
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let layer = RetryLayer::new(policy(&limiter)).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(slow_then_ok(&calls, true));
    assert_eq!(service.ready().await.unwrap().call(()).await.unwrap().status().as_u16(), 200);
    assert_eq!(limiter.metrics().throttles, 2);

    // A last answer that is still SlowDown reaches the caller whole.
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let layer = RetryLayer::new(policy(&limiter)).with_timer(sleeper.clone(), sleeper.clock());
    let always = tower::service_fn(|()| async {
        http::Response::builder().status(503).body(SLOW_DOWN.to_owned()).map_err(BoxError::from)
    });
    let mut service = ServiceBuilder::new().layer(layer).map_response(keep).service(always);
    let response = service.ready().await.unwrap().call(()).await.unwrap();
    assert_eq!((response.status().as_u16(), response.body().as_str()), (503, SLOW_DOWN));
    assert_eq!(limiter.metrics().throttles, 5);
}

#[tokio::test]
async fn the_grpc_driver_reports_resource_exhausted_and_takes_tokens() {
    let server = GrpcServer::start(|call| match call {
        1 => GrpcReply::Fail(Status::resource_exhausted("slow down")),
        2 => GrpcReply::Fail(Status::unavailable("restarting")),
        _ => GrpcReply::Serving,
    })
    .await;
    let client = server.client().await;
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let policy = RetryPolicy::new(backoff()).with_rate_limiter(limiter.clone());
    let (_, attempts) = policy.check(&client, &sleeper).await.unwrap();
    assert_eq!((attempts, server.calls()), (3, 3));
    let metrics = limiter.metrics();
    // RESOURCE_EXHAUSTED is a throttle; UNAVAILABLE is not.
    assert!(metrics.enabled);
    assert_eq!(metrics.throttles, 1, "{metrics:?}");
    // Now attempt 1 of the next call waits for its token first.
    drain(&limiter);
    let before = sleeper.sleeps().len();
    let (_, attempts) = policy.check(&client, &sleeper).await.unwrap();
    assert_eq!((attempts, server.calls()), (1, 4));
    assert_eq!(sleeper.sleeps().len(), before + 1, "one wait, for the token");
    assert_eq!(limiter.metrics().waits, metrics.waits + 1);
}

#[tokio::test]
async fn the_grpc_driver_stops_at_a_token_past_the_deadline_with_the_last_status() {
    let server = GrpcServer::start(|_| GrpcReply::Fail(Status::resource_exhausted("slow down"))).await;
    let client = server.client().await;
    let sleeper = RecordingSleeper::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    limiter.record_response(true); // 0.5 tokens a second: 2 s from one to the next
    drain(&limiter);
    let policy = RetryPolicy::new(backoff())
        .with_deadline(Duration::from_secs(1))
        .unwrap()
        .with_rate_limiter(limiter.clone());
    // No token before the deadline: nothing is sent, and there is no status to give.
    let error = policy.check(&client, &sleeper).await.unwrap_err();
    assert_eq!((error.reason(), error.attempts(), error.error().is_none()), (StopReason::Deadline, 0, true));
    assert_eq!((server.calls(), sleeper.sleeps().len()), (0, 0), "no call, no sleep past the deadline");
    // One token: attempt 1 is sent and throttled, attempt 2's token is past
    // the deadline. The error is attempt 1's status.
    sleeper.clock().advance(Duration::from_millis(2100));
    let error = policy.check(&client, &sleeper).await.unwrap_err();
    assert_eq!((error.reason(), error.attempts(), server.calls()), (StopReason::Deadline, 1, 1));
    assert_eq!(error.error().map(Status::code), Some(Code::ResourceExhausted));
    assert_eq!(sleeper.sleeps(), [Duration::from_millis(10)], "the backoff, then no wait past the deadline");
}
