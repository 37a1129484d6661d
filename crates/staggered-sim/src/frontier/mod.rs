//! The `frontier` scenario: a search for schedules that do less work or
//! finish sooner than the published ones, in the contention experiment of
//! the AWS Architecture Blog's "Exponential Backoff And Jitter" (2015).
//!
//! In that experiment `full` jitter does the least work (calls) and
//! `decorrelated` finishes first among the strategies that back off, at
//! every client count a different trade. A frontier sweeps the parameters
//! of a few families of the library's schedules ([`Family`]: `full` with
//! another multiplier and first interval, `full` with a floor, and
//! `decorrelated` and `smooth` from another base), runs every candidate
//! beside reference strategies, and reports for each client count which
//! points no other beats on both measures (the Pareto front), and which
//! candidates reach the target: mean calls at most `full`'s and mean
//! completion time at most `decorrelated`'s, each plus a margin (1% by
//! default). A candidate that reaches it at every client count does the
//! work of `full` in the time of `decorrelated`.
//!
//! [`FrontierConfig`] (validated), [`run_frontier`], [`FrontierReport`]
//! with its [`Standing`]s and [`FrontierReading`].
//!
//! # Reproducibility
//! The references run exactly as [`run_contention`](crate::run_contention)
//! runs them, so their figures are the contention experiment's. A
//! candidate's runs draw from generators seeded by `(seed, client count,
//! family, parameters, run index)` alone: its figures do not depend on the
//! other candidates, on their order or on the number of threads.

mod config;
mod error;
mod family;
mod reading;
mod report;
mod values;
mod view;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

pub use config::{FrontierConfig, FrontierConfigBuilder, DEFAULT_MARGIN, MAX_CANDIDATES};
pub use error::FrontierError;
pub use family::{Candidate, Family};
pub use reading::FrontierReading;
pub use report::{Entry, FrontierReport, FrontierRow, Standing};
pub use values::{parse_values, ValuesError, MAX_VALUES};

use crate::experiment::{Experiment, Progress, Work};
use crate::rng::{derive, name_id};
use crate::{RunOutcome, Summary};

/// Runs the frontier: the references as the contention experiment runs
/// them, then every candidate at every client count, on
/// [`threads`](crate::ContentionConfig::threads) worker threads.
///
/// ```
/// use staggered_sim::frontier::{run_frontier, Family, FrontierConfig};
///
/// let config = FrontierConfig::builder()
///     .with_families([Family::Full])
///     .with_scales([1.0, 4.0])
///     .with_multipliers([2.0])
///     .with_clients([30])
///     .with_runs(20)
///     .build()?;
/// let report = run_frontier(&config);
/// assert_eq!(report.rows().len(), 2 + 4); // two candidates, four references
/// let wider = &report.standings()[1];
/// assert_eq!(wider.candidate.name(), "full(scale 4, multiplier 2)");
/// // Waiting longer from the first retry saves calls.
/// assert!(wider.calls_vs_full.unwrap().0 < 1.0);
/// # Ok::<(), staggered_sim::frontier::FrontierError>(())
/// ```
pub fn run_frontier(config: &FrontierConfig) -> FrontierReport {
    config.run()
}

impl Experiment for FrontierConfig {
    type Report = FrontierReport;

    /// Clients, summed over every point, entry (candidate or reference) and run.
    fn work(&self) -> Work {
        Work { total: self.total_clients(), unit: "clients" }
    }

    fn run_with_progress(&self, progress: &Progress) -> FrontierReport {
        let references = self.contention.run_with_progress(progress);
        let candidates = simulate_candidates(self, progress);
        FrontierReport::new(self.clone(), references.rows(), &candidates)
    }
}

/// The seed of one run of a candidate: a function of its coordinates and
/// nothing else.
fn run_seed(seed: u64, clients: u32, candidate: &Candidate, run: u32) -> u64 {
    let bits = |value: Option<f64>| value.map_or(u64::MAX, f64::to_bits);
    derive(&[
        seed,
        u64::from(clients),
        name_id(candidate.family.name()),
        candidate.scale.to_bits(),
        bits(candidate.multiplier),
        bits(candidate.floor),
        u64::from(run),
    ])
}

