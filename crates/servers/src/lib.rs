//! Real servers in the loop (unpublished): staggered's reqwest middleware
//! and its adaptive limiter against servers that really rate-limit,
//! started on 127.0.0.1 at free ports as guarded child processes.
//!
//! - [`nginx`]: nginx's `limit_req` answering 429, its default 503, or an
//!   S3-style `SlowDown`.
//! - [`flask`]: Flask-Limiter under gunicorn, announcing its quota in
//!   `X-RateLimit-*` headers.
//! - [`stalling`]: a server in process whose slow tail a hedge is for.
//! - [`driver`]: N clients offering Poisson arrivals through
//!   `RetryMiddleware`, and [`record`] of each attempt and request;
//!   [`summary`] turns a run into its figures and [`matrix`] lists the
//!   benchmark's points (`cargo run --release -p servers -- matrix`).
//!
//! A server whose program is not installed says so
//! ([`StartError::Missing`](process::StartError::Missing), with the
//! command that installs it); the tests then say they are skipped, except
//! under CI (`CI` set), where it is a failure.

pub mod driver;
pub mod flask;
pub mod matrix;
pub mod nginx;
pub mod process;
pub mod record;
pub mod stalling;
pub mod summary;
