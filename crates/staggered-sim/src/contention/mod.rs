//! The `contention` scenario: SPEC section 8, the 2015 experiment of many
//! clients racing to update one row with optimistic concurrency.
//!
//! [`run_contention`] simulates every (client count, strategy, run) of a
//! [`ContentionConfig`] and averages the runs of each point into a
//! [`ContentionReport`].
//!
//! # Reproducibility
//! Every run draws from generators seeded by `(seed, client count, strategy
//! name, run index)` alone, and the runs of a point are combined in run
//! order. The report is therefore bit-identical for the same configuration,
//! whatever the number of threads and whatever other points it contains.

mod config;
mod error;
mod model;
mod strategy;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

pub use config::{ContentionConfig, ContentionConfigBuilder, MAX_CLIENTS};
pub use error::ContentionError;
pub use model::RunOutcome;
pub use strategy::ContentionStrategy;

use crate::report::{ContentionReport, ContentionRow, Summary};
use crate::rng::{derive, name_id};
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
/// # The model, exactly (SPEC section 8)
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
    run_contention_with_progress(config, &|_, _| {})
}

/// [`run_contention`], calling `progress(done, total)` as runs complete, with
/// `done` counting up by one from 1 to `total`, for a progress bar.
///
/// `progress` is called on the calling thread, which simulates runs too and
/// reports between them; it is called once per run (9,500 times for the
/// published grid), so keep it cheap or throttle it.
pub fn run_contention_with_progress(
    config: &ContentionConfig,
    progress: &dyn Fn(usize, usize),
) -> ContentionReport {
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
                    let outcome = simulate_job(config, &mut scratch, index);
                    if sender.send((index, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Owned here, so that if `progress` panics the workers' sends fail
        // and they stop instead of finishing the experiment for nothing.
        let receiver = receiver;
        // The calling thread simulates too, and reports progress between its
        // own runs. Outcomes land in their run's slot, so arrival order does
        // not matter.
        let mut done = 0;
        let mut record = |(index, outcome): (usize, RunOutcome)| {
            outcomes[index] = outcome;
            done += 1;
            progress(done, total);
        };
        let mut scratch = Scratch::default();
        while let Some(index) = claim() {
            record((index, simulate_job(config, &mut scratch, index)));
            receiver.try_iter().for_each(&mut record);
        }
        receiver.iter().for_each(record);
    });
    ContentionReport::new(config.clone(), summarise(config, &outcomes))
}

/// The job with this index: runs are numbered within cells, cells are
/// (client count, strategy) pairs, client counts major.
fn simulate_job(config: &ContentionConfig, scratch: &mut Scratch, index: usize) -> RunOutcome {
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
        Some(model::simulate(&mut Scratch::default(), clients, &self.schedules()[index], hop, seed))
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
    use std::cell::Cell;
    use std::num::NonZeroUsize;

    #[test]
    fn progress_counts_every_run_in_order() {
        let config = ContentionConfig::builder().with_clients([5, 10]).with_runs(3).build().unwrap();
        for threads in [1, 2] {
            let config =
                config.to_builder().with_threads(NonZeroUsize::new(threads).unwrap()).build().unwrap();
            let seen = Cell::new(0);
            run_contention_with_progress(&config, &|done, total| {
                assert_eq!(total, 2 * 5 * 3);
                assert_eq!(done, seen.get() + 1);
                seen.set(done);
            });
            assert_eq!(seen.get(), 30);
        }
    }

    #[test]
    fn a_panicking_progress_callback_stops_the_workers() {
        let config = ContentionConfig::builder()
            .with_runs(50)
            .with_threads(NonZeroUsize::new(2).unwrap())
            .build()
            .unwrap();
        let result = std::panic::catch_unwind(|| {
            run_contention_with_progress(&config, &|done, _| assert!(done < 3, "stop"));
        });
        assert!(result.is_err());
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
        assert_eq!(config.simulate(0, ContentionStrategy::NoBackoff, 0), None);
    }
}
