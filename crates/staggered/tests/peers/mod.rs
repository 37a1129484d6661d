//! Each peer's default policy, built with this crate's API, against the
//! numbers the peer publishes in its own tests and docs: intervals, token
//! counts, hint waits. The sources, read at the commits named in each
//! module, are quoted by file; no code is copied.
//!
//! - `backon` (1.6.0), `backoff` (0.4.0), `tokio_retry` (0.3.2): the Rust
//!   crates' unit tests.
//! - `tower`: `TpsBudget`'s tests, on a mock clock.
//! - `aws`: botocore's retry behaviour 2.1 tests and smithy-rs's standard
//!   strategy and token bucket tests.
//! - `grpc`: grpc-go's retry throttling test, token by token, and its
//!   pushback cases; the jitter range of gRFC A6.
//! - `polly`: Polly.Contrib.WaitAndRetry's specs.
//! - `google`: google-http-java-client's `ExponentialBackOffTest`.
//! - `cenkalti`: cenkalti/backoff's `exponential_test.go`.
//!
//! The guide's "Coming from ..." chapter (`src/guide/coming-from.md`) explains
//! each mapping and every deliberate difference.

mod aws;
mod backoff;
mod backon;
mod cenkalti;
mod google;
mod grpc;
mod polly;
mod tokio_retry;
mod tower;

use std::sync::Mutex;
use std::time::Duration;

use staggered::{Failure, RetryPolicy, Schedule};

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// An error that carries its own classification, for scripted runs.
#[derive(Debug, Clone, Copy)]
pub struct Failed(pub Failure);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.kind.name())
    }
}

pub type Classify = fn(&Failed) -> Failure;

/// A policy whose errors classify themselves.
pub fn policy<S: Schedule>(schedule: S) -> RetryPolicy<S, Classify> {
    RetryPolicy::new(schedule).classify((|failed: &Failed| failed.0) as Classify)
}

/// Runs `policy` (blocking, on a recording sleeper) over an operation whose
/// attempt `n` fails with `script[n - 1]` and succeeds past the script.
/// Returns the waits the decision chose (zero waits included), and the
/// outcome: `Ok(attempts)` or `Err((reason, attempts))`.
pub fn run<S: Schedule>(
    policy: &RetryPolicy<S, Classify>,
    script: &[Failure],
) -> (Vec<Duration>, Result<u32, (staggered::StopReason, u32)>) {
    let waits = Mutex::new(Vec::new());
    let sleeper = staggered::test_util::RecordingSleeper::new();
    let outcome = policy
        .retry(|attempt| match script.get(attempt as usize - 1) {
            Some(failure) => Err(Failed(*failure)),
            None => Ok(()),
        })
        .on_retry(|event| waits.lock().unwrap().push(event.delay))
        .with_timer(&sleeper, &sleeper.clock())
        .run();
    let outcome = outcome.map(|done| done.attempts).map_err(|err| (err.reason(), err.attempts()));
    (waits.into_inner().unwrap(), outcome)
}
