//! Polling through the service drivers, against real local servers: an
//! HTTP job that answers 202 Accepted while it runs (a success by the HTTP
//! rules, so only `until` retries it), and a gRPC health check that is not
//! `SERVING` yet. The ready response comes back after 3 attempts on the
//! schedule, with the policy's hooks and budget seeing 2 retries; a job
//! never ready stops by the policy's limits and gives the last response
//! back. Had a driver skipped the machine's judgement, the first response
//! would come back at once.

use std::cell::RefCell;

use ::reqwest::StatusCode;
use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use reqwest_middleware::ClientBuilder;
use staggered::reqwest::{RetryMiddleware, RetryReport};
use staggered::test_util::RecordingSleeper;
use staggered::tower::RetryLayer;
use staggered::{Backoff, Budget, RetryPolicy, StopReason, TokenBucket};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::HealthCheckResponse;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

use super::grpc_server::{self, message, GrpcServer};
use super::server::{Reply, Server};
use super::tonic::{backoff, ms};
use crate::retry::probes::Heard;

/// A job that answers 202 Accepted until hit `done_on` (never, if `None`),
/// then 200; each answer says its hit's number in `x-hit`.
async fn job(done_on: Option<u32>) -> Server {
    Server::start(move |hit, _| {
        let status = if done_on.is_some_and(|done| hit >= done) { 200 } else { 202 };
        Reply::with_header(status, "x-hit", hit.to_string())
    })
    .await
}

/// The hit that answered `headers`' response.
fn hit(headers: &http::HeaderMap) -> u32 {
    headers["x-hit"].to_str().unwrap().parse().unwrap()
}

fn tower_finished(response: &http::Response<Incoming>) -> bool {
    response.status() == StatusCode::OK
}

fn reqwest_finished(response: &::reqwest::Response) -> bool {
    response.status() == StatusCode::OK
}

fn serving(response: &::tonic::Response<HealthCheckResponse>) -> bool {
    response.get_ref().status == ServingStatus::Serving as i32
}

/// The tower stack: retry (no classifier: the HTTP rules) around hyper's
/// client, on `sleeper`.
macro_rules! tower_stack {
    ($policy:expr, $sleeper:expr) => {
        ServiceBuilder::new()
            .layer(
                RetryLayer::new($policy).until(tower_finished).with_timer($sleeper.clone(), $sleeper.clock()),
            )
            .map_err(BoxError::from)
            .service(Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>())
    };
}

fn get(url: String) -> Request<Full<Bytes>> {
    Request::get(url).body(Full::default()).unwrap()
}

/// A reqwest client retrying with `policy` until a response is 200, on `sleeper`.
fn reqwest_client(
    policy: RetryPolicy<Backoff, staggered::http::ClassifyHttp>,
    sleeper: &RecordingSleeper,
) -> reqwest_middleware::ClientWithMiddleware {
    let retry = RetryMiddleware::from_policy(policy)
        .until(reqwest_finished)
        .with_timer(sleeper.clone(), sleeper.clock());
    ClientBuilder::new(::reqwest::Client::builder().no_proxy().build().unwrap()).with(retry).build()
}

fn report(response: &::reqwest::Response) -> RetryReport {
    *response.extensions().get::<RetryReport>().expect("a retry report")
}

#[tokio::test]
async fn tower_polling_returns_the_ready_response_after_3_attempts_on_the_schedule() {
    let server = job(Some(3)).await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let mut service =
        tower_stack!(heard.hooks(RetryPolicy::new(backoff(5)).with_budget(bucket.clone())), sleeper);
    let response = service.ready().await.unwrap().call(get(server.url("/job"))).await.unwrap();
    assert_eq!((response.status(), hit(response.headers()), server.hits()), (StatusCode::OK, 3, 3));
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20)]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![]));
    // Two retries of 5 tokens; the success gives the last one's cost back.
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 495));
}

