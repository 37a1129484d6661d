//! The reqwest middleware against a real server on 127.0.0.1. Waits go to a
//! `RecordingSleeper`, so nothing sleeps for real except the one test that
//! needs a hanging socket to be cut by the clock.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use ::reqwest::StatusCode;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use staggered::reqwest::{Idempotent, RetryMiddleware, RetryReport};
use staggered::test_util::RecordingSleeper;
use staggered::{Backoff, GiveUpEvent, RetryIf, RetryPolicy, StopReason, Strategy, TimedOut, TokenBucket};

use super::server::{Reply, Server};

fn backoff(max_attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(100))
        .with_max_attempts(max_attempts)
        .build()
        .unwrap()
}

fn client_with<M: reqwest_middleware::Middleware>(retry: M) -> ClientWithMiddleware {
    let inner = ::reqwest::Client::builder().no_proxy().build().unwrap();
    ClientBuilder::new(inner).with(retry).build()
}

/// A middleware on a recording sleeper: every wait is recorded, none is slept.
fn recorded(
    policy: RetryPolicy<Backoff, staggered::http::ClassifyHttp>,
) -> (ClientWithMiddleware, RecordingSleeper) {
    let sleeper = RecordingSleeper::new();
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    (client_with(retry), sleeper)
}

fn report(response: &::reqwest::Response) -> RetryReport {
    *response.extensions().get::<RetryReport>().expect("a retry report")
}

#[tokio::test]
async fn a_flaky_endpoint_succeeds_on_the_third_attempt() {
    let server = Server::start(|hit, _| if hit <= 2 { Reply::status(503) } else { Reply::ok() }).await;
    let (client, sleeper) = recorded(RetryMiddleware::policy_for(backoff(5)));
    let response = client.get(server.url("/flaky")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(server.hits(), 3);
    let report = report(&response);
    assert_eq!((report.attempts, report.stopped), (3, None));
    assert_eq!(sleeper.sleeps(), [Duration::from_millis(10), Duration::from_millis(20)]);
    assert_eq!(response.text().await.unwrap(), "200");
}

#[tokio::test]
async fn a_refused_connection_retries_and_a_404_does_not() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let (client, sleeper) = recorded(RetryMiddleware::policy_for(backoff(3)));
    let err = client.get(url).send().await.unwrap_err();
    assert!(err.is_connect(), "{err}");
    assert_eq!(sleeper.sleeps().len(), 2, "connection refused is transient");

    let server = Server::start(|_, _| Reply::status(404)).await;
    let (client, sleeper) = recorded(RetryMiddleware::policy_for(backoff(3)));
    let response = client.get(server.url("/missing")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::NOT_FOUND, 1));
    assert_eq!(report(&response).stopped, Some(StopReason::Permanent));
    assert!(sleeper.sleeps().is_empty());
}

#[tokio::test]
async fn retry_after_is_honoured_in_seconds_dates_and_milliseconds() {
    let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3));
    let cases: [(&'static str, String, Duration, Duration); 3] = [
        ("retry-after", "1".into(), Duration::from_secs(1), Duration::from_millis(1100)),
        // An HTTP-date has whole seconds, so 3 s from now is 2 to 3 s away.
        ("retry-after", date, Duration::from_secs(2), Duration::from_millis(3300)),
        ("x-amz-retry-after", "1500".into(), Duration::from_millis(1500), Duration::from_millis(1650)),
    ];
    for (name, value, at_least, at_most) in cases {
        let header = value.clone();
        let server =
            Server::start(
                move |hit, _| {
                    if hit == 1 {
                        Reply::with_header(429, name, header.clone())
                    } else {
                        Reply::ok()
                    }
                },
            )
            .await;
        let policy = RetryMiddleware::policy_for(backoff(3)).with_max_hint(Duration::from_secs(10));
        let (client, sleeper) = recorded(policy);
        let response = client.get(server.url("/busy")).send().await.unwrap();
        assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2), "{name}: {value}");
        let waited = sleeper.sleeps()[0];
        assert!(waited >= at_least && waited <= at_most, "{name}: {value}: waited {waited:?}");
    }
}

