//! The retry drivers, on a mock clock or paused tokio time: nothing sleeps
//! (but for one real 10 s wait, which the test's cancel flag ends at once).

mod blocking;
mod cancel;
mod deadline_cut;
mod dropped;
mod future;
mod hedging;
mod hint_policies;
mod hints;
mod inference;
mod limits;
pub(crate) mod metrics;
mod polling;
pub(crate) mod probes;
mod properties;
mod question_mark;
mod tracing;

use std::fmt;
use std::time::Duration;

use staggered::{Backoff, Strategy};

/// An error with an optional HTTP status and `Retry-After` value.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpError {
    pub status: u16,
    pub retry_after: Option<&'static str>,
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)
    }
}

impl std::error::Error for HttpError {}

/// 100 ms, 200 ms, 400 ms, ... with no jitter, `attempts` calls in all.
pub fn exponential(attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(10))
        .with_max_attempts(attempts)
        .build()
        .unwrap()
}

/// Ten seconds between attempts, `attempts` calls in all.
pub fn every_10_s(attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Constant)
        .with_base(Duration::from_secs(10))
        .with_max_attempts(attempts)
        .build()
        .unwrap()
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
