//! The `contention` scenario: the experiment of the AWS Architecture Blog's
//! "Exponential Backoff And Jitter" (2015), many clients racing to update
//! one row with optimistic concurrency.
//!
//! [`ContentionParams`] runs every (client count, strategy, run) and
//! averages the runs of each point into a [`ContentionReport`], which reads
//! itself ([`Reading`], [`ContentionReport::paragraphs`]) and presents
//! itself in the common shape ([`Present`](crate::Present)).
//!
//! # The model, exactly
//! The published Python simulator queues *message arrivals*. With every hop
//! an independent draw from `abs(Normal(10, 2))`:
//!
//! 1. At time 0 every client sends a read: it arrives at the server one hop later.
//! 2. When a read arrives, the server answers with the row's version *at that
//!    instant*; the answer reaches the client one hop later.
//! 3. When the answer arrives the client sends a write carrying that version;
//!    it reaches the server one hop later.
//! 4. When a write arrives it counts as one call. If its version equals the
//!    row's, the version is incremented and the write succeeds; otherwise it
//!    fails. The reply reaches the client one hop later.
//! 5. On a failed reply the client's failure count `n` goes up by one and it
//!    sends a new read after `backoff(n)`: the read arrives at the server
//!    `backoff(n) + hop` after the reply (the Python code schedules it at
//!    `tm + net.delay() + backoff(n)`). On a successful reply the client stops.
//!
//! The completion time is the time of the last event: the arrival of the
//! last write reply. Reads are not counted as calls.
//!
//! ## Only the server's arrivals are queued
//! A client reacts to a reply the instant it arrives, and only its own state
//! decides how (steps 3 and 5), so a reply's arrival need not be an event of
//! its own: the server's read schedules the write's arrival two hops later,
//! and the server's write schedules the next read's arrival at the reply
//! time (`now` plus a hop) plus a hop plus `backoff(n)`, with `n` the
//! client's own failure count. Every hop is still drawn, the server sees the
//! same arrivals at the same times, and the last reply's arrival is kept as
//! the completion time. This halves the queue traffic, the simulator's main
//! cost; each client always has exactly one message in flight, so each event
//! is replaced in the queue by its follow-up ([`Engine::step`](crate::Engine::step)).
//!
//! The backoff parameters and how they map onto the library's schedules are
//! on [`ContentionStrategy::backoff`].
//!
//! # Reproducibility
//! Every run draws from generators seeded by `(seed, client count, strategy
//! name, run index)` alone, and the runs of a point are combined in run
//! order. The report is therefore bit-identical for the same parameters,
//! whatever the number of threads and whatever other points it contains.

mod model;
mod reading;
mod report;
mod strategy;
mod view;

pub use model::RunOutcome;
pub use reading::{Place, Ranking, Reading, NOISE_Z, PUBLISHED_CLIENTS};
pub use report::{ContentionReport, ContentionRow};
pub use strategy::ContentionStrategy;

use serde::{Deserialize, Serialize};
use staggered::Backoff;

use crate::experiment::{check_work, ensure, parallel, Experiment, Invalid, Progress, Work};
use crate::rng::{derive, name_id};
use crate::values::{Clients, List, Units};
use crate::Summary;
use model::Scratch;

/// The largest client count a point may have. The work of one run grows about
/// as the square of the client count (`none` makes about `N^2 / 6` calls), so
/// at this size a single run of `none` already takes many minutes.
pub const MAX_CLIENTS: u32 = 100_000;

/// The most runs an experiment may hold in all (client counts x strategies
/// x runs): every run's outcome is kept until the end, 24 bytes each.
pub const MAX_TOTAL_RUNS: usize = 10_000_000;

/// The most work an experiment may be, in client pairs: the sum, over every
/// client count N, strategy and run, of `N^2`, the most calls a run of N
/// clients can make (a client's write fails only when another's succeeded
/// since its read, so each client fails at most N - 1 times). A run without
/// backoff makes about `N^2 / 6` calls, the costliest case, each a small
/// fraction of the cost of a fleet scenario's attempt (so this limit is not
/// [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS)); it is about a quarter of an hour
/// of one core at worst. 100,000 clients for one run of each published
/// strategy (5e10 pairs) is within it; 100,000 clients for a million runs
/// is not.
pub const MAX_CLIENT_PAIRS: f64 = 1e11;