#[tokio::test]
async fn grpc_pushback_below_zero_means_do_not_retry() {
    let server = Server::start(|_, _| Reply::with_header(503, "grpc-retry-pushback-ms", "-1")).await;
    let (client, sleeper) = recorded(RetryMiddleware::policy_for(backoff(5)));
    let response = client.get(server.url("/")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!((report(&response).stopped, server.hits()), (Some(StopReason::HintTooLong), 1));
    assert!(sleeper.sleeps().is_empty());
}

#[tokio::test]
async fn hostile_retry_after_never_panics_nor_waits_past_the_limits() {
    let max_hint = Duration::from_secs(5);
    for value in
        ["99999999999", "18446744073709551616", "-1", "garbage", "1e9", "1.5", "", "Sun, 06 Nov 1994"]
    {
        let header = value.to_owned();
        let server = Server::start(move |_, _| Reply::with_header(503, "retry-after", header.clone())).await;
        let policy = RetryMiddleware::policy_for(backoff(3))
            .with_max_hint(max_hint)
            .with_deadline(Duration::from_secs(30))
            .unwrap();
        let (client, sleeper) = recorded(policy);
        let response = client.get(server.url("/")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE, "{value:?}");
        let report = report(&response);
        match value {
            "99999999999" | "18446744073709551616" => {
                assert_eq!((report.stopped, report.attempts), (Some(StopReason::HintTooLong), 1), "{value}");
                assert!(sleeper.sleeps().is_empty());
            }
            _ => {
                // Ignored: ordinary backoff, 10 then 20 ms.
                assert_eq!(
                    (report.stopped, report.attempts),
                    (Some(StopReason::AttemptsExhausted), 3),
                    "{value:?}"
                );
                assert_eq!(
                    sleeper.sleeps(),
                    [Duration::from_millis(10), Duration::from_millis(20)],
                    "{value:?}"
                );
            }
        }
        assert!(sleeper.sleeps().iter().all(|d| *d <= max_hint), "{value:?}");
        assert_eq!(server.hits(), report.attempts);
    }
}

#[tokio::test]
async fn a_post_that_is_not_retried_reports_why() {
    let server =
        Server::start(
            |_, method| {
                if method == ::reqwest::Method::POST {
                    Reply::status(503)
                } else {
                    Reply::ok()
                }
            },
        )
        .await;
    let (client, sleeper) = recorded(RetryMiddleware::policy_for(backoff(3)));
    let response = client.post(server.url("/pay")).body("{}").send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    let post = report(&response);
    assert_eq!((post.attempts, post.stopped), (1, Some(StopReason::NotRepeatable)));
    assert!(sleeper.sleeps().is_empty());
    // A success says nothing stopped it.
    let response = client.get(server.url("/pay")).send().await.unwrap();
    let get = report(&response);
    assert_eq!((response.status(), get.attempts, get.stopped), (StatusCode::OK, 1, None));
}

#[tokio::test]
async fn a_post_is_sent_once_unless_opted_in() {
    let server = Server::start(|_, _| Reply::status(503)).await;
    let (client, _) = recorded(RetryMiddleware::policy_for(backoff(3)));

    let response = client.post(server.url("/pay")).body("{}").send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    assert_eq!(report(&response).attempts, 1);

    // An Idempotency-Key makes the server recognise the repeat: retried.
    client.post(server.url("/pay")).header("Idempotency-Key", "order-17").body("{}").send().await.unwrap();
    assert_eq!(server.hits(), 1 + 3);
    // So does the caller's word for one request ...
    client.post(server.url("/pay")).with_extension(Idempotent).body("{}").send().await.unwrap();
    assert_eq!(server.hits(), 4 + 3);
    // ... or for every request.
    let sleeper = RecordingSleeper::new();
    let any = RetryMiddleware::new(backoff(3))
        .retry_non_idempotent(true)
        .with_timer(sleeper.clone(), sleeper.clock());
    client_with(any).patch(server.url("/pay")).body("{}").send().await.unwrap();
    assert_eq!(server.hits(), 7 + 3);
    // PUT and DELETE are idempotent.
    client.delete(server.url("/pay")).send().await.unwrap();
    assert_eq!(server.hits(), 10 + 3);
}

#[tokio::test]
async fn a_streaming_body_cannot_be_cloned_so_it_is_sent_once() {
    let server = Server::start(|_, _| Reply::status(503)).await;
    let (client, _) = recorded(RetryMiddleware::policy_for(backoff(3)));
    let body = ::reqwest::Body::wrap(EmptyStream);
    let response = client.put(server.url("/upload")).body(body).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
}

/// A streamed (so not cloneable) empty body.
struct EmptyStream;

impl hyper::body::Body for EmptyStream {
    type Data = bytes::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, std::io::Error>>> {
        std::task::Poll::Ready(None)
    }
}

#[tokio::test]
async fn a_hanging_endpoint_is_cut_by_the_attempt_timeout() {
    // Real time: a socket that never answers is cut by the clock, 150 ms here.
    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::ok() }).await;
    let timed_out = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&timed_out);
    let policy = RetryMiddleware::policy_for(backoff(3))
        .on_retry(move |event| {
            seen.lock().unwrap().push((event.attempt, event.failure.timed_out, format!("{}", event.error)));
        })
        .with_attempt_timeout(Duration::from_millis(150))
        .unwrap();
    let start = Instant::now();
    let response =
        client_with(RetryMiddleware::from_policy(policy)).get(server.url("/slow")).send().await.unwrap();
    let elapsed = start.elapsed();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2));
    assert!(elapsed >= Duration::from_millis(150) && elapsed < Duration::from_secs(5), "{elapsed:?}");
    // One cut attempt (two if a loaded machine cut the first before it reached the server).
    let events = timed_out.lock().unwrap().clone();
    assert!(!events.is_empty() && events.len() < 3, "{events:?}");
    assert_eq!((events[0].0, events[0].1), (1, true));
    assert!(
        events.iter().all(|(_, cut, message)| *cut && message.contains("timed out after 150ms")),
        "{events:?}"
    );

    // Every attempt hangs: the last error is the timeout, and the deadline
    // clips the attempts (2 x 150 ms would pass a 250 ms deadline).
    let server = Server::start(|_, _| Reply::Hang).await;
    let policy = RetryMiddleware::policy_for(backoff(5))
        .with_attempt_timeout(Duration::from_millis(150))
        .unwrap()
        .with_deadline(Duration::from_millis(250))
        .unwrap();
    let start = Instant::now();
    let err =
        client_with(RetryMiddleware::from_policy(policy)).get(server.url("/")).send().await.unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5));
    let source: &(dyn std::error::Error + 'static) = &err;
    let cause = match &err {
        reqwest_middleware::Error::Middleware(error) => error.downcast_ref::<TimedOut>().copied(),
        other => panic!("not a timeout: {other} / {source:?}"),
    };
    assert!(cause.is_some_and(|t| t.after <= Duration::from_millis(150)), "{err}");
    assert!(server.hits() <= 2, "hits {}", server.hits());
}

