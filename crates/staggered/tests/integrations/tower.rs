//! The tower layer: against a real server on 127.0.0.1 through hyper's
//! client, and against hand-made services for readiness and cloning.

use std::future::Ready;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use staggered::http::{ClassifyHttp, IdempotentOnly};
use staggered::sleep::Clock;
use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::tower::RetryLayer;
use staggered::{
    AlwaysTransient, Backoff, GiveUpEvent, RatioBudget, RetryPolicy, StopReason, Strategy, TimedOut,
};
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

use super::server::{Reply, Server};

type Body = Full<Bytes>;

fn backoff(max_attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(100))
        .with_max_attempts(max_attempts)
        .build()
        .unwrap()
}

fn http_client() -> Client<hyper_util::client::legacy::connect::HttpConnector, Body> {
    Client::builder(TokioExecutor::new()).build_http()
}

fn get(url: String) -> Request<Body> {
    Request::get(url).body(Body::default()).unwrap()
}

/// Records the give-up reasons.
#[derive(Clone, Default)]
struct GiveUps(Arc<Mutex<Vec<(StopReason, u32)>>>);

impl GiveUps {
    /// A policy's give-up hook that records here.
    fn hook(&self) -> impl Fn(&GiveUpEvent<'_, dyn std::fmt::Display + '_>) + Send + Sync + 'static {
        let give_ups = self.clone();
        move |event| give_ups.0.lock().unwrap().push((event.reason, event.attempts))
    }
}

/// The HTTP stack: retry (HTTP classifier, idempotent requests only,
/// recording sleeper) around hyper's client, whose errors become a
/// `BoxError`, which can hold the retry layer's `TimedOut`.
macro_rules! http_stack {
    ($policy:expr, $sleeper:expr) => {
        ServiceBuilder::new()
            .layer(
                RetryLayer::new($policy.classify(ClassifyHttp::new()))
                    .clone_requests_with(IdempotentOnly::new())
                    .with_timer($sleeper.clone(), $sleeper.clock()),
            )
            .map_err(BoxError::from)
            .service(http_client())
    };
}

#[tokio::test]
async fn a_flaky_endpoint_succeeds_on_the_third_attempt() {
    let server = Server::start(|hit, _| if hit <= 2 { Reply::status(503) } else { Reply::ok() }).await;
    let sleeper = RecordingSleeper::new();
    let mut service = http_stack!(RetryPolicy::new(backoff(5)), sleeper);
    let response: Response<Incoming> =
        service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 3));
    assert_eq!(sleeper.sleeps(), [Duration::from_millis(10), Duration::from_millis(20)]);
}

#[tokio::test]
async fn retry_after_is_honoured_and_hostile_hints_stop() {
    let server = Server::start(|hit, _| match hit {
        1 => Reply::with_header(429, "retry-after", "1"),
        2 => Reply::with_header(503, "retry-after", "soon"),
        3 => Reply::with_header(503, "retry-after", "99999999999"),
        _ => Reply::ok(),
    })
    .await;
    let sleeper = RecordingSleeper::new();
    let give_ups = GiveUps::default();
    let policy =
        RetryPolicy::new(backoff(5)).with_max_hint(Duration::from_secs(5)).on_give_up(give_ups.hook());
    let mut service = http_stack!(policy, sleeper);
    let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
    // Hit 1: waited the hint; hit 2: garbage ignored, ordinary backoff;
    // hit 3: a hint past max_hint stops, and the 503 is returned as it came.
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 3));
    let sleeps = sleeper.sleeps();
    assert!(sleeps[0] >= Duration::from_secs(1) && sleeps[0] <= Duration::from_millis(1100), "{sleeps:?}");
    assert_eq!(sleeps[1], Duration::from_millis(20));
    assert_eq!(give_ups.0.lock().unwrap().as_slice(), [(StopReason::HintTooLong, 3)]);
}