/// Every run of every candidate, spread over threads, summarised per
/// (client count, candidate), client counts major.
fn simulate_candidates(config: &FrontierConfig, progress: &Progress) -> Vec<(Summary, Summary)> {
    let runs = config.runs() as usize;
    let candidates = config.candidates().len();
    let cells = config.clients().len() * candidates;
    let total = cells * runs;
    let mut outcomes = vec![RunOutcome { calls: 0, time: 0.0, gave_up: 0 }; total];
    let threads = config
        .contention()
        .threads()
        .or_else(|| thread::available_parallelism().ok())
        .map_or(1, |n| n.get())
        .min(total.max(1));
    // Jobs are claimed heaviest client count first, so that the last ones,
    // which decide when the slowest thread finishes, are cheap.
    let mut order: Vec<usize> = (0..cells).collect();
    order.sort_by_key(|&cell| std::cmp::Reverse(config.clients()[cell / candidates]));
    let job = |claimed: usize| order[claimed / runs] * runs + claimed % runs;
    let simulate = |index: usize| {
        let (cell, run) = (index / runs, index % runs);
        let (clients, candidate) = (config.clients()[cell / candidates], cell % candidates);
        let seed = run_seed(config.seed(), clients, &config.candidates()[candidate], run as u32);
        let backoff = &config.schedules()[candidate];
        let outcome = config.contention().simulate_schedule(clients, backoff, seed, progress);
        outcome.expect("client counts are validated")
    };

    let next = AtomicUsize::new(0);
    let claim = || {
        let claimed = next.fetch_add(1, Ordering::Relaxed);
        (claimed < total).then(|| job(claimed))
    };
    let (sender, receiver) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 1..threads {
            let (sender, claim, simulate) = (sender.clone(), &claim, &simulate);
            scope.spawn(move || {
                while let Some(index) = claim() {
                    if sender.send((index, simulate(index))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // The calling thread simulates too; outcomes land in their slots.
        let mut record = |(index, outcome): (usize, RunOutcome)| outcomes[index] = outcome;
        while let Some(index) = claim() {
            record((index, simulate(index)));
            receiver.try_iter().for_each(&mut record);
        }
        receiver.iter().for_each(record);
    });
    outcomes
        .chunks_exact(runs.max(1))
        .map(|runs| {
            let summary = |value: fn(&RunOutcome) -> f64| {
                Summary::of(runs.iter().map(value)).expect("runs is at least 1")
            };
            (summary(|o| o.calls as f64), summary(|o| o.time))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_contention;
    use std::num::NonZeroUsize;

    fn small() -> FrontierConfig {
        FrontierConfig::builder()
            .with_families([Family::Full, Family::Smooth])
            .with_scales([1.0, 3.0])
            .with_multipliers([1.5])
            .with_clients([8, 16])
            .with_runs(3)
            .build()
            .unwrap()
    }

    #[test]
    fn references_are_the_contention_experiments_and_threads_do_not_matter() {
        let config = small();
        let mut reports = Vec::new();
        for threads in [1, 2] {
            let config =
                config.to_builder().with_threads(NonZeroUsize::new(threads).unwrap()).build().unwrap();
            let progress = Progress::default();
            reports.push(config.run_with_progress(&progress));
            assert_eq!(progress.done(), config.work().total);
            assert_eq!(config.work().total, (8 + 16) * (4 + 4) * 3);
        }
        assert_eq!(reports[0].rows(), reports[1].rows());
        let contention = run_contention(config.contention());
        for row in contention.rows() {
            let entry = Entry::Reference(row.strategy);
            let frontier = reports[0].rows().iter().find(|r| r.clients == row.clients && r.entry == entry);
            let frontier = frontier.unwrap();
            assert_eq!((frontier.calls, frontier.time), (row.calls, row.time));
        }
    }

    #[test]
    fn a_candidate_does_not_depend_on_the_others() {
        let alone = small().to_builder().with_families([Family::Smooth]).with_scales([3.0]).build().unwrap();
        let (all, one) = (run_frontier(&small()), run_frontier(&alone));
        let smooth3 = |report: &FrontierReport| {
            let rows = report.rows().iter().filter(|r| r.entry.name() == "smooth(scale 3)");
            rows.map(|r| (r.calls, r.time)).collect::<Vec<_>>()
        };
        assert_eq!(smooth3(&all).len(), 2);
        assert_eq!(smooth3(&all), smooth3(&one));
    }

    #[test]
    fn seeds_depend_on_every_coordinate() {
        let a = Candidate::new(Family::Floored, 2.0, 1.5, 0.1);
        let base = run_seed(1, 10, &a, 0);
        let others = [
            run_seed(2, 10, &a, 0),
            run_seed(1, 11, &a, 0),
            run_seed(1, 10, &a, 1),
            run_seed(1, 10, &Candidate::new(Family::Full, 2.0, 1.5, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.5, 1.5, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.0, 1.6, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.0, 1.5, 0.2), 0),
        ];
        assert!(others.iter().all(|&seed| seed != base));
    }
}
