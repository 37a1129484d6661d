//! The `hedging` scenario: a server whose service time has a long tail,
//! clients that hedge their requests, and the load at which hedging stops
//! paying.
//!
//! Retrying answers a failure; hedging answers a request that is slow but
//! has not failed: when no answer has come within a delay, send a copy and
//! take whichever answers first. Against a tail of rare stalls it is cheap
//! and strong (a copy of a stalled request almost never stalls too); on a
//! busy server every copy is work the server must do, and hedging adds load
//! exactly when the server can least take it. [`HedgingParams`] runs each
//! [`Policy`] it names at each load level and measures operation latency
//! (median, 99th and 99.9th percentiles), attempts per operation and
//! goodput in a [`HedgingReport`], which reads itself
//! ([`HedgingReport::paragraphs`]) and presents itself in the common shape
//! ([`Present`](crate::Present)).
//!
//! # The model
//! Time is in milliseconds of virtual time (one engine time unit, as in
//! [`units`](crate::units)).
//!
//! - **Server.** `workers` (16) requests are served at once; up to `queue`
//!   (64) more wait, first come first served, and a request that finds the
//!   queue full is rejected at once (a transient failure, as an overloaded
//!   server's 503). A service time is log-normal, with median
//!   `service_median` (10 ms) and `service_sigma` (0.5, the standard
//!   deviation of its logarithm); a share `stall_rate` (1%) of requests
//!   stall, taking `stall` (1 s) more. Each copy of each request draws its
//!   own service time, so a copy of a stalled request stalls only with the
//!   same 1%. The server serves every request it admitted, including copies
//!   whose client no longer waits for them (it is not told that a copy
//!   lost, or that an attempt timed out): that work is wasted. Its capacity
//!   is `workers` over the mean service time.
//! - **Clients.** At each load level of `loads` (fractions of the
//!   capacity), `operations` (100,000) operations arrive as a Poisson
//!   stream at that fraction of the capacity, and each policy runs them
//!   all. The network takes no time. Every operation is one library
//!   [`Decision`](staggered::Decision), with the operation's `deadline` if
//!   there is one (none by default), sharing with every other operation the
//!   policy's [`Hedging`] and budget, as the tasks of
//!   one client share them.
//! - **Policies.** `no-retry` sends one attempt and waits for it. `retry`
//!   cuts an attempt after `timeout` (25 ms) and retries by the schedule
//!   (full jitter, base 100 ms, cap 1 s, 3 attempts), as
//!   [`Decision::on_failure`](staggered::Decision::on_failure) says; a
//!   rejected attempt is retried the same way. The hedging policies follow
//!   the library's rules ([`Decision::on_hedge`](staggered::Decision::on_hedge)
//!   and [`Decision::on_hedged_failure`](staggered::Decision::on_hedged_failure)):
//!   copy 1 at once, the next after the delay while none has answered, at
//!   most `hedge_attempts` (2) copies; the first success wins and the other
//!   copies are dropped; a rejected copy sends the next at once. `hedge`
//!   waits a fixed `hedge_delay` (25 ms, about the service's 95th
//!   percentile on an idle server); `hedge+learned` waits the `percentile`
//!   (0.95) of the latencies its `Hedging` has recorded (from a call's first
//!   copy to its answer), and sends no copy before it has seen 100 of them;
//!   `hedge+ratio` is `hedge` with every copy but the first paid from a
//!   ratio budget (10% of the requests plus 10 a second, over 10 s), which
//!   refuses a copy once the copies reach that share.
//! - **Measures.** An operation's latency runs from its arrival to its
//!   success; a failed operation (rejected with no attempt left, or cut at
//!   the deadline) is slower than any success, so a percentile that falls
//!   among the failures is "failed". What is measured is on [`HedgingRow`].
//!
//! Why hedging at a learned percentile pays at light load, and where each
//! policy stops paying, is in the guide's chapter "Hedging", with the
//! default run's figures.
//!
//! # Reproducibility
//! Every draw is seeded from the experiment's seed and the load level,
//! never from the policy: the arrivals from `(seed, load)`, the service
//! time of copy (or attempt) `k` of operation `i` from `(seed, load, i,
//! k)`, and operation `i`'s jitter from `(seed, load, i)`. So every policy
//! meets the same operations, and an operation whose first copy stalls
//! under one policy stalls under all (a paired comparison). Each row is a
//! function of the parameters, its load and its policy alone: the report
//! is bit-identical whatever the number of threads.

