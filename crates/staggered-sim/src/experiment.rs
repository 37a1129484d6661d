//! What every scenario is to its caller: parameters that validate and run
//! ([`Experiment`]), a report that presents itself in the common shape
//! ([`Present`]), the error that names the parameter at fault
//! ([`Invalid`]), and the [`Progress`] a long run reports as it goes.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;

use serde::{Deserialize, Serialize};

use crate::view;

/// A scenario's parameters: one plain struct whose fields are the
/// parameters, with their defaults and units, that checks itself and runs
/// to a report.
///
/// A front end (the `stagger` CLI) needs nothing else of a scenario: it
/// fills the parameters from a file and its flags (every field is both),
/// shows [`Progress`] against [`work`](Experiment::work), and exports
/// [`Present::present`]'s report.
pub trait Experiment: Sync {
    /// What a run measured, as plain data.
    type Report: Present + serde::Serialize;

    /// Checks every parameter.
    ///
    /// # Errors
    /// An [`Invalid`] naming the field at fault.
    fn validate(&self) -> Result<(), Invalid>;

    /// The parameters that change nothing as the others stand, each with
    /// what to say of it, as `has no effect: retry+ratio is not among the
    /// policies`: a front end warns of those its user set.
    fn notes(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// How much work a run is, in what unit, for a progress bar.
    fn work(&self) -> Work;

    /// Validates the parameters and runs the experiment, adding to
    /// `progress` as work gets done (from any thread), up to
    /// [`work`](Experiment::work)'s total.
    ///
    /// # Errors
    /// What [`validate`](Experiment::validate) finds.
    fn run_with_progress(&self, progress: &Progress) -> Result<Self::Report, Invalid>;

    /// Validates the parameters and runs the experiment.
    ///
    /// # Errors
    /// What [`validate`](Experiment::validate) finds.
    fn run(&self) -> Result<Self::Report, Invalid> {
        self.run_with_progress(&Progress::default())
    }
}

/// A report that presents itself in the common shape: its parameters, its
/// tables, its reading, its records and its chart.
pub trait Present {
    /// The report in the common shape, for the exporters.
    fn present(&self) -> view::Report;
}

/// The scenarios, as `--scenario` and an experiment file name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Scenario {
    /// N clients race to update one row with optimistic concurrency (the AWS
    /// Architecture Blog's "Exponential Backoff And Jitter" experiment, 2015).
    #[default]
    Contention,
    /// A server at 70% load loses half its capacity for 5 s while clients
    /// time out and retry, with no budget or under each of the library's
    /// budgets.
    Overload,
    /// Clients offer twice what a rate-limited server admits, with no
    /// retries, retries, the AWS SDKs' standard mode, or their adaptive mode
    /// (the library's adaptive limiter).
    Throttling,
    /// A search in the contention experiment: candidate schedules swept
    /// from families of the library's strategies, their Pareto front of
    /// calls and completion time, and those that do the work of full jitter
    /// in the time of decorrelated jitter.
    Frontier,
    /// Clients hedge their requests to a server whose service time has a
    /// long tail, from light load to beyond its capacity: no retries, a
    /// retry after a per-attempt timeout, hedging at a fixed delay, at a
    /// learned percentile, or under a budget.
    Hedging,
}

impl Scenario {
    /// Every scenario, in this order.
    pub const ALL: [Scenario; 5] = [
        Scenario::Contention,
        Scenario::Overload,
        Scenario::Throttling,
        Scenario::Frontier,
        Scenario::Hedging,
    ];

    /// The name: `contention`, `overload`, `throttling`, `frontier` or
    /// `hedging`.
    pub const fn name(self) -> &'static str {
        match self {
            Scenario::Contention => "contention",
            Scenario::Overload => "overload",
            Scenario::Throttling => "throttling",
            Scenario::Frontier => "frontier",
            Scenario::Hedging => "hedging",
        }
    }
}

