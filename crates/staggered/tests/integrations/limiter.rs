//! A rate limiter through the service integrations: 429, and 503 with a hint
//! to come back later, are throttled responses the limiter slows down for;
//! every attempt, the first included, takes a token first.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::reqwest::StatusCode;
use reqwest_middleware::ClientBuilder;
use staggered::http::ClassifyHttp;
use staggered::limiter::AdaptiveLimiter;
use staggered::reqwest::RetryMiddleware;
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::tower::RetryLayer;
use staggered::{Backoff, RetryPolicy, Strategy};
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

use super::server::{Reply, Server};

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