mod model;
mod reading;
mod report;
mod server;
mod view;

pub use report::{HedgingReport, HedgingRow};

use std::cell::Cell;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use staggered::budget::RatioBudgetBuilder;
use staggered::{Backoff, Hedging, NoBudget};

use crate::experiment::{ensure, parallel, Experiment, Invalid, Progress, Work};
use crate::fleet::{self, Policy};
use crate::units::{to_units, SECOND};
use crate::values::{Fraction, Jitter, List, Share, Span, Values};

/// The most operations of one run (one load level, one policy): a run
/// keeps every operation's latency, 8 bytes each.
pub const MAX_HEDGING_OPERATIONS: u32 = 10_000_000;

/// The most operations of a whole experiment (load levels x policies x
/// operations): a few minutes on two cores.
pub const MAX_HEDGING_TOTAL: f64 = 2e8;

/// The highest load level, as a multiple of the capacity.
pub const MAX_LOAD: f64 = 10.0;

/// The longest service time's median, and the longest stall.
pub const MAX_SERVICE_TIME: Duration = Duration::from_secs(3600);

/// The most workers, and the longest queue.
pub const MAX_WORKERS: u32 = 100_000;

/// The hedging experiment: the server, its service time, the load levels
/// and the policies to compare. The default is a server of 16 workers
/// whose requests take 10 ms at the median and stall for a second 1% of
/// the time, offered from 10% to 120% of its capacity; the model is on the
/// [module](self).
///
/// ```
/// use staggered_sim::{Experiment, HedgingParams, Policy};
///
/// // Light load only, 20,000 operations a policy.
/// let params = HedgingParams { loads: "0.1".parse()?, operations: 20_000, ..HedgingParams::default() };
/// let report = params.run()?;
/// let (none, hedged) = (report.row(0.1, Policy::NoRetry).unwrap(), report.row(0.1, Policy::HedgeLearned).unwrap());
/// assert!(hedged.p999.unwrap() * 5 < none.p999.unwrap()); // the stalls are hedged away
/// assert!(hedged.attempts_per_operation < 1.1); // for a few more attempts
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct HedgingParams {
    /// Policies to compare, comma-separated: no-retry, retry, hedge,
    /// hedge+learned, hedge+ratio.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub policies: List<Policy>,
    /// The offered loads, as fractions of the server's capacity, above 0
    /// and at most 10: `0.5`, `0.1,0.5,0.9` or `0.1..0.9/0.2`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub loads: Values,
    /// Operations per load level and policy, a Poisson stream at the load's
    /// rate, 1 to 10,000,000.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub operations: u32,
    /// The server's concurrency limit: requests it serves at once, 1 to
    /// 100,000.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub workers: u32,
    /// Requests that may wait for a worker, at most 100,000; a request that
    /// finds the queue full is rejected at once.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub queue: u32,
    /// The median service time (of its log-normal part), above 0, at most
    /// 1h.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub service_median: Span,
    /// The spread of the service time: the standard deviation of its
    /// logarithm, 0 to 3 (0.5: the 99th percentile is 3.2 times the
    /// median).
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub service_sigma: f64,
    /// The share of requests that stall: `0.01` or `1%`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub stall_rate: Fraction,
    /// How much longer a stalled request takes, at most 1h.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub stall: Span,
    /// hedge and hedge+ratio: the delay before the next copy while none has
    /// answered (0 sends every copy at once).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub hedge_delay: Span,
    /// hedge+learned: the percentile of recent latencies to hedge at, 0.5
    /// to 0.999.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub percentile: f64,
    /// The hedging policies' most copies of a request, the first included,
    /// 2 to 5.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub hedge_attempts: u32,
    /// retry: each attempt's timeout, above 0; the attempt is abandoned
    /// then and retried.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub timeout: Span,
    /// hedge+ratio: copies allowed per recent request, `0.1` or `10%`, up
    /// to 1000 (100000%).
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub ratio_percent: Share,
    /// hedge+ratio: copies allowed per second with no traffic.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub ratio_min_per_sec: u32,
    /// hedge+ratio: how long requests and copies count, 1s to 60s.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub ratio_ttl: Span,
    /// Seed of every run's generators: the same seed gives the same output
    /// on every machine, whatever its number of cores.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S", value_parser = crate::values::seed))]
    pub seed: u64,
    /// retry: the schedule's strategy, one of the library's.
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME"))]
    pub strategy: Jitter,
    /// retry: the first retry's ceiling, the schedule's base.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub base: Span,
    /// retry: the schedule's cap (max_delay), at least the base.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub cap: Span,
    /// retry: max_attempts, first attempt included.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub attempts: u32,
    /// A deadline on each operation of every policy, none by default; it
    /// cuts every attempt and copy still running.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub deadline: Option<Span>,
}