#[tokio::test]
async fn tower_polling_never_ready_stops_after_max_attempts_with_the_last_response() {
    let server = job(None).await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let mut service =
        tower_stack!(heard.hooks(RetryPolicy::new(backoff(3)).with_budget(bucket.clone())), sleeper);
    let response = service.ready().await.unwrap().call(get(server.url("/job"))).await.unwrap();
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!((hit(response.headers()), server.hits()), (3, 3), "the last response, not the first");
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20)]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![(StopReason::AttemptsExhausted, 3)]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 490));
}

#[tokio::test]
async fn reqwest_polling_returns_the_ready_response_after_3_attempts_on_the_schedule() {
    let server = job(Some(3)).await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let policy = heard.hooks(RetryMiddleware::policy_for(backoff(5)).with_budget(bucket.clone()));
    let response = reqwest_client(policy, &sleeper).get(server.url("/job")).send().await.unwrap();
    assert_eq!((response.status(), hit(response.headers()), server.hits()), (StatusCode::OK, 3, 3));
    let report = report(&response);
    assert_eq!((report.attempts, report.waited, report.stopped), (3, ms(30), None));
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20)]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 495));
}

#[tokio::test]
async fn reqwest_polling_never_ready_stops_at_the_deadline_with_the_last_response() {
    let server = job(None).await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let policy = RetryMiddleware::policy_for(backoff(10)).with_budget(bucket.clone()).with_deadline(ms(250));
    let client = reqwest_client(heard.hooks(policy.unwrap()), &sleeper);
    let response = client.get(server.url("/job")).send().await.unwrap();
    // Hits at 0, 10, 30, 70 and 150 ms (on the sleeper's clock); the next
    // wait, 100 ms, would end at the deadline.
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!((hit(response.headers()), server.hits()), (5, 5), "the last response, not the first");
    let report = report(&response);
    assert_eq!((report.attempts, report.waited, report.stopped), (5, ms(150), Some(StopReason::Deadline)));
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2, 3, 4], vec![(StopReason::Deadline, 5)]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (4, 480));
}

#[tokio::test]
async fn tonic_polling_returns_the_ready_response_after_3_attempts_on_the_schedule() {
    let server = GrpcServer::start(|call| {
        if call < 3 {
            grpc_server::Reply::Status(ServingStatus::NotServing)
        } else {
            grpc_server::Reply::Serving
        }
    })
    .await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let policy = heard.hooks(RetryPolicy::new(backoff(5)).with_budget(bucket.clone()));
    let call_retries = RefCell::new(Vec::new());
    let done = policy
        .retry_grpc(&server.client().await, message(), |mut client, request| async move {
            client.check(request).await
        })
        .until(serving)
        .on_retry(|event| call_retries.borrow_mut().push((event.attempt, event.error.to_string())))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .await
        .unwrap();
    assert!(serving(&done.value));
    assert_eq!((done.attempts, done.waited, server.calls()), (3, ms(30), 3));
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20)]);
    assert_eq!(*call_retries.borrow(), [(1, "not ready".to_owned()), (2, "not ready".to_owned())]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 495));
}

#[tokio::test]
async fn tonic_polling_never_ready_stops_at_the_deadline_with_the_last_response() {
    // Calls 1 to 4 answer UNKNOWN, later ones NOT_SERVING: the last one tells.
    let server = GrpcServer::start(|call| {
        grpc_server::Reply::Status(if call < 5 { ServingStatus::Unknown } else { ServingStatus::NotServing })
    })
    .await;
    let (heard, bucket, sleeper) = (Heard::default(), TokenBucket::new(), RecordingSleeper::new());
    let policy = RetryPolicy::new(backoff(10)).with_budget(bucket.clone()).with_deadline(ms(250)).unwrap();
    let err = heard
        .hooks(policy)
        .retry_grpc(&server.client().await, message(), |mut client, request| async move {
            client.check(request).await
        })
        .until(serving)
        .with_timer(&sleeper, &sleeper.clock())
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), err.waited()), (StopReason::Deadline, 5, ms(150)));
    let last = err.value().expect("the last response");
    assert_eq!(last.get_ref().status, ServingStatus::NotServing as i32, "the last response, not the first");
    assert!(err.error().is_none());
    assert_eq!(server.calls(), 5);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2, 3, 4], vec![(StopReason::Deadline, 5)]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (4, 480));
}