/// The contention experiment (the AWS Architecture Blog's "Exponential
/// Backoff And Jitter", 2015): which client counts and strategies to
/// simulate, how many runs per point, and the model's parameters. The
/// default is the published experiment; the model is on the
/// [module](self).
///
/// ```
/// use staggered_sim::{ContentionParams, Experiment};
///
/// // The 2015 experiment at N = 100, with 10 runs instead of 100 to stay quick.
/// let params = ContentionParams { clients: "100".parse()?, runs: 10, ..ContentionParams::default() };
/// let report = params.run()?;
/// assert_eq!(report.reading(100).unwrap().work.best.strategy.name(), "full");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ContentionParams {
    /// Client counts, one point each: `100`, `10,50,100`, or `FROM..TO/STEP`
    /// with both ends included (`10..190/10`); items combine with commas.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub clients: Clients,
    /// Independent runs averaged into each point.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R", value_parser = crate::values::count))]
    pub runs: u32,
    /// Strategies to compare, comma-separated: `none` or a strategy of the
    /// library (constant, exponential, full, equal, decorrelated,
    /// proportional, additive, smooth).
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub strategies: List<ContentionStrategy>,
    /// Seed of every run's generators: the same seed gives the same output
    /// on every machine, whatever its number of cores.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S", value_parser = crate::values::seed))]
    pub seed: u64,
    /// The backoff base, a positive number of time units, in the 2015
    /// convention: the exponential family's first ceiling is 2 x base,
    /// decorrelated's sleep starts at base.
    #[cfg_attr(feature = "clap", arg(long, value_name = "UNITS"))]
    pub base: Units,
    /// The backoff cap in time units, at least every strategy's first delay.
    #[cfg_attr(feature = "clap", arg(long, value_name = "UNITS"))]
    pub cap: Units,
    /// The mean of a message hop, in time units: every hop takes
    /// abs(Normal(hop_mean, hop_sd)).
    #[cfg_attr(feature = "clap", arg(long, value_name = "UNITS"))]
    pub hop_mean: f64,
    /// The standard deviation of a message hop, in time units.
    #[cfg_attr(feature = "clap", arg(long, value_name = "UNITS"))]
    pub hop_sd: f64,
}

impl Default for ContentionParams {
    /// The published experiment: N = 10, 20, ..., 190, 100 runs, the five
    /// published strategies, seed 2015, base 5, cap 2000, hops
    /// `abs(Normal(10, 2))`.
    fn default() -> Self {
        ContentionParams {
            clients: Clients((1..=19).map(|i| 10 * i).collect()),
            runs: 100,
            strategies: List(ContentionStrategy::PUBLISHED.to_vec()),
            seed: 2015,
            base: Units(5.0),
            cap: Units(2000.0),
            hop_mean: 10.0,
            hop_sd: 2.0,
        }
    }
}

impl ContentionParams {
    /// The library schedule of each strategy, in order.
    ///
    /// # Errors
    /// An [`Invalid`] naming `cap` (then `base`) when a strategy's schedule
    /// cannot be built from them.
    pub fn schedules(&self) -> Result<Vec<Backoff>, Invalid> {
        self.strategies.iter().map(|strategy| strategy.backoff(self.base.0, self.cap.0)).collect()
    }