impl Default for HedgingParams {
    /// 16 workers and a queue of 64; service times log-normal with median
    /// 10 ms and sigma 0.5, 1% of them a second longer; 100,000 operations
    /// at each of 10%, 30%, 50%, 70%, 80%, 90%, 100% and 120% of the
    /// capacity; every policy: retry after a 25 ms timeout with full jitter
    /// from 100 ms, a 1 s cap and 3 attempts; hedge after 25 ms, or at the
    /// learned 95th percentile, 2 copies at most; the budget 10% of the
    /// requests plus 10 a second over 10 s.
    fn default() -> Self {
        let (strategy, base, cap, attempts) = fleet::DEFAULT_SCHEDULE;
        let ratio = RatioBudgetBuilder::new();
        HedgingParams {
            policies: List(POLICIES.to_vec()),
            loads: Values(vec![0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.2]),
            operations: 100_000,
            workers: 16,
            queue: 64,
            service_median: Span(Duration::from_millis(10)),
            service_sigma: 0.5,
            stall_rate: Fraction(0.01),
            stall: Span(Duration::from_secs(1)),
            hedge_delay: Span(Duration::from_millis(25)),
            percentile: 0.95,
            hedge_attempts: 2,
            timeout: Span(Duration::from_millis(25)),
            ratio_percent: Share(0.1),
            ratio_min_per_sec: ratio.min_per_sec(),
            ratio_ttl: Span(ratio.ttl()),
            seed: 2015,
            strategy: Jitter(strategy),
            base: Span(base),
            cap: Span(cap),
            attempts,
            deadline: None,
        }
    }
}

/// The policies of the hedging scenario, in the order it compares them.
const POLICIES: [Policy; 5] =
    [Policy::NoRetry, Policy::Retry, Policy::Hedge, Policy::HedgeLearned, Policy::HedgeRatio];

impl HedgingParams {
    /// The schedule `retry` walks; its deadline is every policy's.
    ///
    /// # Errors
    /// An [`Invalid`] naming the parameter the library refuses.
    pub fn backoff(&self) -> Result<Backoff, Invalid> {
        fleet::schedule(self.strategy, self.base, self.cap, self.attempts, self.deadline)
    }

    /// The hedging of `policy` (a fresh one, which has learned nothing),
    /// or `None` for a policy that does not hedge.
    ///
    /// # Errors
    /// An [`Invalid`] naming the parameter the library refuses.
    pub fn hedging(&self, policy: Policy) -> Result<Option<Hedging>, Invalid> {
        let hedging = match policy {
            Policy::Hedge | Policy::HedgeRatio => Hedging::after(self.hedge_delay.0),
            Policy::HedgeLearned => Hedging::at_percentile(self.percentile).map_err(|err| {
                Invalid::new(&["percentile"], format!("invalid percentile for hedge+learned: {err}"))
            })?,
            _ => return Ok(None),
        };
        let hedging = hedging.with_max_attempts(self.hedge_attempts).map_err(|err| {
            Invalid::new(
                &["hedge_attempts"],
                format!("invalid hedge-attempts {}: {err}", self.hedge_attempts),
            )
        })?;
        Ok(Some(hedging))
    }

    /// The ratio budget of `hedge+ratio`.
    pub fn ratio_budget(&self) -> RatioBudgetBuilder {
        RatioBudgetBuilder::new()
            .with_retry_percent(self.ratio_percent.0)
            .with_min_per_sec(self.ratio_min_per_sec)
            .with_ttl(self.ratio_ttl.0)
    }

