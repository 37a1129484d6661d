//! nginx's `limit_req`: what the server admits, by its own access log, and
//! what the client's limiter makes of its answers.

use std::time::Duration;

use servers::driver::{drive, ClientPolicy, Load, Run};
use servers::matrix::{points, run_point, Server, Settings};
use servers::nginx::{most_per_second, LogLine, Nginx, NginxConfig, Rejection, BURST};
use servers::summary::summarize;
use staggered::limiter::AdaptiveMode;

use super::started;

/// The limit of the short runs, a second, and their length.
const RATE: u32 = 50;
const RUN: Duration = Duration::from_secs(5);
const CALLER: Duration = servers::driver::CALLER_TIMEOUT;

/// The most 200s nginx's leaky bucket logs in one whole second: the rate,
/// the burst, and one for a request admitted at each edge of the second.
const MOST_PER_SECOND: u64 = RATE as u64 + BURST as u64 + 1;

/// nginx's log once it holds a line for every answer the clients got
/// (it writes a line after sending the response).
async fn log_of(nginx: &Nginx, run: &Run) -> Vec<LogLine> {
    let answered = run.attempts.iter().filter(|a| a.status().is_some()).count();
    for _ in 0..250 {
        let log = nginx.access_log();
        if log.len() >= answered {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    nginx.access_log()
}

/// Each status as often in the client's attempts as in the server's log.
fn assert_counts_agree(run: &Run, log: &[LogLine], statuses: &[u16]) {
    for &status in statuses {
        let client = run.attempts.iter().filter(|a| a.status() == Some(status)).count();
        let server = log.iter().filter(|line| line.status == status).count();
        assert_eq!(client, server, "{status}s: the client saw {client}, nginx logged {server}");
    }
    assert_eq!(run.attempts.iter().filter(|a| a.status().is_some()).count(), log.len());
}

/// Four clients offering twice the limit, each with its own limiter.
async fn four_clients(nginx: &Nginx) -> Run {
    let load = Load::new(nginx.url("/object"), 4, 2.0 * f64::from(RATE), RUN);
    drive(&load, &ClientPolicy::adaptive(AdaptiveMode::Aws)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_turns_the_limiter_on_and_nginx_never_admits_past_its_limit_and_burst() {
    let Some(nginx) = started(Nginx::start(NginxConfig::new(RATE, Rejection::Status429))) else { return };
    let run = four_clients(&nginx).await;
    let log = log_of(&nginx, &run).await;
    assert_counts_agree(&run, &log, &[200, 429]);
    let summary = summarize(&run, Some(f64::from(RATE)));
    // The server throttled, and the limiters took it as throttling.
    assert!(summary.throttled > 0, "{summary:?}");
    assert!(run.limiter_throttles() > 0 && run.limiters.iter().any(|m| m.enabled), "{:?}", run.limiters);
    assert!(run.limiter_throttles() <= summary.throttled as u64);
    // The server's truth: never more than its limit and burst in a second.
    let most = most_per_second(&log, 200);
    assert!(most <= MOST_PER_SECOND, "nginx admitted {most} in one second");
    // Offered twice the limit, the limiters cut most throttles (measured:
    // about 5%; retries alone see over half), and the server is kept busy
    // (measured: 100% of the limit over the last half).
    assert!(summary.throttled_fraction < 0.25, "{summary:?}");
    assert!(summary.admitted_rate >= 0.75 * f64::from(RATE), "{summary:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_503_is_retried_and_nginx_never_admits_past_its_limit_and_burst() {
    let Some(nginx) = started(Nginx::start(NginxConfig::new(RATE, Rejection::Default503))) else { return };
    let run = four_clients(&nginx).await;
    let log = log_of(&nginx, &run).await;
    assert_counts_agree(&run, &log, &[200, 503]);
    let summary = summarize(&run, Some(f64::from(RATE)));
    assert!(summary.throttled > 0, "{summary:?}");
    // A 503 is transient: retried, so more attempts than requests.
    assert!(run.requests.iter().any(|r| r.attempts > 1), "no request was retried");
    assert!(summary.attempts > summary.requests, "{summary:?}");
    let most = most_per_second(&log, 200);
    assert!(most <= MOST_PER_SECOND, "nginx admitted {most} in one second");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_503_turns_the_limiter_on_when_the_policy_says_it_is_a_throttle() {
    let Some(nginx) = started(Nginx::start(NginxConfig::new(RATE, Rejection::Default503))) else { return };
    let load = Load::new(nginx.url("/object"), 4, 2.0 * f64::from(RATE), RUN);
    let policy = ClientPolicy::adaptive(AdaptiveMode::Aws).with_bare_503_as_throttle();
    let run = drive(&load, &policy).await.unwrap();
    assert!(run.limiter_throttles() > 0 && run.limiters.iter().all(|m| m.enabled), "{:?}", run.limiters);
    let summary = summarize(&run, Some(f64::from(RATE)));
    assert!(summary.throttled_fraction < 0.25, "{summary:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_s3_slow_down_turns_the_limiter_on() {
    let rate = 200;
    let Some(nginx) = started(Nginx::start(NginxConfig::new(rate, Rejection::SlowDown))) else { return };
    let load = Load::new(nginx.url("/bucket/key"), 16, 2.0 * f64::from(rate), RUN);
    let run = drive(&load, &ClientPolicy::adaptive(AdaptiveMode::Aws)).await.unwrap();
    let summary = summarize(&run, Some(f64::from(rate)));
    assert!(summary.throttled > 0, "{summary:?}");
    assert!(run.limiter_throttles() > 0 && run.limiters.iter().all(|m| m.enabled), "{:?}", run.limiters);
    assert!(summary.throttled_fraction < 0.25, "{summary:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_s3_style_endpoint_answers_a_throttled_request_with_slow_down() {
    let Some(nginx) = started(Nginx::start(NginxConfig::new(RATE, Rejection::SlowDown))) else { return };
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    // More at once than the burst admits: the excess is throttled.
    let sends = (0..2 * BURST).map(|_| client.get(nginx.url("/bucket/key")).send());
    let mut throttled = 0;
    for response in futures_join(sends).await {
        let response = response.unwrap();
        if response.status() == 503 {
            throttled += 1;
            let kind = response.headers()["content-type"].to_str().unwrap().to_owned();
            assert_eq!(kind, "application/xml");
            assert_eq!(response.text().await.unwrap(), servers::nginx::SLOW_DOWN_BODY);
        } else {
            assert_eq!((response.status().as_u16(), response.text().await.unwrap().as_str()), (200, "ok"));
        }
    }
    assert!(throttled > 0, "nothing was throttled");
}

/// Every future, run at once, their outputs in order.
async fn futures_join<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::new();
    for handle in handles {
        outputs.push(handle.await.unwrap());
    }
    outputs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "not yet: in 10 s runs the admitted rate falls far below the limit where one limiter \
            sees a large share of it (measured with aws: 46% of 200/s with 1 client, 11% of \
            1000/s with 1, 74% with 4, 9-10% with a shared limiter at 1000/s); about 4 minutes"]
async fn nginx_admits_within_5_percent_of_its_limit_at_every_point() {
    if started(Nginx::program()).is_none() {
        return;
    }
    let settings = Settings { run_length: Duration::from_secs(10), caller_timeout: CALLER, seed: 2015 };
    let mut misses = Vec::new();
    for point in points(AdaptiveMode::Aws) {
        let Server::Nginx(config) = point.server else { continue };
        if config.rejection != Rejection::Status429 {
            continue;
        }
        let result = run_point(&point, &settings).await.unwrap();
        let limit = point.limit.unwrap();
        let share = result.summary.admitted_rate / limit;
        if (share - 1.0).abs() > 0.05 {
            misses.push(format!("{}: {:.0}% of the limit", point.id, 100.0 * share));
        }
    }
    assert!(misses.is_empty(), "{misses:#?}");
}