#[tokio::test]
async fn a_success_that_announces_a_spent_quota_holds_the_next_request_until_the_reset() {
    let server = Server::start(|_, _| Reply::with_header(200, "ratelimit", "\"hourly\";r=0;t=30")).await;
    let sleeper = RecordingSleeper::new();
    let limiter = staggered::AdaptiveLimiter::builder().build_with_clock(sleeper.clock()).unwrap();
    let mut service = http_stack!(RetryPolicy::new(backoff(5)).with_rate_limiter(limiter.clone()), sleeper);
    for _ in 0..2 {
        let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }
    // The first response said none are left for 30 s: the second request waited for the reset.
    let sleeps = sleeper.sleeps();
    assert_eq!(sleeps.len(), 1, "{sleeps:?}");
    assert!(sleeps[0] > Duration::from_secs(29) && sleeps[0] <= Duration::from_secs(30), "{sleeps:?}");
    assert!(!limiter.is_enabled(), "no throttle");
}

#[tokio::test]
async fn a_post_is_sent_once() {
    let server = Server::start(|_, _| Reply::status(503)).await;
    let sleeper = RecordingSleeper::new();
    let mut service = http_stack!(RetryPolicy::new(backoff(3)), sleeper);
    let post = Request::post(server.url("/pay")).body(Body::from("{}")).unwrap();
    let response = service.ready().await.unwrap().call(post).await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    let keyed =
        Request::post(server.url("/pay")).header("idempotency-key", "k1").body(Body::from("{}")).unwrap();
    service.ready().await.unwrap().call(keyed).await.unwrap();
    assert_eq!(server.hits(), 1 + 3);
}

#[tokio::test]
async fn a_hanging_endpoint_is_cut_by_the_attempt_timeout() {
    // Real time: the hanging socket is cut after 150 ms.
    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::ok() }).await;
    let policy = RetryPolicy::new(backoff(4))
        .classify(ClassifyHttp::new())
        .with_attempt_timeout(Duration::from_millis(150))
        .unwrap();
    // hyper's error becomes a `BoxError`, which can hold a `TimedOut`.
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(policy).clone_requests_with(IdempotentOnly::new()))
        .map_err(BoxError::from)
        .service(http_client());
    let start = Instant::now();
    let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
    let elapsed = start.elapsed();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2));
    assert!(elapsed >= Duration::from_millis(150) && elapsed < Duration::from_secs(5), "{elapsed:?}");

    // With every attempt cut, the caller gets the timeout.
    let server = Server::start(|_, _| Reply::Hang).await;
    let policy = RetryPolicy::new(backoff(2))
        .classify(ClassifyHttp::new())
        .with_attempt_timeout(Duration::from_millis(100))
        .unwrap();
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(policy).clone_requests_with(IdempotentOnly::new()))
        .map_err(BoxError::from)
        .service(http_client());
    let err = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap_err();
    assert_eq!(err.downcast_ref::<TimedOut>(), Some(&TimedOut { after: Duration::from_millis(100) }));
    assert!(server.hits() <= 2, "hits {}", server.hits());
}

#[tokio::test]
async fn a_shared_budget_stops_retries_when_the_server_is_down() {
    const REQUESTS: u32 = 30;
    let server = Server::start(|_, _| Reply::status(503)).await;
    // A ratio budget on a clock that does not move: a reserve of 1 retry
    // per second over 2 s, plus 10% of the requests.
    let budget = RatioBudget::builder()
        .with_ttl(Duration::from_secs(2))
        .with_min_per_sec(1)
        .with_retry_percent(0.1)
        .build_with_clock(MockClock::new())
        .unwrap();
    let sleeper = RecordingSleeper::new();
    let service = http_stack!(RetryPolicy::new(backoff(4)).with_budget(budget.clone()), sleeper);
    let tasks: Vec<_> = (0..REQUESTS)
        .map(|_| {
            let (service, url) = (service.clone(), server.url("/down"));
            tokio::spawn(async move { service.oneshot(get(url)).await.unwrap().status() })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), StatusCode::SERVICE_UNAVAILABLE);
    }
    let metrics = staggered::Budget::metrics(&budget).unwrap();
    assert!(metrics.refused > 0, "{metrics:?}");
    // At most the reserve (2) plus 10% of 30 requests (3) retries.
    assert!(metrics.allowed <= 5, "{metrics:?}");
    assert_eq!(u64::from(server.hits()), u64::from(REQUESTS) + metrics.allowed);
    assert!(server.hits() < REQUESTS * 4);
}

