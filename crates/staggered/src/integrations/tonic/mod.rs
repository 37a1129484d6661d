//! Retries for tonic gRPC calls, by gRPC's retry design (A6) (feature
//! `tonic`).
//!
//! tonic has no retries of its own, and its requests cannot go through a
//! generic tower retry, because their bodies are streams. Here a call is
//! retried as tonic clients are used: for each attempt, a clone of the
//! client and a fresh request built from a copy of the message
//! ([`RetryPolicy::retry_grpc`](crate::RetryPolicy::retry_grpc)), on the one retry decision of every driver:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use staggered::{Preset, RetryPolicy, RetryThrottle};
//! use tonic_health::pb::health_client::HealthClient;
//! use tonic_health::pb::HealthCheckRequest;
//!
//! let throttle = RetryThrottle::new(); // gRPC's retry throttle: one per channel
//! let policy = RetryPolicy::new(Preset::Interactive.backoff())
//!     .with_budget(throttle.clone())
//!     .with_attempt_timeout(Duration::from_secs(2))? // each attempt's `grpc-timeout`
//!     .with_deadline(Duration::from_secs(10))?;
//! let channel = tonic::transport::Endpoint::from_static("http://127.0.0.1:50051").connect().await?;
//! let client = HealthClient::new(channel);
//! let message = HealthCheckRequest { service: "inventory".into() };
//! let reply = policy
//!     .retry_grpc(&client, message, |mut client, request| async move { client.check(request).await })
//!     .call()
//!     .await?;
//! println!("{:?}", reply.into_inner().status);
//! # Ok(())
//! # }
//! ```
//!
//! # What retries
//! A policy with no classifier of its own classifies a failed call's
//! [`Status`](::tonic::Status) by [`ClassifyGrpc`]:
//! - `UNAVAILABLE` retries, and `RESOURCE_EXHAUSTED` as throttling
//!   (gRPC's 429), which budgets may charge differently; other codes stop
//!   at once. The retryable codes are A6's `retryableStatusCodes`:
//!   `.classify(ClassifyGrpc::with_retryable_codes([..]))` sets them, and
//!   `DEADLINE_EXCEEDED` among them is a timeout to the budgets.
//! - The server's `grpc-retry-pushback-ms` is waited exactly, and the
//!   schedule starts over after it ([`HintPolicy::Pushback`](crate::HintPolicy::Pushback)); a negative
//!   or malformed value, or more than one, means "do not retry", and counts
//!   against gRPC's retry throttle ([`RetryThrottle`](crate::RetryThrottle)),
//!   as grpc-go counts it.
//! - The client's own time limit (the per-attempt timeout or the deadline,
//!   or a channel's `Endpoint::timeout`) is a timeout, whatever the codes.
//!
//! # Time
//! The deadline covers the whole call, waits included: the running attempt
//! is cut when it comes, and each attempt's `grpc-timeout` is the
//! per-attempt timeout cut to the time left, so the server gives up when
//! the client does. A cut attempt fails with `DEADLINE_EXCEEDED`, as gRPC
//! clients report a deadline.
//!
//! # Defaults
//! | part | default |
//! |---|---|
//! | classifier | the policy's; with none set, [`ClassifyGrpc::new`] |
//! | server pushback | waited exactly, then the schedule starts over ([`HintPolicy::Pushback`](crate::HintPolicy::Pushback)), unless the policy names another hint policy than the default |
//! | `max_hint` | the policy's if set, else at least one minute ([`SERVICE_MAX_HINT`](crate::SERVICE_MAX_HINT)), as in the HTTP integrations |
//! | `grpc-timeout` | the per-attempt timeout cut to the time left before the deadline; none without either |
//! | timer | tokio's; any sleeper and clock with [`GrpcRetrying::with_timer`] |
//!
//! tonic is built here with none of its default features (no transport,
//! codegen or TLS): its status, request and metadata types are all this
//! needs. Your own `Cargo.toml` chooses the transport.

mod call;
mod classify;

pub use call::{GrpcRetrying, GRPC_PREVIOUS_RPC_ATTEMPTS};
pub use classify::{pushback, ClassifyGrpc, ClassifyStatus, GRPC_RETRY_PUSHBACK};
