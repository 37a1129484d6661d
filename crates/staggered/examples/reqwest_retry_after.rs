//! reqwest with the retry middleware against a local server that answers
//! `503` once, then `429 Too Many Requests` with `Retry-After: 1`: the
//! client retries the 503 on its schedule, waits at least the second the
//! server asked for (plus a little jitter), then succeeds. The schedule never
//! waits more than 500 ms on its own; the HTTP integrations still honour a
//! hint of seconds to a minute.
//!
//! `cargo run -p staggered --example reqwest_retry_after --features reqwest`

use std::convert::Infallible;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Response;
use hyper_util::rt::TokioIo;
use staggered::reqwest::{RetryMiddleware, RetryReport};
use staggered::{Backoff, RetryPolicy, Strategy, TokenBucket};
use tokio::net::TcpListener;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/quota", listener.local_addr()?);
    let hits = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&hits);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let service = service_fn(move |_| {
                    let hit = counter.fetch_add(1, Ordering::SeqCst) + 1;
                    let response = match hit {
                        1 => Response::builder().status(503).body(Full::new(Bytes::new())),
                        2 => Response::builder()
                            .status(429)
                            .header("retry-after", "1")
                            .body(Full::new(Bytes::new())),
                        _ => Response::builder().status(200).body(Full::new(Bytes::from("granted"))),
                    };
                    async move { Ok::<_, Infallible>(response.expect("valid response")) }
                });
                let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });

    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(100))
        .with_max_delay(Duration::from_millis(500))
        .with_max_attempts(4)
        .build()?;
    // No classifier: the HTTP rules (408, 429, 5xx and their hints).
    let policy = RetryPolicy::new(backoff)
        .with_budget(TokenBucket::new())
        .with_deadline(Duration::from_secs(10))?
        .on_retry(|event| println!("{event}"));
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::builder().no_proxy().build()?)
        .with(RetryMiddleware::from_policy(policy))
        .build();

    let start = Instant::now();
    let response = client.get(&url).send().await?;
    let report = *response.extensions().get::<RetryReport>().expect("the middleware reports");
    let elapsed = start.elapsed();
    println!(
        "{} after {} attempts, waited {:?} ({elapsed:?} in all): {}",
        response.status(),
        report.attempts,
        report.waited,
        response.text().await?
    );
    assert_eq!((report.attempts, hits.load(Ordering::SeqCst)), (3, 3));
    assert!(report.waited >= Duration::from_secs(1), "the server asked for a second");
    Ok(())
}