    /// The mean service time, in time units: the log-normal's mean
    /// (`median * exp(sigma^2 / 2)`) plus the stalls' share of a stall.
    pub fn mean_service_time(&self) -> f64 {
        let sigma = self.service_sigma;
        to_units(self.service_median.0) * (sigma * sigma / 2.0).exp()
            + self.stall_rate.0 * to_units(self.stall.0)
    }

    /// The server's capacity in requests per second: its workers over the
    /// mean service time.
    pub fn capacity(&self) -> f64 {
        f64::from(self.workers) * SECOND / self.mean_service_time()
    }

    /// The share of `hedge+ratio`'s operations its budget lets send a
    /// copy at `load`: the ratio plus the reserve's rate over the
    /// operations' rate.
    pub fn budget_share(&self, load: f64) -> f64 {
        self.ratio_percent.0 + f64::from(self.ratio_min_per_sec) / (load * self.capacity())
    }

    /// Simulates one policy at one load level on the calling thread: the
    /// same row a report has for it, whether or not they are among these
    /// parameters'.
    ///
    /// # Errors
    /// What [`validate`](Experiment::validate) finds, or an [`Invalid`]
    /// naming `loads` for a load out of range.
    pub fn simulate(&self, load: f64, policy: Policy) -> Result<HedgingRow, Invalid> {
        self.validate()?;
        check_load(load)?;
        Ok(self.simulate_point(load, policy, &self.backoff()?, &Progress::default()))
    }

    /// One policy's run at one load, with a fresh hedging and budget.
    fn simulate_point(
        &self,
        load: f64,
        policy: Policy,
        backoff: &Backoff,
        progress: &Progress,
    ) -> HedgingRow {
        let hedging = self.hedging(policy).expect("the parameters checked the hedging");
        // The virtual clock the ratio budget reads; the run advances it.
        let clock = Cell::new(Duration::ZERO);
        let point = model::Point { config: self, load, policy, backoff, hedging: hedging.as_ref() };
        let counts = match policy {
            Policy::HedgeRatio => {
                let budget = self.ratio_budget().build_with_clock(|| clock.get());
                let budget = budget.expect("the parameters checked the ratio budget");
                model::simulate(&point, &budget, &clock, progress)
            }
            _ => model::simulate(&point, &NoBudget, &clock, progress),
        };
        HedgingRow::new(load, policy, counts)
    }
}

/// Checks one load level: above 0, at most [`MAX_LOAD`].
fn check_load(load: f64) -> Result<(), Invalid> {
    let message = format!("invalid load {load}: must be above 0 and at most {MAX_LOAD} (times the capacity)");
    ensure(load > 0.0 && load <= MAX_LOAD, &["loads"], message)
}

impl Experiment for HedgingParams {
    type Report = HedgingReport;

