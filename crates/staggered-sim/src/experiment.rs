//! What every scenario is to its caller: a validated configuration that
//! runs ([`Experiment`]), a report that presents itself in the common shape
//! ([`Present`]), and the [`Progress`] a long run reports as it goes.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::view;

/// A scenario's validated configuration: it knows how much work it is and
/// runs to a report.
///
/// A front end (the `stagger` CLI) needs nothing else of a scenario: it
/// builds the configuration from its options, shows [`Progress`] against
/// [`work`](Experiment::work), and exports [`Present::present`]'s report.
pub trait Experiment: Sync {
    /// What a run measured, as plain data.
    type Report: Present + serde::Serialize;

    /// How much work a run is, in what unit, for a progress bar.
    fn work(&self) -> Work;

    /// Runs the experiment, adding to `progress` as work gets done (from
    /// any thread), up to [`work`](Experiment::work)'s total.
    fn run_with_progress(&self, progress: &Progress) -> Self::Report;

    /// Runs the experiment.
    fn run(&self) -> Self::Report {
        self.run_with_progress(&Progress::default())
    }
}

/// A report that presents itself in the common shape: its parameters, its
/// tables, its reading, its records and its chart.
pub trait Present {
    /// The report in the common shape, for the exporters.
    fn present(&self) -> view::Report;
}

/// How much work a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// The units of work in all.
    pub total: u64,
    /// What one unit is, plural: `clients`, `simulated seconds`.
    pub unit: &'static str,
}

/// The work a run has done so far: the run adds to it from its threads, a
/// progress bar reads it from another.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
}

impl Progress {
    /// The units of work done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Records `units` more of work done.
    pub(crate) fn add(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }
}
