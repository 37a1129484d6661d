//! A tower stack: retries with the HTTP rules (a policy with no classifier
//! applies them to HTTP responses), idempotent requests only, a budget, a
//! deadline and a log line per retry, around a backend that is down
//! twice.
//!
//! `cargo run -p staggered --example tower_stack --features tower,http`

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http::{Request, Response, StatusCode};
use staggered::http::IdempotentOnly;
use staggered::tower::RetryLayer;
use staggered::{Backoff, RetryPolicy, Strategy, TokenBucket};
use tower::{service_fn, BoxError, Service, ServiceBuilder, ServiceExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    // The backend: 503 twice (the second time with Retry-After: 0), then 200.
    let hits = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&hits);
    let backend = service_fn(move |request: Request<String>| {
        let hit = counter.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            let response = match hit {
                1 => Response::builder().status(503).body(String::new()),
                2 => Response::builder().status(503).header("retry-after", "0").body(String::new()),
                _ => Response::builder().status(200).body(format!("hello from {}", request.uri())),
            };
            Ok::<_, BoxError>(response?)
        }
    });

    let backoff = Backoff::builder(Strategy::Decorrelated)
        .with_base(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(100))
        .with_max_attempts(4)
        .build()?;
    let policy = RetryPolicy::new(backoff) // 503, 429, 408: retry, with their Retry-After
        .with_budget(TokenBucket::new())
        .with_deadline(Duration::from_secs(2))?
        .on_retry(|event| println!("{event}")); // attempt 1/4 failed (HTTP 503 Service Unavailable); ...
    let mut service = ServiceBuilder::new()
        .layer(RetryLayer::new(policy).clone_requests_with(IdempotentOnly::new()))
        .service(backend);

    let response = service.ready().await?.call(Request::get("/greeting").body(String::new())?).await?;
    println!("{} {:?} after {} hits", response.status(), response.body(), hits.load(Ordering::SeqCst));
    assert_eq!((response.status(), hits.load(Ordering::SeqCst)), (StatusCode::OK, 3));

    // A POST is not idempotent: sent once, its failure returned as it came.
    hits.store(0, Ordering::SeqCst);
    let response = service.ready().await?.call(Request::post("/orders").body("{}".to_owned())?).await?;
    println!("POST: {} after {} hit", response.status(), hits.load(Ordering::SeqCst));
    assert_eq!((response.status(), hits.load(Ordering::SeqCst)), (StatusCode::SERVICE_UNAVAILABLE, 1));
    Ok(())
}