/// A service that fails its first `failures` calls, counts its calls, and
/// is not ready on the first `poll_ready` of each clone.
struct Flaky {
    calls: Arc<AtomicU32>,
    ready_polls: Arc<AtomicU32>,
    failures: u32,
    readied: bool,
}

impl Flaky {
    fn new(failures: u32) -> Self {
        Flaky { calls: Arc::default(), ready_polls: Arc::default(), failures, readied: false }
    }
}

impl Clone for Flaky {
    fn clone(&self) -> Self {
        // A clone has its own readiness, as a clone of a real client would.
        let (calls, ready_polls) = (Arc::clone(&self.calls), Arc::clone(&self.ready_polls));
        Flaky { calls, ready_polls, failures: self.failures, readied: false }
    }
}

impl Service<String> for Flaky {
    type Response = usize;
    type Error = BoxError;
    type Future = Ready<Result<usize, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.ready_polls.fetch_add(1, Ordering::SeqCst);
        if self.readied {
            Poll::Ready(Ok(()))
        } else {
            self.readied = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    fn call(&mut self, request: String) -> Self::Future {
        assert!(self.readied, "called before ready");
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        std::future::ready(if call <= self.failures { Err("flaky".into()) } else { Ok(request.len()) })
    }
}

#[tokio::test]
async fn the_cloned_service_is_readied_before_every_retry() {
    let inner = Flaky::new(2);
    let (calls, ready_polls) = (Arc::clone(&inner.calls), Arc::clone(&inner.ready_polls));
    let sleeper = RecordingSleeper::new();
    let policy = RetryPolicy::new(backoff(5)).classify(AlwaysTransient);
    let layer = RetryLayer::new(policy).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(inner);
    let length = service.ready().await.unwrap().call("hello".to_owned()).await.unwrap();
    assert_eq!((length, calls.load(Ordering::SeqCst)), (5, 3));
    // Two polls for the caller's readiness, then the clone (not ready yet,
    // then ready) before retry 1 and ready again before retry 2.
    assert_eq!(ready_polls.load(Ordering::SeqCst), 2 + 2 + 1);
    assert_eq!(sleeper.sleeps().len(), 2);
}

#[tokio::test]
async fn a_request_that_cannot_be_cloned_is_sent_once() {
    let inner = Flaky::new(10);
    let calls = Arc::clone(&inner.calls);
    let sleeper = RecordingSleeper::new();
    let layer = RetryLayer::new(RetryPolicy::new(backoff(5)).classify(AlwaysTransient))
        .clone_requests_with(|request: &String| (!request.starts_with("POST")).then(|| request.clone()))
        .with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(inner);
    let err = service.ready().await.unwrap().call("POST /pay".to_owned()).await.unwrap_err();
    assert_eq!((err.to_string(), calls.load(Ordering::SeqCst)), ("flaky".to_owned(), 1));
    service.ready().await.unwrap().call("GET /".to_owned()).await.unwrap_err();
    assert_eq!(calls.load(Ordering::SeqCst), 1 + 5);
    assert_eq!(sleeper.sleeps().len(), 4);
}

#[tokio::test]
async fn the_deadline_is_read_on_the_layers_clock() {
    // A 25 ms deadline on the recording sleeper's clock: 10 + 20 ms of
    // waits would pass it, so the loop stops after one retry, sleeping 10 ms.
    let sleeper = RecordingSleeper::new();
    let give_ups = GiveUps::default();
    let policy = RetryPolicy::new(backoff(10))
        .classify(AlwaysTransient)
        .with_deadline(Duration::from_millis(25))
        .unwrap()
        .on_give_up(give_ups.hook());
    let layer = RetryLayer::new(policy).with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(Flaky::new(10));
    service.ready().await.unwrap().call("x".to_owned()).await.unwrap_err();
    assert_eq!(sleeper.sleeps(), [Duration::from_millis(10)]);
    assert_eq!(give_ups.0.lock().unwrap().as_slice(), [(StopReason::Deadline, 2)]);
    assert_eq!(sleeper.clock().since(Duration::ZERO), Duration::from_millis(10));
}

#[tokio::test(start_paused = true)]
async fn tokio_time_by_default() {
    // The default timer is tokio's, so paused time runs the waits at once.
    let start = tokio::time::Instant::now();
    let policy = || RetryPolicy::new(backoff(5)).classify(AlwaysTransient);
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy())).service(tower::service_fn(
        |n: u32| async move {
            if n > 0 {
                Ok::<_, BoxError>(n)
            } else {
                unreachable!()
            }
        },
    ));
    assert_eq!(service.ready().await.unwrap().call(3).await.unwrap(), 3);
    let policy = RetryPolicy::new(backoff(3)).classify(AlwaysTransient);
    let mut flaky = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(Flaky::new(5));
    flaky.ready().await.unwrap().call("x".to_owned()).await.unwrap_err();
    assert_eq!(start.elapsed(), Duration::from_millis(30), "10 + 20 ms of paused time");
}

