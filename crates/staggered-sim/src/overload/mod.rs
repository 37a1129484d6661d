//! The `overload` scenario: a server loses half its capacity for five
//! seconds, and retries decide whether it comes back.
//!
//! Retries multiply load exactly when the server can least take it: an
//! overloaded server answers late, clients time out and retry, and the
//! retries keep it overloaded after the cause is gone, a metastable failure.
//! A retry budget bounds the extra load so the server can drain its queue.
//! [`run_overload`] simulates each [`OverloadPolicy`] of an
//! [`OverloadConfig`] and measures amplification, goodput and recovery in an
//! [`OverloadReport`], which reads itself ([`OverloadReport::paragraphs`])
//! and presents itself in the common shape ([`Present`](crate::Present)).
//!
//! # Reproducibility
//! A run draws from generators seeded by the experiment's seed: the first
//! attempts' arrivals and the server's service times and errors from
//! `(seed, stream)`, so every policy meets the same offered load (a paired
//! comparison), and each operation's jitter from `(seed, policy name,
//! operation index)`. Policies run on separate threads and each row is a
//! function of the configuration and its policy alone: the report is
//! bit-identical whatever the number of threads.

mod config;
mod error;
mod model;
mod policy;
mod reading;
mod report;
mod view;

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use staggered::{NoBudget, RetryThrottle};

pub use config::{
    OverloadConfig, OverloadConfigBuilder, Trigger, MAX_ATTEMPTS, MAX_DURATION, MAX_OPERATIONS,
};
pub use error::OverloadError;
pub use policy::OverloadPolicy;
pub use report::{OverloadReport, OverloadRow, OverloadSeries};

use crate::experiment::{Experiment, Progress, Work};

/// Runs every policy of the experiment, on up to
/// [`threads`](OverloadConfig::threads) worker threads.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::{run_overload, OverloadConfig, OverloadPolicy};
///
/// // The default scenario, shortened to 30 s.
/// let config = OverloadConfig::builder().with_duration(Duration::from_secs(30)).build()?;
/// let report = run_overload(&config);
/// let retry = report.row(OverloadPolicy::Retry).unwrap();
/// let budgeted = report.row(OverloadPolicy::TokenBucket).unwrap();
/// assert!(!retry.recovered); // a metastable failure
/// assert!(budgeted.recovered);
/// # Ok::<(), staggered_sim::OverloadError>(())
/// ```
///
/// # The model
/// Time is in milliseconds of virtual time (one engine time unit, as in
/// [`units`](crate::units)).
///
/// - **Clients.** Operations start as a Poisson stream at `arrival_rate`
///   (700 per second) for `duration` (60 s); the first attempt leaves at
///   once. Each operation is one library [`Decision`](staggered::Decision)
///   over its own jittered [`Delays`](staggered::Delays), limited by the
///   backoff's `max_attempts` and deadline (`max_attempts` 1 for
///   `no-retry`), and sharing the policy's budget with every other
///   operation: `record_request` once per operation, `on_success` on
///   success, `on_failure` on failure. The network takes no time: an attempt
///   reaches the server when it is sent and the response reaches the client
///   when the server finishes it.
/// - **Timeout.** If the response is not back `timeout` (100 ms) after the
///   attempt was sent (or, when the backoff has a deadline, the time left
///   before it, if shorter), the attempt fails with
///   [`Failure::timeout`](staggered::Failure::timeout) and the decision
///   retries after its delay or stops; a response that arrives later is
///   ignored.
/// - **Server.** One worker and a FIFO queue without limit. Service times
///   are exponential with mean `1 / service_rate` (1 ms). From the
///   trigger's start to its end the rate is `capacity` times lower (halved):
///   a service time is drawn when the service starts, at the rate in force
///   then, so a request in service when the rate changes keeps its draw.
///   The server serves every request, including those whose client has
///   timed out (the work is wasted), and answers each with an error
///   ([`Failure::TRANSIENT`](staggered::Failure::TRANSIENT), retried) with
///   probability `error_rate`.
/// - **Success.** An attempt succeeds when its response arrives within the
///   timeout and is not an error; the operation then ends successfully.
/// - **End.** No operation starts after `duration`; those still running are
///   followed to their outcome (their attempts are bounded), so that
///   `goodput` counts every operation's fate. The per-second series cover
///   `[0, duration)`.
///
/// What is measured, and the definitions of amplification, goodput and
/// recovery, are on [`OverloadRow`] and [`OverloadSeries`].
///
/// # Why retries without a budget never recover
/// At 700 requests per second a server of 1000 is 70% busy and answers in
/// about 3 ms. Halved, it gets 700 for a capacity of 500: the queue grows
/// by 200 a second, and within a quarter of a second a request waits longer
/// than the 100 ms timeout. From then on every attempt times out, every
/// operation makes all 3 attempts, and the server gets 2100 requests a
/// second: more than it can serve even once its capacity is back (1000).
/// The queue keeps growing after the trigger, so every attempt keeps timing
/// out, and the server, busy with requests nobody waits for, never catches
/// up. Nothing in that loop depends on the trigger any more: that is a
/// metastable failure. Without retries the backlog (about 1000 requests)
/// drains at 300 a second once the capacity is back. A budget refuses
/// retries once they are most of the traffic, so the load falls back to
/// about 700 and the queue drains as it does without retries.
///
/// The ratio budget allows retries up to 20% of the requests of the last
/// 10 s plus 10 a second, so at most about 1.21 times the load on average,
/// but it spends that in bursts: the balance saved while the server was
/// healthy (1400 retries, plus a reserve of 100) goes in the first second
/// or so of the trigger, and those withdrawals leave the window together
/// 10 s later, which allows a second burst (over 2x the offered load for a
/// second) that refills the queue. It recovers, but later than the
/// token bucket and the retry throttle.
pub fn run_overload(config: &OverloadConfig) -> OverloadReport {
    config.run()
}

