//! The `throttling` scenario: a fleet offers more than a rate-limited server
//! admits, and the AWS SDKs' adaptive mode learns to send what it admits.
//!
//! A throttled client does not have an outage to ride out: it sends faster
//! than the server admits, so every attempt, first attempts included,
//! competes for too little capacity, and backing off between the retries of
//! one operation does nothing about the next operation's first attempt.
//! [`run_throttling`] simulates each [`ThrottlingPolicy`] of a
//! [`ThrottlingConfig`] and measures throttling, goodput, client-side waits
//! and the rate the fleet settles at in a [`ThrottlingReport`], which reads
//! itself ([`ThrottlingReport::paragraphs`]) and presents itself in the
//! common shape ([`Present`](crate::Present)).
//!
//! # Reproducibility
//! Each client's arrivals come from a generator seeded by `(seed, client)`
//! and each operation's jitter from `(seed, client, operation index)`,
//! without the policy: every policy meets the same offered load, and an
//! operation draws the same delays under each (a paired comparison).
//! Policies run on separate threads and each row is a function of the
//! configuration and its policy alone: the report is bit-identical whatever
//! the number of threads.

mod config;
mod error;
mod model;
mod policy;
mod reading;
mod report;
mod view;

use std::cell::Cell;
use std::thread;
use std::time::Duration;

pub use config::{
    ThrottlingConfig, ThrottlingConfigBuilder, MAX_THROTTLING_CLIENTS, MAX_THROTTLING_HOP,
    MAX_THROTTLING_OPERATIONS,
};
pub use error::ThrottlingError;
pub use policy::ThrottlingPolicy;
pub use report::{ThrottlingReport, ThrottlingRow, ThrottlingSeries};

use crate::experiment::{Experiment, Progress, Work};

/// Runs every policy of the experiment, on up to
/// [`threads`](ThrottlingConfig::threads) worker threads.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::{run_throttling, ThrottlingConfig, ThrottlingPolicy};
///
/// // A small fleet offering twice the limit, for 20 s.
/// let config = ThrottlingConfig::builder()
///     .with_clients(4)
///     .with_arrival_rate(200.0)
///     .with_rate_limit(100.0)
///     .with_duration(Duration::from_secs(20))
///     .with_policies([ThrottlingPolicy::Retry, ThrottlingPolicy::Adaptive])
///     .build()?;
/// let report = run_throttling(&config);
/// let retry = report.row(ThrottlingPolicy::Retry).unwrap();
/// let adaptive = report.row(ThrottlingPolicy::Adaptive).unwrap();
/// assert!(adaptive.throttled_fraction < retry.throttled_fraction / 2.0);
/// # Ok::<(), staggered_sim::ThrottlingError>(())
/// ```
///
/// # The model
/// Time is in milliseconds of virtual time (one engine time unit, as in
/// [`units`](crate::units)).
///
/// - **Clients.** `clients` (20) clients each start operations as a
///   Poisson stream at `arrival_rate / clients` per second (1000 per second
///   in all) for `duration` (60 s). Each operation is one library
///   [`Decision`](staggered::Decision) over its own jittered
///   [`Delays`](staggered::Delays), limited by the backoff's `max_attempts`
///   and deadline (`max_attempts` 1 for `no-retry`). The standard and
///   adaptive modes give each client its own retry quota (a
///   [`TokenBucket`](staggered::TokenBucket)): `on_success` on success,
///   `on_failure` with [`Failure::THROTTLED`](staggered::Failure::THROTTLED)
///   on a throttle.
/// - **Limiter.** Under `adaptive` each client has one
///   [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter) on the
///   simulation's clock. Every attempt, first or retry, joins the client's
///   queue and leaves it, first come first served, when
///   [`try_acquire`](staggered::limiter::AdaptiveLimiter::try_acquire) gives
///   it a token; when it says to wait, the client asks again after that
///   wait. Every response is recorded with
///   [`record_response`](staggered::limiter::AdaptiveLimiter::record_response).
///   Until the first throttle the limiter is off and nothing waits.
/// - **Network.** A message takes one `hop` (10 ms) each way.
/// - **Server.** It admits at most `rate_limit` (500) requests per second:
///   a token bucket refilled at that rate, holding one second of tokens (at
///   least one), full at the start. A request that finds a token is served
///   at once and succeeds; one that finds none is answered at once as
///   throttled. Either answer reaches the client one hop later.
/// - **End.** Nothing happens after `duration`: an operation still waiting
///   or in flight then is unfinished (offered, not succeeded), and waits
///   still under way count up to the end.
///
/// What is measured is on [`ThrottlingRow`] and [`ThrottlingSeries`].
///
/// # What to expect
/// With twice the limit offered, half the operations at most can succeed,
/// whatever the policy. Without retries about half the attempts are
/// throttled. Retries do not add goodput, only attempts: each throttled
/// operation tries again into a server that is still full, so most
/// attempts are throttled. The standard mode's quota soon runs dry and
/// refuses most retries. The adaptive mode cuts each client's rate on every
/// throttle and grows it back along a cubic curve, so the fleet settles
/// near the limit and few attempts are throttled; what the server cannot
/// take waits at the clients instead.
pub fn run_throttling(config: &ThrottlingConfig) -> ThrottlingReport {
    config.run()
}

impl Experiment for ThrottlingConfig {
    type Report = ThrottlingReport;

    /// Simulated seconds, [`buckets`](ThrottlingConfig::buckets) per policy.
    fn work(&self) -> Work {
        Work { total: (self.buckets() * self.policies().len()) as u64, unit: "simulated seconds" }
    }

    fn run_with_progress(&self, progress: &Progress) -> ThrottlingReport {
        let policies = self.policies();
        let threads = self
            .threads()
            .or_else(|| thread::available_parallelism().ok())
            .map_or(1, |n| n.get())
            .clamp(1, policies.len());
        // Policy `i` runs on thread `i % threads`; rows go back in order.
        let mut rows: Vec<Option<ThrottlingRow>> = vec![None; policies.len()];
        thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|worker| {
                    scope.spawn(move || {
                        (worker..policies.len())
                            .step_by(threads)
                            .map(|i| (i, simulate_policy(self, policies[i], progress)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for worker in workers {
                for (i, row) in worker.join().expect("a policy's run does not panic") {
                    rows[i] = Some(row);
                }
            }
        });
        let rows = rows.into_iter().map(|row| row.expect("every policy was simulated")).collect();
        ThrottlingReport::new(self.clone(), rows)
    }
}

impl ThrottlingConfig {
    /// Simulates one policy on the calling thread: the same row
    /// [`run_throttling`] reports for it, whether or not it is one of this
    /// configuration's policies.
    pub fn simulate(&self, policy: ThrottlingPolicy) -> ThrottlingRow {
        simulate_policy(self, policy, &Progress::default())
    }
}

/// One policy's run, with fresh quotas and limiters.
fn simulate_policy(
    config: &ThrottlingConfig,
    policy: ThrottlingPolicy,
    progress: &Progress,
) -> ThrottlingRow {
    let clock = Cell::new(Duration::ZERO);
    let counts = model::simulate(config, policy, &clock, progress);
    ThrottlingRow::new(config, policy, counts)
}
