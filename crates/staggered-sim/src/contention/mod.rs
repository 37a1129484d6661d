//! The `contention` scenario: the experiment of the AWS Architecture Blog's
//! "Exponential Backoff And Jitter" (2015), many clients racing to update
//! one row with optimistic concurrency.
//!
//! [`run_contention`] simulates every (client count, strategy, run) of a
//! [`ContentionConfig`] and averages the runs of each point into a
//! [`ContentionReport`], which reads itself ([`Reading`],
//! [`ContentionReport::paragraphs`]) and presents itself in the common shape
//! ([`Present`](crate::Present)).
//!
//! # Reproducibility
//! Every run draws from generators seeded by `(seed, client count, strategy
//! name, run index)` alone, and the runs of a point are combined in run
//! order. The report is therefore bit-identical for the same configuration,
//! whatever the number of threads and whatever other points it contains.

mod config;
mod error;
mod model;
mod reading;
mod report;
mod strategy;
mod view;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

pub use config::{ContentionConfig, ContentionConfigBuilder, MAX_CLIENTS, MAX_CLIENT_PAIRS, MAX_TOTAL_RUNS};
pub use error::ContentionError;
pub use model::RunOutcome;
pub use reading::{Place, Ranking, Reading, NOISE_Z, PUBLISHED_CLIENTS};
pub use report::{ContentionReport, ContentionRow};
pub use strategy::ContentionStrategy;

use staggered::Backoff;

use crate::experiment::{Experiment, Progress, Work};
use crate::rng::{derive, name_id};
use crate::Summary;
use model::Scratch;

/// Runs the experiment on [`threads`](ContentionConfig::threads) worker
/// threads and summarises it.
///
/// ```
/// use staggered_sim::{run_contention, ContentionConfig, ContentionStrategy};
///
/// let config = ContentionConfig::builder().with_clients([20]).with_runs(10).build()?;
/// let report = run_contention(&config);
/// let none = report.row(20, ContentionStrategy::NoBackoff).unwrap();
/// assert_eq!(none.runs(), 10);
/// assert!(none.mean_calls() >= 20.0); // every client writes successfully once
/// # Ok::<(), staggered_sim::ContentionError>(())
/// ```
///
/// # The model, exactly
/// The published Python simulator queues *message arrivals*. With every hop
/// an independent draw from `abs(Normal(10, 2))`:
///
/// 1. At time 0 every client sends a read: it arrives at the server one hop later.
/// 2. When a read arrives, the server answers with the row's version *at that
///    instant*; the answer reaches the client one hop later.
/// 3. When the answer arrives the client sends a write carrying that version;
///    it reaches the server one hop later.
/// 4. When a write arrives it counts as one call. If its version equals the
///    row's, the version is incremented and the write succeeds; otherwise it
///    fails. The reply reaches the client one hop later.
/// 5. On a failed reply the client's failure count `n` goes up by one and it
///    sends a new read after `backoff(n)`: the read arrives at the server
///    `backoff(n) + hop` after the reply (the Python code schedules it at
///    `tm + net.delay() + backoff(n)`). On a successful reply the client stops.
///
/// The completion time is the time of the last event: the arrival of the
/// last write reply. Reads are not counted as calls.
///
/// ## Only the server's arrivals are queued
/// A client reacts to a reply the instant it arrives, and only its own state
/// decides how (steps 3 and 5), so a reply's arrival need not be an event of
/// its own: the server's read schedules the write's arrival two hops later,
/// and the server's write schedules the next read's arrival at the reply
/// time (`now` plus a hop) plus a hop plus `backoff(n)`, with `n` the
/// client's own failure count. Every hop is still drawn, the server sees the
/// same arrivals at the same times, and the last reply's arrival is kept as
/// the completion time. This halves the queue traffic, the simulator's main
/// cost; each client always has exactly one message in flight, so each event
/// is replaced in the queue by its follow-up ([`Engine::step`](crate::Engine::step)).
///
/// The backoff parameters and how they map onto the library's schedules are
/// on [`ContentionStrategy::backoff`].
pub fn run_contention(config: &ContentionConfig) -> ContentionReport {
    config.run()
}

impl Experiment for ContentionConfig {
    type Report = ContentionReport;