/// Parameters that do not fit together or a value out of range: the fields
/// at fault (in the parameters' own spelling, `arrival_rate`), the one to
/// change first, and why.
///
/// ```
/// use staggered_sim::{ContentionParams, Experiment};
///
/// let params = ContentionParams { runs: 0, ..ContentionParams::default() };
/// let err = params.validate().unwrap_err();
/// assert_eq!((err.fields(), err.to_string().as_str()), (&["runs"][..], "invalid runs 0: must be at least 1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    fields: Vec<&'static str>,
    message: String,
}

impl Invalid {
    pub(crate) fn new(fields: &[&'static str], message: impl fmt::Display) -> Self {
        Invalid { fields: fields.to_vec(), message: message.to_string() }
    }

    /// The fields at fault, most likely first: a cap below the first delay
    /// names `cap` then `base`, since either may be what was mistyped.
    pub fn fields(&self) -> &[&'static str] {
        &self.fields
    }

    /// The same error with field `from` called `to`, for parameters that
    /// another scenario's check names its own way.
    pub(crate) fn renamed(mut self, from: &str, to: &'static str) -> Self {
        for field in &mut self.fields {
            if *field == from {
                *field = to;
            }
        }
        self
    }
}

/// `Ok` if `ok`, else the [`Invalid`] of `fields` saying `message`.
pub(crate) fn ensure(ok: bool, fields: &[&'static str], message: impl fmt::Display) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid::new(fields, message))
    }
}

/// Bounds an experiment's work before it runs, the one rule by which every
/// scenario's [`validate`](Experiment::validate) keeps a combination of
/// parameters from running without end: `worst`, what the runs could cost
/// at worst in `unit` (`attempts`) as `how` counts it, is at most `limit`.
/// Else an [`Invalid`] naming `fields`, the one most likely to change
/// first, in the words of their flags (`arrival-rate`).
pub(crate) fn check_work(
    fields: &[&'static str],
    worst: f64,
    (unit, how): (&str, &str),
    limit: f64,
) -> Result<(), Invalid> {
    let names: Vec<String> = fields.iter().map(|field| field.replace('_', "-")).collect();
    let names = crate::view::list(names.iter().map(String::as_str));
    let message =
        format!("invalid {names}: {worst:.3e} {unit} at worst ({how}), more than the limit of {limit:e}");
    ensure(worst <= limit, fields, message)
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}

/// How much work a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// The units of work in all.
    pub total: u64,
    /// What one unit is, plural: `clients`, `simulated seconds`.
    pub unit: &'static str,
}

/// The work a run has done so far, which the run adds to from its threads
/// and a progress bar reads from another; and how many threads the run may
/// use. Results never depend on the threads.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    threads: Option<NonZeroUsize>,
}

impl Progress {
    /// Progress of a run on at most `threads` threads, rather than one per
    /// available core.
    pub fn on_threads(threads: NonZeroUsize) -> Self {
        Progress { done: AtomicU64::new(0), threads: Some(threads) }
    }

    /// The units of work done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Records `units` more of work done.
    pub(crate) fn add(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }
}

/// Runs a job for every index of `order`, in that order (the heaviest
/// first, so that the last jobs, which decide when the slowest thread
/// finishes, are cheap), on the threads `progress` allows, each thread with
/// a scratch of its own; returns the results by index. Every result lands
/// in its own place, so they do not depend on the threads.
pub(crate) fn parallel<S: Default, T: Send>(
    progress: &Progress,
    order: &[usize],
    job: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut scratch = S::default();
        let mut done = Vec::new();
        while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            done.push((index, job(&mut scratch, index)));
        }
        done
    };
    let cores = || thread::available_parallelism().ok();
    let threads = progress.threads.or_else(cores).map_or(1, NonZeroUsize::get).min(order.len());
    let mut results: Vec<Option<T>> = order.iter().map(|_| None).collect();
    thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let theirs = workers.into_iter().flat_map(|worker| worker.join().expect("a job does not panic"));
        for (index, result) in work().into_iter().chain(theirs) {
            results[index] = Some(result);
        }
    });
    results.into_iter().map(|result| result.expect("every job ran")).collect()
}
