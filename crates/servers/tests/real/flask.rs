//! Flask-Limiter under gunicorn: its `X-RateLimit-*` headers reach the
//! limiter, which paces the client to them, and one gunicorn worker keeps
//! one quota for every client.

use std::time::Duration;

use servers::driver::{drive, ClientPolicy, Load};
use servers::flask::{FlaskLimiter, PER_SECOND, PER_SECOND_PATH};
use servers::summary::summarize;
use staggered::limiter::AdaptiveMode;

use super::started;

const RUN: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flask_limiters_headers_pace_one_client_to_its_quota() {
    let Some(flask) = started(tokio::task::block_in_place(FlaskLimiter::start)) else { return };
    let limit = f64::from(PER_SECOND);
    let load = Load::new(flask.url(PER_SECOND_PATH), 1, 2.0 * limit, RUN);
    let run = drive(&load, &ClientPolicy::adaptive(AdaptiveMode::Aws)).await.unwrap();
    let summary = summarize(&run, Some(limit));
    // Paced: attempts waited for the quota the headers announced, and far
    // fewer were throttled than the half of them an unpaced client offering
    // twice the quota meets (measured: 0% in 5 s runs, 11% in a 10 s run).
    assert!(run.limiter_waits() > 0, "{:?}", run.limiters);
    assert!(summary.throttled_fraction < 0.3, "{summary:?}");
    tokio::task::block_in_place(|| drop(flask));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_clients_meet_one_quota_and_each_is_paced() {
    let Some(flask) = started(tokio::task::block_in_place(FlaskLimiter::start)) else { return };
    let limit = f64::from(PER_SECOND);
    let load = Load::new(flask.url(PER_SECOND_PATH), 8, 2.0 * limit, RUN);
    let run = drive(&load, &ClientPolicy::adaptive(AdaptiveMode::Aws)).await.unwrap();
    let summary = summarize(&run, Some(limit));
    // One quota: the fixed windows of a second are not aligned with ours,
    // so one of our seconds holds at most two of theirs (eight quotas
    // would admit 160).
    assert!(summary.most_admitted_per_second <= 2 * PER_SECOND as usize, "{summary:?}");
    assert!(summary.admitted_rate <= 1.1 * limit, "{summary:?}");
    // Every client read the headers and waited for the quota.
    assert_eq!(run.limiters.len(), 8);
    assert!(run.limiters.iter().all(|m| m.waits > 0), "{:?}", run.limiters);
    tokio::task::block_in_place(|| drop(flask));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "not yet: one paced client uses well under Flask-Limiter's quota (measured: 39% of \
            20/s over the last half of a 10 s run, 92% in a 5 s one), as the throttles that \
            slip through (likely announcements overtaken by attempts in flight) cut its rate too"]
async fn one_paced_client_uses_its_quota_within_10_percent() {
    let Some(flask) = started(tokio::task::block_in_place(FlaskLimiter::start)) else { return };
    let limit = f64::from(PER_SECOND);
    let load = Load::new(flask.url(PER_SECOND_PATH), 1, 2.0 * limit, Duration::from_secs(10));
    let run = drive(&load, &ClientPolicy::adaptive(AdaptiveMode::Aws)).await.unwrap();
    let summary = summarize(&run, Some(limit));
    assert!(summary.admitted_rate >= 0.9 * limit, "{summary:?}");
    tokio::task::block_in_place(|| drop(flask));
}