#[tokio::test]
async fn a_policy_without_a_classifier_retries_http_statuses() {
    // No classifier set: HTTP responses follow the HTTP rules (a 503 retries).
    let server = Server::start(|hit, _| if hit <= 2 { Reply::status(503) } else { Reply::ok() }).await;
    let sleeper = RecordingSleeper::new();
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(RetryPolicy::new(backoff(5))).with_timer(sleeper.clone(), sleeper.clock()))
        .map_err(BoxError::from)
        .service(http_client());
    let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 3));
}

#[tokio::test]
async fn an_ordinary_retry_after_is_honoured_past_a_short_max_delay() {
    // max_delay 100 ms, and the server asks for a second: honoured, since a
    // service's default max_hint is at least a minute.
    let server =
        Server::start(
            |hit, _| if hit == 1 { Reply::with_header(429, "retry-after", "1") } else { Reply::ok() },
        )
        .await;
    let sleeper = RecordingSleeper::new();
    let policy = RetryPolicy::new(backoff(3));
    assert!(policy.limits().max_hint < Some(Duration::from_secs(1)), "the schedule's own maximum");
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(policy).with_timer(sleeper.clone(), sleeper.clock()))
        .map_err(BoxError::from)
        .service(http_client());
    let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2));
    let waited = sleeper.sleeps()[0];
    assert!(waited >= Duration::from_secs(1) && waited <= Duration::from_millis(1100), "{waited:?}");
}

#[tokio::test(start_paused = true)]
async fn a_classifier_of_errors_works_on_a_tower_layer_with_hooks_typed_by_the_service() {
    use staggered::classify::io::classify_io;
    let retried = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&retried);
    let policy = RetryPolicy::new(backoff(4))
        .classify(classify_io)
        .on_retry(move |event| seen.lock().unwrap().push(format!("{}", event.error)));
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let mut service = ServiceBuilder::new().layer(RetryLayer::new(policy)).service(tower::service_fn(
        move |path: &'static str| {
            let call = counter.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                match (path, call) {
                    ("/missing", _) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
                    (_, 1) => Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset)),
                    _ => Ok(path.len()),
                }
            }
        },
    ));
    assert_eq!(service.ready().await.unwrap().call("/ok").await.unwrap(), 3);
    assert_eq!(*retried.lock().unwrap(), ["connection reset"]);
    let err = service.ready().await.unwrap().call("/missing").await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(calls.load(Ordering::SeqCst), 3, "not found is permanent: one call");
}

#[tokio::test(start_paused = true)]
async fn the_deadline_cuts_a_running_attempt_without_an_attempt_timeout() {
    let policy = RetryPolicy::new(backoff(5))
        .classify(AlwaysTransient)
        .with_deadline(Duration::from_millis(200))
        .unwrap();
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(policy)).service(tower::service_fn(|_: ()| async {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            Err::<(), BoxError>("slow".into())
        }));
    let start = tokio::time::Instant::now();
    let err = service.ready().await.unwrap().call(()).await.unwrap_err();
    assert_eq!(start.elapsed(), Duration::from_millis(200), "not 1.5 s");
    assert_eq!(err.downcast_ref::<TimedOut>(), Some(&TimedOut { after: Duration::from_millis(200) }));
}