    /// Clients, summed over every point and run
    /// ([`total_clients`](ContentionConfig::total_clients)): a run counts
    /// each client as its write succeeds, so a single long run shows
    /// progress too.
    fn work(&self) -> Work {
        Work { total: self.total_clients(), unit: "clients" }
    }

    fn run_with_progress(&self, progress: &Progress) -> ContentionReport {
        simulate_all(self, progress)
    }
}

/// Every run of the experiment, spread over threads, then summarised.
fn simulate_all(config: &ContentionConfig, progress: &Progress) -> ContentionReport {
    let total = config.total_runs();
    let runs = config.runs() as usize;
    let mut outcomes = vec![RunOutcome { calls: 0, time: 0.0, gave_up: 0 }; total];
    let threads =
        config.threads().or_else(|| thread::available_parallelism().ok()).map_or(1, |n| n.get()).min(total);

    // Jobs are claimed heaviest client count first, so the last jobs, which
    // decide when the slowest thread finishes, are the cheap ones.
    let mut cells: Vec<usize> = (0..total / runs).collect();
    let strategies = config.strategies().len();
    cells.sort_by_key(|&cell| std::cmp::Reverse(config.clients()[cell / strategies]));
    let job = |claimed: usize| cells[claimed / runs] * runs + claimed % runs;

    let next = AtomicUsize::new(0);
    let claim = || {
        let claimed = next.fetch_add(1, Ordering::Relaxed);
        (claimed < total).then(|| job(claimed))
    };
    let (sender, receiver) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 1..threads {
            let (sender, claim) = (sender.clone(), &claim);
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                while let Some(index) = claim() {
                    let outcome = simulate_job(config, &mut scratch, index, progress);
                    if sender.send((index, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // The calling thread simulates too. Outcomes land in their run's
        // slot, so arrival order does not matter.
        let mut record = |(index, outcome): (usize, RunOutcome)| outcomes[index] = outcome;
        let mut scratch = Scratch::default();
        while let Some(index) = claim() {
            record((index, simulate_job(config, &mut scratch, index, progress)));
            receiver.try_iter().for_each(&mut record);
        }
        receiver.iter().for_each(record);
    });
    ContentionReport::new(config.clone(), summarise(config, &outcomes))
}

/// The job with this index: runs are numbered within cells, cells are
/// (client count, strategy) pairs, client counts major.
fn simulate_job(
    config: &ContentionConfig,
    scratch: &mut Scratch,
    index: usize,
    progress: &Progress,
) -> RunOutcome {
    let runs = config.runs() as usize;
    let strategies = config.strategies().len();
    let (cell, run) = (index / runs, index % runs);
    let clients = config.clients()[cell / strategies];
    let strategy = cell % strategies;
    let seed = run_seed(config.seed(), clients, config.strategies()[strategy], run as u32);
    model::simulate(
        scratch,
        clients,
        &config.schedules()[strategy],
        (config.hop_mean(), config.hop_sd()),
        seed,
        progress,
    )
}

/// The seed of one run: a function of its coordinates and nothing else.
fn run_seed(seed: u64, clients: u32, strategy: ContentionStrategy, run: u32) -> u64 {
    derive(&[seed, u64::from(clients), name_id(strategy.name()), u64::from(run)])
}

impl ContentionConfig {
    /// Simulates run number `run` (from 0) of one point on the calling thread:
    /// the same outcome [`run_contention`] averages into that point. `None`
    /// if `strategy` is not one of this configuration's, or `clients` is not
    /// in `1..=`[`MAX_CLIENTS`].
    pub fn simulate(&self, clients: u32, strategy: ContentionStrategy, run: u32) -> Option<RunOutcome> {
        if !(1..=MAX_CLIENTS).contains(&clients) {
            return None;
        }
        let index = self.strategies().iter().position(|&s| s == strategy)?;
        let seed = run_seed(self.seed(), clients, strategy, run);
        let hop = (self.hop_mean(), self.hop_sd());
        let progress = Progress::default();
        Some(model::simulate(
            &mut Scratch::default(),
            clients,
            &self.schedules()[index],
            hop,
            seed,
            &progress,
        ))
    }
}

impl ContentionConfig {
    /// Simulates one run of `clients` clients that all walk `backoff`, any
    /// schedule of the library rather than one of this configuration's
    /// strategies, on this configuration's network, with every generator
    /// derived from `seed`, on the calling thread; each client is added to
    /// `progress` when it is done. [`simulate`](ContentionConfig::simulate)
    /// is this with a strategy's schedule and its run's seed. `None` if
    /// `clients` is not in `1..=`[`MAX_CLIENTS`].
    ///
    /// ```
    /// use staggered::{Backoff, Strategy};
    /// use staggered_sim::{ContentionConfig, Progress};
    ///
    /// let config = ContentionConfig::published();
    /// let backoff = Backoff::builder(Strategy::Full).without_max_attempts().build()?;
    /// let outcome = config.simulate_schedule(10, &backoff, 7, &Progress::default()).unwrap();
    /// assert!(outcome.calls >= 10);
    /// # Ok::<(), staggered::ConfigError>(())
    /// ```
    pub fn simulate_schedule(
        &self,
        clients: u32,
        backoff: &Backoff,
        seed: u64,
        progress: &Progress,
    ) -> Option<RunOutcome> {
        if !(1..=MAX_CLIENTS).contains(&clients) {
            return None;
        }
        let hop = (self.hop_mean(), self.hop_sd());
        Some(model::simulate(&mut Scratch::default(), clients, backoff, hop, seed, progress))
    }
}

/// One row per cell, combining its runs in run order.
fn summarise(config: &ContentionConfig, outcomes: &[RunOutcome]) -> Vec<ContentionRow> {
    let runs = config.runs() as usize;
    let strategies = config.strategies();
    outcomes
        .chunks_exact(runs)
        .enumerate()
        .map(|(cell, runs)| {
            let summary = |value: fn(&RunOutcome) -> f64| {
                Summary::of(runs.iter().map(value)).expect("runs is at least 1")
            };
            ContentionRow {
                clients: config.clients()[cell / strategies.len()],
                strategy: strategies[cell % strategies.len()],
                calls: summary(|o| o.calls as f64),
                time: summary(|o| o.time),
                gave_up: runs.iter().map(|o| u64::from(o.gave_up)).sum(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    #[test]
    fn progress_counts_every_client_of_every_run_and_threads_do_not_matter() {
        let config = ContentionConfig::builder().with_clients([5, 10]).with_runs(3).build().unwrap();
        let mut reports = Vec::new();
        for threads in [1, 2] {
            let config =
                config.to_builder().with_threads(NonZeroUsize::new(threads).unwrap()).build().unwrap();
            let progress = Progress::default();
            reports.push(config.run_with_progress(&progress));
            assert_eq!(config.work(), Work { total: 15 * 5 * 3, unit: "clients" });
            assert_eq!(progress.done(), config.work().total);
        }
        assert_eq!(reports[0].rows(), reports[1].rows());
    }

    #[test]
    fn simulate_matches_the_report() {
        let config = ContentionConfig::builder().with_clients([8]).with_runs(1).build().unwrap();
        let report = run_contention(&config);
        for row in report.rows() {
            let outcome = config.simulate(8, row.strategy, 0).unwrap();
            assert_eq!((outcome.calls as f64, outcome.time), (row.calls.mean, row.time.mean));
        }
        let smooth = ContentionStrategy::Backoff(staggered::Strategy::Smooth);
        assert_eq!(config.simulate(8, smooth, 0), None);
        // Any schedule runs as a strategy's does, given the same seed.
        let full = ContentionStrategy::Backoff(staggered::Strategy::Full);
        let at = config.strategies().iter().position(|&s| s == full).unwrap();
        let seed = run_seed(config.seed(), 8, full, 0);
        let progress = Progress::default();
        let outcome = config.simulate_schedule(8, &config.schedules()[at], seed, &progress);
        assert_eq!(outcome, config.simulate(8, full, 0));
        assert_eq!(progress.done(), 8);
        assert_eq!(config.simulate_schedule(0, &config.schedules()[at], seed, &progress), None);
        assert_eq!(config.simulate(0, ContentionStrategy::NoBackoff, 0), None);
    }
}