/// Counts the give-ups by reason.
#[derive(Clone, Default)]
struct GiveUps(Arc<Mutex<Vec<StopReason>>>);

impl GiveUps {
    /// A policy's give-up hook that counts here.
    fn hook(&self) -> impl Fn(&GiveUpEvent<'_, dyn std::fmt::Display + '_>) + Send + Sync + 'static {
        let give_ups = self.clone();
        move |event| give_ups.0.lock().unwrap().push(event.reason)
    }
}

#[tokio::test]
async fn a_shared_budget_stops_retries_when_the_server_is_down() {
    const REQUESTS: u32 = 40;
    let server = Server::start(|_, _| Reply::status(503)).await;
    // 20 tokens at 5 a retry: four retries in all, however many requests.
    let budget = TokenBucket::builder().with_capacity(20).build();
    let give_ups = GiveUps::default();
    let sleeper = RecordingSleeper::new();
    let policy =
        RetryMiddleware::policy_for(backoff(3)).with_budget(budget.clone()).on_give_up(give_ups.hook());
    let client =
        client_with(RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock()));
    let tasks: Vec<_> = (0..REQUESTS)
        .map(|_| {
            let (client, url) = (client.clone(), server.url("/down"));
            tokio::spawn(async move { client.get(url).send().await.unwrap().status() })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), StatusCode::SERVICE_UNAVAILABLE);
    }
    let metrics = staggered::Budget::metrics(&budget).unwrap();
    assert_eq!(metrics.allowed, 4);
    assert!(metrics.refused > 0, "{metrics:?}");
    assert_eq!(server.hits(), REQUESTS + 4, "without the budget: {}", REQUESTS * 3);
    let reasons = give_ups.0.lock().unwrap().clone();
    assert_eq!(reasons.len() as u32, REQUESTS);
    assert_eq!(reasons.iter().filter(|r| **r == StopReason::BudgetExhausted).count() as u64, metrics.refused);
}