    fn validate(&self) -> Result<(), Invalid> {
        self.backoff()?;
        fleet::check_policies(&self.policies, &POLICIES)?;
        let loads = &self.loads.0;
        ensure(!loads.is_empty(), &["loads"], "invalid loads: give at least one load level")?;
        for (i, &load) in loads.iter().enumerate() {
            check_load(load)?;
            let twice = format!("invalid loads: {load} is given twice");
            ensure(!loads[..i].contains(&load), &["loads"], twice)?;
        }
        let operations = self.operations;
        let many = format!("invalid operations {operations}: must be from 1 to {MAX_HEDGING_OPERATIONS}");
        ensure((1..=MAX_HEDGING_OPERATIONS).contains(&operations), &["operations"], many)?;
        let total = f64::from(operations) * (loads.len() * self.policies.0.len()) as f64;
        let too_much = format!(
            "invalid operations {operations}: {} load levels x {} policies x {operations} operations is {total:.0}, \
             more than the limit of {MAX_HEDGING_TOTAL:e}",
            loads.len(),
            self.policies.0.len()
        );
        ensure(total <= MAX_HEDGING_TOTAL, &["operations", "loads", "policies"], too_much)?;
        // A run is one policy at one load level; the policy of the most
        // attempts per operation bounds it.
        let most = |policy: Policy| -> (u32, &[&'static str]) {
            match policy {
                Policy::Retry => (self.attempts, &["attempts", "operations"]),
                policy if policy.hedges() => (self.hedge_attempts, &["hedge_attempts", "operations"]),
                _ => (1, &["operations"]),
            }
        };
        let policies = self.policies.iter().map(|&policy| most(policy));
        let (attempts, fields) = policies.max_by_key(|&(n, _)| n).unwrap_or(most(Policy::NoRetry));
        let per_run = (f64::from(operations), "operations at one load level");
        fleet::check_attempts(fields, per_run, attempts)?;
        let workers = format!("invalid workers {}: must be from 1 to {MAX_WORKERS}", self.workers);
        ensure((1..=MAX_WORKERS).contains(&self.workers), &["workers"], workers)?;
        let queue = format!("invalid queue {}: must be at most {MAX_WORKERS}", self.queue);
        ensure(self.queue <= MAX_WORKERS, &["queue"], queue)?;
        let max = Span(MAX_SERVICE_TIME);
        let median = self.service_median;
        let message = format!("invalid service-median {median}: must be above 0 and at most {max}");
        ensure(!median.0.is_zero() && median.0 <= MAX_SERVICE_TIME, &["service_median"], message)?;
        let sigma = self.service_sigma;
        let message = format!("invalid service-sigma {sigma}: must be from 0 to 3");
        ensure((0.0..=3.0).contains(&sigma), &["service_sigma"], message)?;
        let message = format!("invalid stall {}: must be at most {max}", self.stall);
        ensure(self.stall.0 <= MAX_SERVICE_TIME, &["stall"], message)?;
        let message = format!("invalid timeout {}: must be above 0", self.timeout);
        ensure(!self.timeout.0.is_zero(), &["timeout"], message)?;
        for policy in POLICIES {
            self.hedging(policy)?;
        }
        self.ratio_budget().build_with_clock(|| Duration::ZERO).map_err(|err| {
            let field: &[&str] = match err.field() {
                staggered::Field::Ttl => &["ratio_ttl"],
                staggered::Field::RetryPercent => &["ratio_percent"],
                _ => &["ratio_min_per_sec"],
            };
            Invalid::new(field, format!("invalid budget for hedge+ratio: {err}"))
        })?;
        Ok(())
    }

    /// Each policy's own parameters when it is not among the policies.
    fn notes(&self) -> Vec<(&'static str, String)> {
        let has = |policy| self.policies.0.contains(&policy);
        let groups: [(&[&'static str], bool, &str); 5] = [
            (
                &["strategy", "base", "cap", "attempts", "timeout"],
                has(Policy::Retry),
                "retry is not among the policies",
            ),
            (
                &["hedge_delay"],
                has(Policy::Hedge) || has(Policy::HedgeRatio),
                "neither hedge nor hedge+ratio is among the policies",
            ),
            (&["percentile"], has(Policy::HedgeLearned), "hedge+learned is not among the policies"),
            (&["hedge_attempts"], self.policies.iter().any(|p| p.hedges()), "no policy hedges"),
            (
                &["ratio_percent", "ratio_min_per_sec", "ratio_ttl"],
                has(Policy::HedgeRatio),
                "hedge+ratio is not among the policies",
            ),
        ];
        fleet::inert(&groups)
    }

    /// Operations, [`operations`](HedgingParams::operations) per load level
    /// and policy.
    fn work(&self) -> Work {
        let runs = (self.loads.0.len() * self.policies.0.len()) as u64;
        Work { total: runs * u64::from(self.operations), unit: "operations" }
    }

    fn run_with_progress(&self, progress: &Progress) -> Result<HedgingReport, Invalid> {
        self.validate()?;
        let backoff = self.backoff()?;
        let points: Vec<(f64, Policy)> = self
            .loads
            .0
            .iter()
            .flat_map(|&load| self.policies.0.iter().map(move |&policy| (load, policy)))
            .collect();
        // The heaviest first: the busier the server, the more events a run has.
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| points[b].0.total_cmp(&points[a].0));
        let rows = parallel(progress, &order, |_: &mut (), i| {
            let (load, policy) = points[i];
            self.simulate_point(load, policy, &backoff, progress)
        });
        Ok(HedgingReport::new(self.clone(), backoff, rows))
    }
}
