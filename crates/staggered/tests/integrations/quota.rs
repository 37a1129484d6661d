//! Announced quotas end to end: a server on 127.0.0.1 that admits 10
//! requests a second and says so in its headers, and a client whose
//! limiter paces to what it says. On paused tokio time, which the server's
//! windows share with the client's waits: nothing sleeps for real.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::reqwest::StatusCode;
use reqwest_middleware::ClientBuilder;
use staggered::limiter::AdaptiveLimiter;
use staggered::reqwest::{RetryMiddleware, RetryReport};
use staggered::sleep::TokioClock;
use staggered::{Backoff, Strategy};
use tokio::time::Instant;

use super::server::{Reply, Server};

/// The requests a window admits.
const LIMIT: u32 = 10;

/// How the server announces its quota.
#[derive(Clone, Copy, Debug)]
enum Fields {
    /// `RateLimit` and `RateLimit-Policy`.
    Ietf,
    /// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds to the reset).
    XRateLimit,
}

/// A server that admits `LIMIT` requests in each second since `start` (a
/// fixed window, as most APIs keep) and announces what is left, rounding
/// the time to the reset up to whole seconds as the headers require.
/// Returns it and the count of requests it throttled.
async fn limited_server(fields: Fields) -> (Server, Arc<Mutex<u32>>) {
    let start = Instant::now();
    let window = Arc::new(Mutex::new((0u64, 0u32)));
    let throttled = Arc::new(Mutex::new(0u32));
    let counted = Arc::clone(&throttled);
    let server = Server::start(move |_, _| {
        let elapsed = start.elapsed();
        let mut window = window.lock().unwrap();
        if window.0 != elapsed.as_secs() {
            *window = (elapsed.as_secs(), 0);
        }
        let admitted = window.1 < LIMIT;
        if admitted {
            window.1 += 1;
        } else {
            *counted.lock().unwrap() += 1;
        }
        let left = Duration::from_secs(elapsed.as_secs() + 1) - elapsed;
        let reset = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        let remaining = LIMIT - window.1;
        let headers = match fields {
            Fields::Ietf => vec![
                ("ratelimit", format!("\"default\";r={remaining};t={reset}")),
                ("ratelimit-policy", format!("\"default\";q={LIMIT};w=1")),
            ],
            Fields::XRateLimit => vec![
                ("x-ratelimit-limit", LIMIT.to_string()),
                ("x-ratelimit-remaining", remaining.to_string()),
                ("x-ratelimit-reset", reset.to_string()),
            ],
        };
        Reply::Status(if admitted { 200 } else { 429 }, headers)
    })
    .await;
    (server, throttled)
}

#[tokio::test(start_paused = true)]
async fn a_client_told_the_quota_meets_no_429_and_keeps_to_it() {
    for fields in [Fields::Ietf, Fields::XRateLimit] {
        let (server, throttled) = limited_server(fields).await;
        let limiter = AdaptiveLimiter::builder().build_with_clock(TokioClock).unwrap();
        let backoff = Backoff::builder(Strategy::Exponential).with_max_attempts(3).build().unwrap();
        let policy = RetryMiddleware::policy_for(backoff).with_rate_limiter(limiter.clone());
        let inner = ::reqwest::Client::builder().no_proxy().build().unwrap();
        let client = ClientBuilder::new(inner).with(RetryMiddleware::from_policy(policy)).build();
        let start = Instant::now();
        for _ in 0..100 {
            let response = client.get(server.url("/")).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{fields:?}");
            assert_eq!(response.extensions().get::<RetryReport>().unwrap().attempts, 1);
        }
        let elapsed = start.elapsed();
        assert_eq!(*throttled.lock().unwrap(), 0, "{fields:?}: no request was throttled");
        assert_eq!(server.hits(), 100);
        // Ten windows of ten: the last request goes in the tenth, 9 s in.
        assert!(elapsed >= Duration::from_secs(9), "{fields:?}: {elapsed:?}");
        // Paced, not stalled: the headers round the reset up to a second,
        // so the client may lose up to a second per window, no more.
        assert!(elapsed <= Duration::from_secs(20), "{fields:?}: {elapsed:?}");
        assert!(!limiter.is_enabled(), "{fields:?}: no throttle turned the limiter on");
    }
}