#[tokio::test]
async fn a_plain_policy_and_a_configuration_files_retry_http_statuses() {
    // A policy with no classifier: the HTTP rules.
    let server = Server::start(|hit, _| if hit <= 2 { Reply::status(503) } else { Reply::ok() }).await;
    let sleeper = RecordingSleeper::new();
    let retry = RetryMiddleware::from_policy(RetryPolicy::new(backoff(5)))
        .with_timer(sleeper.clone(), sleeper.clock());
    let response = client_with(retry).get(server.url("/")).send().await.unwrap();
    assert_eq!((response.status(), report(&response).attempts), (StatusCode::OK, 3));

    // A configuration file's policy: its status lists and its timeout.
    let config = staggered::config::RetryConfig::from_toml_str(
        "[schedule]\nstrategy = \"exponential\"\nbase = \"10ms\"\nmax_attempts = 4\n\
         [limits]\nattempt_timeout = \"5s\"\n[classification]\nretry_statuses = [409]\nstop_statuses = [503]\n",
    )
    .unwrap();
    for (status, attempts) in [(503, 1), (409, 4), (500, 4), (404, 1)] {
        let server = Server::start(move |_, _| Reply::status(status)).await;
        let sleeper = RecordingSleeper::new();
        let retry = RetryMiddleware::from_policy(config.async_policy().unwrap())
            .with_timer(sleeper.clone(), sleeper.clock());
        let response = client_with(retry).get(server.url("/")).send().await.unwrap();
        assert_eq!((response.status().as_u16(), server.hits()), (status, attempts), "{status}");
    }
}

#[tokio::test]
async fn a_classifier_of_errors_keeps_the_http_rules_for_responses() {
    let server = Server::start(|hit, _| if hit <= 2 { Reply::status(503) } else { Reply::ok() }).await;
    let sleeper = RecordingSleeper::new();
    let policy =
        RetryPolicy::new(backoff(5)).classify(RetryIf(|e: &reqwest_middleware::Error| e.is_connect()));
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let response = client_with(retry).get(server.url("/")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 3), "a 503 is not a success");
}

#[tokio::test]
async fn an_ordinary_retry_after_is_honoured_past_a_short_max_delay() {
    // max_delay 100 ms; the server asks for a second, then two.
    let server = Server::start(|hit, _| match hit {
        1 => Reply::with_header(429, "retry-after", "1"),
        2 => Reply::with_header(503, "retry-after", "2"),
        _ => Reply::ok(),
    })
    .await;
    let sleeper = RecordingSleeper::new();
    let retry = RetryMiddleware::from_policy(RetryPolicy::new(backoff(5)))
        .with_timer(sleeper.clone(), sleeper.clock());
    let response = client_with(retry).get(server.url("/")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 3));
    let sleeps = sleeper.sleeps();
    assert!(sleeps[0] >= Duration::from_secs(1) && sleeps[1] >= Duration::from_secs(2), "{sleeps:?}");
    // A hint past a minute still stops, and so does one past the deadline.
    let server = Server::start(|_, _| Reply::with_header(429, "retry-after", "61")).await;
    let retry = RetryMiddleware::from_policy(RetryPolicy::new(backoff(5)))
        .with_timer(sleeper.clone(), sleeper.clock());
    let response = client_with(retry).get(server.url("/")).send().await.unwrap();
    assert_eq!(report(&response).stopped, Some(StopReason::HintTooLong));
    let server = Server::start(|_, _| Reply::with_header(429, "retry-after", "30")).await;
    let policy = RetryPolicy::new(backoff(5)).with_deadline(Duration::from_secs(10)).unwrap();
    let retry = RetryMiddleware::from_policy(policy).with_timer(sleeper.clone(), sleeper.clock());
    let response = client_with(retry).get(server.url("/")).send().await.unwrap();
    assert_eq!(report(&response).stopped, Some(StopReason::Deadline));
}

#[tokio::test]
async fn the_deadline_cuts_a_hanging_attempt_without_an_attempt_timeout() {
    // Real time: a server that never answers, a 300 ms deadline, no timeout.
    let server = Server::start(|_, _| Reply::Hang).await;
    let policy = RetryPolicy::new(backoff(5)).with_deadline(Duration::from_millis(300)).unwrap();
    let start = Instant::now();
    let err =
        client_with(RetryMiddleware::from_policy(policy)).get(server.url("/slow")).send().await.unwrap_err();
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(300) && elapsed < Duration::from_secs(3), "{elapsed:?}");
    let reqwest_middleware::Error::Middleware(cause) = &err else { panic!("not a timeout: {err}") };
    // The time left when the attempt started: the deadline, less the time to start it.
    let cut = cause.downcast_ref::<TimedOut>().expect("a timeout").after;
    assert!(cut > Duration::from_millis(250) && cut <= Duration::from_millis(300), "{cut:?}");
    assert_eq!(server.hits(), 1);
}