#[tokio::test]
async fn the_tower_layer_counts_its_operations_and_retries() {
    use staggered::metrics::{FIRST_TRY_SUCCESSES, GIVE_UPS, OPERATIONS, RETRIES, RETRY_DELAY};
    // Hits 1-3: two 503s then 200; hit 4: 200 at once; hits 5-7: 503 until attempts run out.
    let server =
        Server::start(|hit, _| if hit <= 2 || hit >= 5 { Reply::status(503) } else { Reply::ok() }).await;
    let sleeper = RecordingSleeper::new();
    let mut service = http_stack!(RetryPolicy::new(backoff(3)).with_metrics(), sleeper);
    let recorder = metrics_util::debugging::DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    {
        let _guard = metrics::set_default_local_recorder(&recorder);
        for status in [StatusCode::OK, StatusCode::OK, StatusCode::SERVICE_UNAVAILABLE] {
            let response = service.ready().await.unwrap().call(get(server.url("/"))).await.unwrap();
            assert_eq!(response.status(), status);
        }
    }
    assert_eq!(server.hits(), 7);
    let recorded = crate::retry::metrics::Recorded::from(snapshotter.snapshot());
    assert_eq!(recorded.counter(OPERATIONS, &[]), 3);
    assert_eq!(recorded.counter(FIRST_TRY_SUCCESSES, &[]), 1);
    assert_eq!(recorded.counter(RETRIES, &[("error.type", "transient")]), 4);
    assert_eq!(recorded.counter(GIVE_UPS, &[("staggered.stop_reason", "attempts_exhausted")]), 1);
    assert_eq!(recorded.histogram(RETRY_DELAY, &[("error.type", "transient")]).len(), 4);
}

/// A service whose call `n` (from 1) answers after `latencies[n - 1]` ms
/// (never, past the end) with `Ok(n)`, or fails if that latency is odd;
/// it counts its calls, and the drops of calls still running.
#[derive(Clone)]
struct Scripted {
    latencies: &'static [u64],
    calls: Arc<AtomicU32>,
    dropped: Arc<Mutex<Vec<u32>>>,
}

impl Scripted {
    fn new(latencies: &'static [u64]) -> Self {
        Scripted { latencies, calls: Arc::default(), dropped: Arc::default() }
    }
}

/// Held by a call's future: says when a call still running was dropped.
struct Running(u32, Arc<Mutex<Vec<u32>>>, bool);

impl Drop for Running {
    fn drop(&mut self) {
        if !self.2 {
            self.1.lock().unwrap().push(self.0);
        }
    }
}

impl Service<&'static str> for Scripted {
    type Response = u32;
    type Error = BoxError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<u32, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: &'static str) -> Self::Future {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let latency = self.latencies.get(call as usize - 1).copied();
        let running = Running(call, Arc::clone(&self.dropped), false);
        Box::pin(async move {
            let mut running = running;
            let Some(latency) = latency else { std::future::pending().await };
            tokio::time::sleep(Duration::from_millis(latency)).await;
            running.2 = true;
            if latency % 2 == 1 {
                return Err(BoxError::from(format!("call {call} failed")));
            }
            Ok(call)
        })
    }
}

fn hedged_layer(max_attempts: u32) -> RetryLayer<RetryPolicy<Backoff, AlwaysTransient>> {
    let hedging =
        staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(max_attempts).unwrap();
    RetryLayer::new(RetryPolicy::new(backoff(5)).classify(AlwaysTransient)).hedge(hedging)
}

#[tokio::test(start_paused = true)]
async fn a_hedged_request_takes_the_first_answer_from_a_readied_clone_and_drops_the_rest() {
    let inner = Scripted::new(&[1_000, 4]);
    let mut service = ServiceBuilder::new().layer(hedged_layer(3)).service(inner.clone());
    let start = tokio::time::Instant::now();
    let answer = service.ready().await.unwrap().call("x").await.unwrap();
    assert_eq!((answer, start.elapsed()), (2, Duration::from_millis(14)));
    assert_eq!(inner.calls.load(Ordering::SeqCst), 2);
    assert_eq!(*inner.dropped.lock().unwrap(), [1], "the slow copy is dropped");
}