    /// Checks the client counts, the runs and the network alone, and that
    /// `runs` runs of `entries` schedules at every client count stay within
    /// the limits of the whole experiment (the frontier runs more schedules
    /// than strategies); `entries_field` names the parameter that sets the
    /// schedules.
    pub(crate) fn check_size(&self, entries: usize, entries_field: &'static str) -> Result<(), Invalid> {
        let clients = &self.clients.0;
        if clients.is_empty() {
            return Err(Invalid::new(&["clients"], "invalid clients: give at least one client count"));
        }
        if self.runs == 0 {
            return Err(Invalid::new(&["runs"], "invalid runs 0: must be at least 1"));
        }
        // The size first, from the lengths alone: a list of any length is
        // refused at once, before any pass over it.
        let runs = f64::from(self.runs) * entries as f64;
        let total_runs = runs * clients.len() as f64;
        let size = ["runs", "clients", entries_field];
        if total_runs > MAX_TOTAL_RUNS as f64 {
            return Err(Invalid::new(
                &size,
                format!(
                    "invalid runs, clients and {entries_field}: {} runs in all (client counts x {entries_field} x \
                     runs), more than the limit of {MAX_TOTAL_RUNS}",
                    crate::view::number(total_runs)
                ),
            ));
        }
        // One pass, with the counts seen kept as bits (MAX_CLIENTS of them).
        let mut seen = vec![0u64; (MAX_CLIENTS as usize).div_ceil(64) + 1];
        for &n in clients {
            if n == 0 || n > MAX_CLIENTS {
                return Err(Invalid::new(
                    &["clients"],
                    format!("invalid clients {n}: must be between 1 and {MAX_CLIENTS}"),
                ));
            }
            let (word, bit) = (n as usize / 64, 1u64 << (n % 64));
            if seen[word] & bit != 0 {
                return Err(Invalid::new(&["clients"], format!("invalid clients: {n} is given twice")));
            }
            seen[word] |= bit;
        }
        let check_hop = |fields, name, value: f64| {
            let message = format!("invalid {name} {value}: must be a finite number, at least 0");
            ensure(value.is_finite() && value >= 0.0, fields, message)
        };
        check_hop(&["hop_mean"], "hop-mean", self.hop_mean)?;
        check_hop(&["hop_sd"], "hop-sd", self.hop_sd)?;
        let pairs = runs * clients.iter().map(|&n| f64::from(n) * f64::from(n)).sum::<f64>();
        let how = "N^2 for a run of N clients, about N^2/6 without backoff, summed over every run";
        check_work(&size, pairs, ("calls", how), MAX_CLIENT_PAIRS)
    }

    /// How many clients the experiment simulates in all, over every point
    /// and run of `entries` schedules: what its progress counts.
    pub(crate) fn total_clients(&self, entries: usize) -> u64 {
        let clients: u64 = self.clients.0.iter().map(|&n| u64::from(n)).sum();
        clients * entries as u64 * u64::from(self.runs)
    }

    /// Simulates `runs` runs of every schedule at every client count, spread
    /// over threads, heaviest client count first, and summarises each
    /// (client count, schedule) in run order, client counts major. The run
    /// of a schedule at a client count is seeded by `seed_of(clients,
    /// schedule, run)`.
    pub(crate) fn simulate_grid(
        &self,
        schedules: &[Backoff],
        seed_of: impl Fn(u32, usize, u32) -> u64 + Sync,
        progress: &Progress,
    ) -> Vec<(Summary, Summary)> {
        let (runs, entries) = (self.runs as usize, schedules.len());
        let clients = &self.clients.0;
        let mut cells: Vec<usize> = (0..clients.len() * entries).collect();
        cells.sort_by_key(|&cell| std::cmp::Reverse(clients[cell / entries]));
        let order: Vec<usize> =
            cells.iter().flat_map(|&cell| (0..runs).map(move |run| cell * runs + run)).collect();
        let outcomes = parallel(progress, &order, |scratch: &mut Scratch, index| {
            let (cell, run) = (index / runs, index % runs);
            let (n, entry) = (clients[cell / entries], cell % entries);
            let seed = seed_of(n, entry, run as u32);
            model::simulate(scratch, n, &schedules[entry], (self.hop_mean, self.hop_sd), seed, progress)
        });
        outcomes
            .chunks_exact(runs)
            .map(|runs| {
                let summary = |value: fn(&RunOutcome) -> f64| {
                    Summary::of(runs.iter().map(value)).expect("runs is at least 1")
                };
                (summary(|o| o.calls as f64), summary(|o| o.time))
            })
            .collect()
    }

    /// Simulates run number `run` (from 0) of one point on the calling thread:
    /// the same outcome a report averages into that point. `None` if
    /// `strategy` is not one of these parameters', or `clients` is not
    /// in `1..=`[`MAX_CLIENTS`].
    ///
    /// # Panics
    /// If the strategy's schedule cannot be built ([`validate`](Experiment::validate) says so).
    pub fn simulate(&self, clients: u32, strategy: ContentionStrategy, run: u32) -> Option<RunOutcome> {
        self.strategies.iter().position(|&s| s == strategy)?;
        let backoff = strategy.backoff(self.base.0, self.cap.0).expect("valid parameters");
        self.simulate_schedule(
            clients,
            &backoff,
            run_seed(self.seed, clients, strategy, run),
            &Progress::default(),
        )
    }