/// A client that hedges idempotent requests after 10 ms, at most `max` copies.
fn hedging_client(max: u32) -> ClientWithMiddleware {
    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(max).unwrap();
    client_with(RetryMiddleware::from_policy(RetryMiddleware::policy_for(backoff(5))).hedge(hedging))
}

#[tokio::test(start_paused = true)]
async fn a_hedged_get_takes_the_first_answer_and_reports_which_copy_it_was() {
    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::ok() }).await;
    let start = tokio::time::Instant::now();
    let response = hedging_client(3).get(server.url("/slow-once")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::OK, 2));
    let report = report(&response);
    assert_eq!((report.winner, report.attempts, report.stopped), (2, 2, None));
    assert_eq!(start.elapsed(), Duration::from_millis(10));
}

#[tokio::test(start_paused = true)]
async fn a_hedged_get_stops_every_copy_on_a_404_and_a_503_lets_them_go_on() {
    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::status(404) }).await;
    let response = hedging_client(5).get(server.url("/gone")).send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::NOT_FOUND, 2));
    assert_eq!(report(&response).stopped, Some(StopReason::Permanent));

    let server = Server::start(|hit, _| match hit {
        1 => Reply::Hang,
        2 => Reply::status(503),
        _ => Reply::ok(),
    })
    .await;
    let start = tokio::time::Instant::now();
    let response = hedging_client(3).get(server.url("/busy")).send().await.unwrap();
    assert_eq!((response.status(), report(&response).winner), (StatusCode::OK, 3));
    assert_eq!(start.elapsed(), Duration::from_millis(10), "copy 3 at once after the 503");
}

#[tokio::test(start_paused = true)]
async fn a_post_is_not_hedged_unless_marked_idempotent() {
    let server = Server::start(|hit, _| if hit == 1 { Reply::status(503) } else { Reply::ok() }).await;
    let response = hedging_client(3).post(server.url("/pay")).body("1 EUR").send().await.unwrap();
    assert_eq!((response.status(), server.hits()), (StatusCode::SERVICE_UNAVAILABLE, 1));
    assert_eq!(report(&response).stopped, Some(StopReason::NotRepeatable));

    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::ok() }).await;
    let response = hedging_client(3)
        .post(server.url("/pay"))
        .body("1 EUR")
        .with_extension(Idempotent)
        .send()
        .await
        .unwrap();
    assert_eq!((response.status(), report(&response).winner), (StatusCode::OK, 2));
}

#[tokio::test(start_paused = true)]
async fn a_hedged_get_sends_no_hedge_without_budget_and_stops_at_a_cancel_or_the_deadline() {
    let hedging = || staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    // A budget with nothing in it: the slow first copy is alone.
    let server = Server::start(|hit, _| if hit == 1 { Reply::Hang } else { Reply::ok() }).await;
    let empty = TokenBucket::builder().with_capacity(0).build();
    let policy =
        RetryMiddleware::policy_for(backoff(5)).with_budget(empty).with_deadline(Duration::from_secs(1));
    let retry = RetryMiddleware::from_policy(policy.unwrap()).hedge(hedging());
    let err = client_with(retry).get(server.url("/")).send().await.unwrap_err();
    assert!(err.to_string().contains("timed out"), "{err}");
    assert_eq!(server.hits(), 1, "no hedge without budget");

    // Every copy hangs: a cancel at 25 ms ends the request with all three sent.
    let server = Server::start(|_, _| Reply::Hang).await;
    let cancel_at = tokio::time::Instant::now() + Duration::from_millis(25);
    let retry = RetryMiddleware::from_policy(RetryMiddleware::policy_for(backoff(5)))
        .hedge(hedging())
        .cancel_on(move || tokio::time::sleep_until(cancel_at));
    let err = client_with(retry).get(server.url("/")).send().await.unwrap_err();
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert_eq!((tokio::time::Instant::now(), server.hits()), (cancel_at, 3));

    // The deadline cuts them all.
    let server = Server::start(|_, _| Reply::Hang).await;
    let start = tokio::time::Instant::now();
    let policy = RetryMiddleware::policy_for(backoff(5)).with_deadline(Duration::from_millis(25)).unwrap();
    let err = client_with(RetryMiddleware::from_policy(policy).hedge(hedging()))
        .get(server.url("/"))
        .send()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("timed out"), "{err}");
    assert_eq!((start.elapsed(), server.hits()), (Duration::from_millis(25), 3));
}