#[tokio::test(start_paused = true)]
async fn a_hedged_request_sends_at_most_max_attempts_and_a_failed_copy_sends_the_next_at_once() {
    // Call 1 hangs, call 2 fails after 3 ms (odd), call 3 answers after 2 ms.
    let inner = Scripted::new(&[1_000, 3, 2]);
    let mut service = ServiceBuilder::new().layer(hedged_layer(3)).service(inner.clone());
    let start = tokio::time::Instant::now();
    let answer = service.ready().await.unwrap().call("x").await.unwrap();
    // Copy 2 at 10 ms fails at 13 ms; copy 3 goes at once and answers at 15 ms.
    assert_eq!((answer, start.elapsed()), (3, Duration::from_millis(15)));

    let inner = Scripted::new(&[]);
    let mut service = ServiceBuilder::new().layer(hedged_layer(2)).service(inner.clone());
    let call = service.ready().await.unwrap().call("x");
    assert!(tokio::time::timeout(Duration::from_secs(60), call).await.is_err());
    assert_eq!(inner.calls.load(Ordering::SeqCst), 2, "never more than max_attempts");
    assert_eq!(*inner.dropped.lock().unwrap(), [1, 2], "dropping the request drops every copy");
}

#[tokio::test(start_paused = true)]
async fn a_hedged_request_stops_every_copy_on_a_fatal_failure_and_at_the_deadline() {
    // Copy 2 fails after 3 ms, and the classifier says that failure is final.
    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    let policy = RetryPolicy::new(backoff(5)).classify(|_: &BoxError| staggered::Failure::PERMANENT);
    let inner = Scripted::new(&[1_000, 3]);
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(policy).hedge(hedging)).service(inner.clone());
    let err = service.ready().await.unwrap().call("x").await.unwrap_err();
    assert_eq!(err.to_string(), "call 2 failed");
    assert_eq!((inner.calls.load(Ordering::SeqCst), inner.dropped.lock().unwrap().clone()), (2, vec![1]));

    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    let policy =
        RetryPolicy::new(backoff(5)).classify(AlwaysTransient).with_deadline(Duration::from_millis(25));
    let inner = Scripted::new(&[]);
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(policy.unwrap()).hedge(hedging)).service(inner.clone());
    let start = tokio::time::Instant::now();
    let err = service.ready().await.unwrap().call("x").await.unwrap_err();
    assert!(err.downcast_ref::<TimedOut>().is_some(), "{err}");
    assert_eq!((start.elapsed(), inner.calls.load(Ordering::SeqCst)), (Duration::from_millis(25), 3));
    assert_eq!(*inner.dropped.lock().unwrap(), [1, 2, 3], "the deadline cuts every copy");
}

#[tokio::test(start_paused = true)]
async fn a_hedged_request_sends_no_hedge_without_budget_and_a_cancel_drops_every_copy() {
    let empty = RatioBudget::builder().with_retry_percent(0.0).with_min_per_sec(0).build().unwrap();
    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    let policy = RetryPolicy::new(backoff(5)).classify(AlwaysTransient).with_budget(empty);
    let inner = Scripted::new(&[100]);
    let mut service =
        ServiceBuilder::new().layer(RetryLayer::new(policy).hedge(hedging)).service(inner.clone());
    let start = tokio::time::Instant::now();
    assert_eq!(service.ready().await.unwrap().call("x").await.unwrap(), 1);
    assert_eq!((start.elapsed(), inner.calls.load(Ordering::SeqCst)), (Duration::from_millis(100), 1));

    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    let policy = RetryPolicy::new(backoff(5)).classify(AlwaysTransient);
    let layer =
        RetryLayer::new(policy).hedge(hedging).cancel_on(|| tokio::time::sleep(Duration::from_millis(25)));
    let inner = Scripted::new(&[]);
    let mut service = ServiceBuilder::new().layer(layer).service(inner.clone());
    let err = service.ready().await.unwrap().call("x").await.unwrap_err();
    assert!(err.downcast_ref::<staggered::Cancelled>().is_some(), "{err}");
    assert_eq!(*inner.dropped.lock().unwrap(), [1, 2, 3]);
}