impl Experiment for OverloadConfig {
    type Report = OverloadReport;

    /// Simulated seconds, [`buckets`](OverloadConfig::buckets) per policy: a
    /// run counts each second as its virtual clock passes it.
    fn work(&self) -> Work {
        Work { total: (self.buckets() * self.policies().len()) as u64, unit: "simulated seconds" }
    }

    fn run_with_progress(&self, progress: &Progress) -> OverloadReport {
        simulate_all(self, progress)
    }
}

/// Every policy, spread over threads.
fn simulate_all(config: &OverloadConfig, progress: &Progress) -> OverloadReport {
    let total = config.policies().len();
    let threads =
        config.threads().or_else(|| thread::available_parallelism().ok()).map_or(1, |n| n.get()).min(total);
    let mut rows: Vec<Option<OverloadRow>> = vec![None; total];
    let next = AtomicUsize::new(0);
    let claim = || {
        let claimed = next.fetch_add(1, Ordering::Relaxed);
        (claimed < total).then_some(claimed)
    };
    let (sender, receiver) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 1..threads {
            let (sender, claim) = (sender.clone(), &claim);
            scope.spawn(move || {
                while let Some(index) = claim() {
                    let row = simulate_policy(config, config.policies()[index], progress);
                    if sender.send((index, row)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut record = |(index, row): (usize, OverloadRow)| rows[index] = Some(row);
        while let Some(index) = claim() {
            record((index, simulate_policy(config, config.policies()[index], progress)));
            receiver.try_iter().for_each(&mut record);
        }
        receiver.iter().for_each(record);
    });
    let rows = rows.into_iter().map(|row| row.expect("every policy was simulated")).collect();
    OverloadReport::new(config.clone(), rows)
}

impl OverloadConfig {
    /// Simulates one policy on the calling thread: the same row
    /// [`run_overload`] reports for it, whether or not it is one of this
    /// configuration's policies.
    pub fn simulate(&self, policy: OverloadPolicy) -> OverloadRow {
        simulate_policy(self, policy, &Progress::default())
    }
}

/// One policy's run, with a fresh budget of the policy's kind.
fn simulate_policy(config: &OverloadConfig, policy: OverloadPolicy, progress: &Progress) -> OverloadRow {
    // The virtual clock the ratio budget reads; the run advances it.
    let clock = Cell::new(Duration::ZERO);
    let counts = match policy {
        OverloadPolicy::NoRetry | OverloadPolicy::Retry => {
            model::simulate(config, policy, &NoBudget, &clock, progress)
        }
        OverloadPolicy::TokenBucket => {
            model::simulate(config, policy, &config.token_bucket().build(), &clock, progress)
        }
        OverloadPolicy::Ratio => {
            let budget = config
                .ratio_budget()
                .build_with_clock(|| clock.get())
                .expect("the configuration checked the ratio budget");
            model::simulate(config, policy, &budget, &clock, progress)
        }
        OverloadPolicy::Throttle => {
            let (max_tokens, token_ratio) = config.retry_throttle();
            let budget = RetryThrottle::with_parameters(max_tokens, token_ratio)
                .expect("the configuration checked the retry throttle");
            model::simulate(config, policy, &budget, &clock, progress)
        }
    };
    OverloadRow::new(config, policy, counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    #[test]
    fn progress_counts_every_simulated_second_and_threads_do_not_matter() {
        let config = OverloadConfig::builder().with_duration(Duration::from_millis(20_500)).build().unwrap();
        assert_eq!(config.work(), Work { total: 21 * 5, unit: "simulated seconds" });
        let mut reports = Vec::new();
        for threads in [1, 2] {
            let config =
                config.to_builder().with_threads(NonZeroUsize::new(threads).unwrap()).build().unwrap();
            let progress = Progress::default();
            reports.push(config.run_with_progress(&progress));
            assert_eq!(progress.done(), config.work().total);
        }
        assert_eq!(reports[0].rows(), reports[1].rows());
        assert_eq!(config.simulate(OverloadPolicy::Ratio), reports[0].rows()[3]);
    }
}
