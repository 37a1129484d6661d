//! A tonic gRPC call retried against a local server (gRPC's health
//! service, from tonic-health) that answers `UNAVAILABLE` once, then
//! `RESOURCE_EXHAUSTED` with a pushback of 300 ms, then `SERVING`: the first
//! is retried on the schedule, the pushback is waited exactly and starts the
//! schedule over, as gRPC's retry design (A6) says, and gRPC's retry throttle
//! counts every failure. Each attempt carries its time limit as
//! `grpc-timeout`, and each retry the attempts before it.
//!
//! `cargo run -p staggered --example tonic_retry --features tonic`

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use staggered::{Backoff, RetryPolicy, RetryThrottle, Strategy};
use tokio::net::TcpListener;
use tonic::codegen::tokio_stream;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Endpoint, Server};
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// A health service that is not ready for its first two calls.
#[derive(Default)]
struct WarmingUp {
    calls: AtomicU32,
}

#[tonic::async_trait]
impl Health for WarmingUp {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let metadata = request.metadata();
        let header = |key| metadata.get(key).and_then(|value| value.to_str().ok()).unwrap_or("-").to_owned();
        println!(
            "  server: call {call}, grpc-timeout {}, grpc-previous-rpc-attempts {}",
            header("grpc-timeout"),
            header("grpc-previous-rpc-attempts")
        );
        match call {
            1 => Err(Status::unavailable("warming up")),
            2 => {
                let mut busy = Status::resource_exhausted("too many checks");
                busy.metadata_mut().insert("grpc-retry-pushback-ms", "300".parse().expect("ASCII"));
                Err(busy)
            }
            _ => Ok(Response::new(HealthCheckResponse { status: ServingStatus::Serving.into() })),
        }
    }

    type WatchStream = tokio_stream::Empty<Result<HealthCheckResponse, Status>>;

    async fn watch(&self, _: Request<HealthCheckRequest>) -> Result<Response<Self::WatchStream>, Status> {
        Err(Status::unimplemented("watch"))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = format!("http://{}", listener.local_addr()?);
    let service = Arc::new(WarmingUp::default());
    let server = Server::builder()
        .serve_with_incoming(HealthServer::from_arc(Arc::clone(&service)), TcpIncoming::from(listener));
    tokio::spawn(server);

    // A6's backoff (initialBackoff 100 ms, multiplier 2, jitter 0.2 after
    // the cap of 1 s, maxAttempts 4) and its throttle, one per channel.
    let backoff = Backoff::builder(Strategy::Proportional)
        .with_base(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(1))
        .with_factor(0.2)
        .with_cap_mode(staggered::CapMode::Interval)
        .with_max_attempts(4)
        .build()?;
    let throttle = RetryThrottle::new();
    // No classifier: gRPC's rules (UNAVAILABLE, RESOURCE_EXHAUSTED as throttling).
    let policy = RetryPolicy::new(backoff)
        .with_budget(throttle.clone())
        .with_attempt_timeout(Duration::from_secs(2))?
        .with_deadline(Duration::from_secs(10))?
        .on_retry(|event| println!("client: {event}"));

    let client = HealthClient::new(Endpoint::from_shared(address)?.connect().await?);
    let message = HealthCheckRequest { service: String::new() };
    let start = Instant::now();
    let done = policy
        .retry_grpc(&client, message, |mut client, request| async move { client.check(request).await })
        .run()
        .await?;
    let status = ServingStatus::try_from(done.value.into_inner().status)?;
    println!(
        "client: {status:?} after {} attempts, waited {:?} ({:?} in all); throttle tokens left: {}",
        done.attempts,
        done.waited,
        start.elapsed(),
        throttle.tokens()
    );
    assert_eq!((status, done.attempts, service.calls.load(Ordering::SeqCst)), (ServingStatus::Serving, 3, 3));
    assert!(done.waited >= Duration::from_millis(380), "80 ms at least, then the 300 ms pushback");
    Ok(())
}
