//! The integration tests of `staggered`: one binary, one module per claim.
//!
//! - `schedules::properties`: every delay lies within `bounds()`, counts match
//!   `max_attempts`, and the cap holds, for any valid parameters (proptest).
//! - `schedules::distributions`: each jittered strategy draws from the
//!   distribution its formula documents (Kolmogorov-Smirnov, fixed seed).
//! - `schedules::published`: the presets reproduce google-http-java-client's
//!   table, the worked table of additive jitter and their published values
//!   exactly.
//! - `schedules::limits`: extreme parameters neither panic nor overflow, and
//!   bad parameters are rejected naming the field.
//! - `retry`: the blocking and async drivers: every stop reason, server hints
//!   (hostile ones too), deadlines and the error of a deadline cut, hooks,
//!   tracing, timeouts, polling, cancellation, and the budget and rate
//!   limiter after calls dropped at random points, all on a recording
//!   sleeper or paused tokio time.
//! - `budget`: exact token accounting under contention, the ratio budget's
//!   window on a mock clock, and a budget shared across operations.
//! - `limiter`: the adaptive limiter conserves tokens under contention,
//!   waits through the sleepers, and a dropped wait takes no token; an
//!   announced quota read from any header text never panics, and a
//!   `RateLimit` field reads as the tightest policy an exact oracle picks
//!   (proptest).
//! - `peers`: each peer's default policy built with this crate, against the
//!   numbers the peer publishes (backon, backoff, tokio-retry, tower, the AWS
//!   SDKs, gRPC, Polly, google-http-java-client, cenkalti/backoff).
//! - `integrations`: the reqwest middleware and the tower layer against a real
//!   HTTP server on 127.0.0.1 (flaky endpoints, server hints hostile or not,
//!   idempotency, attempt timeouts, shared budgets, polling, cancellation),
//!   gRPC calls through tonic against a real gRPC server on 127.0.0.1
//!   (status codes, pushbacks, `grpc-timeout`, cut attempts, a shared retry
//!   throttle, polling, cancellation), and configuration files in TOML and
//!   JSON.

mod budget;
mod integrations;
mod limiter;
mod peers;
mod retry;
mod schedules;