    /// Simulates one run of `clients` clients that all walk `backoff`, any
    /// schedule of the library rather than one of these parameters'
    /// strategies, on this network, with every generator derived from
    /// `seed`, on the calling thread; each client is added to `progress`
    /// when it is done. [`simulate`](ContentionParams::simulate) is this with
    /// a strategy's schedule and its run's seed. `None` if `clients` is not
    /// in `1..=`[`MAX_CLIENTS`].
    ///
    /// ```
    /// use staggered::{Backoff, Strategy};
    /// use staggered_sim::{ContentionParams, Progress};
    ///
    /// let backoff = Backoff::builder(Strategy::Full).without_max_attempts().build()?;
    /// let outcome = ContentionParams::default().simulate_schedule(10, &backoff, 7, &Progress::default()).unwrap();
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
        let hop = (self.hop_mean, self.hop_sd);
        (1..=MAX_CLIENTS)
            .contains(&clients)
            .then(|| model::simulate(&mut Scratch::default(), clients, backoff, hop, seed, progress))
    }
}

impl Experiment for ContentionParams {
    type Report = ContentionReport;

    fn validate(&self) -> Result<(), Invalid> {
        self.check_size(self.strategies.0.len(), "strategies")?;
        if self.strategies.0.is_empty() {
            return Err(Invalid::new(&["strategies"], "invalid strategies: give at least one strategy"));
        }
        for (i, strategy) in self.strategies.iter().enumerate() {
            if self.strategies.0[..i].contains(strategy) {
                return Err(Invalid::new(
                    &["strategies"],
                    format!("invalid strategies: {strategy} is given twice"),
                ));
            }
        }
        self.schedules().map(drop)
    }

    /// Clients, summed over every point and run: a run counts each client
    /// as its write succeeds, so a single long run shows progress too.
    fn work(&self) -> Work {
        Work { total: self.total_clients(self.strategies.0.len()), unit: "clients" }
    }

    fn run_with_progress(&self, progress: &Progress) -> Result<ContentionReport, Invalid> {
        self.validate()?;
        let strategies = &self.strategies.0;
        let seed_of = |clients, strategy: usize, run| run_seed(self.seed, clients, strategies[strategy], run);
        let summaries = self.simulate_grid(&self.schedules()?, seed_of, progress);
        let rows = summaries.into_iter().enumerate().map(|(cell, (calls, time))| ContentionRow {
            clients: self.clients.0[cell / strategies.len()],
            strategy: strategies[cell % strategies.len()],
            calls,
            time,
        });
        Ok(ContentionReport::new(self.clone(), rows.collect()))
    }
}

/// The seed of one run: a function of its coordinates and nothing else.
fn run_seed(seed: u64, clients: u32, strategy: ContentionStrategy, run: u32) -> u64 {
    derive(&[seed, u64::from(clients), name_id(strategy.name()), u64::from(run)])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The published experiment at these client counts, runs and strategies.
    pub(crate) fn small(clients: &str, runs: u32, strategies: &str) -> ContentionParams {
        let (clients, strategies) = (clients.parse().unwrap(), strategies.parse().unwrap());
        ContentionParams { clients, runs, strategies, ..ContentionParams::default() }
    }

    #[test]
    fn simulate_matches_the_report() {
        let params = small("8", 1, "none,exponential,equal,full,decorrelated");
        let report = params.run().unwrap();
        for row in report.rows() {
            let outcome = params.simulate(8, row.strategy, 0).unwrap();
            assert_eq!((outcome.calls as f64, outcome.time), (row.calls.mean, row.time.mean));
        }
        let smooth = ContentionStrategy::Backoff(staggered::Strategy::Smooth);
        assert_eq!(params.simulate(8, smooth, 0), None);
        // Any schedule runs as a strategy's does, given the same seed.
        let full = ContentionStrategy::Backoff(staggered::Strategy::Full);
        let schedule = full.backoff(5.0, 2000.0).unwrap();
        let (seed, progress) = (run_seed(params.seed, 8, full, 0), Progress::default());
        assert_eq!(params.simulate_schedule(8, &schedule, seed, &progress), params.simulate(8, full, 0));
        assert_eq!(progress.done(), 8);
        assert_eq!(params.simulate_schedule(0, &schedule, seed, &progress), None);
        assert_eq!(params.simulate(0, ContentionStrategy::NoBackoff, 0), None);
    }
}
