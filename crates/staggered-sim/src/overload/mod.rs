//! The `overload` scenario: a server loses half its capacity for five
//! seconds, and retries decide whether it comes back.
//!
//! Retries multiply load exactly when the server can least take it: an
//! overloaded server answers late, clients time out and retry, and the
//! retries keep it overloaded after the cause is gone, a metastable failure.
//! A retry budget bounds the extra load so the server can drain its queue.
//! [`OverloadParams`] runs each [`Policy`] it names and measures
//! amplification, goodput and recovery in an [`OverloadReport`], which
//! reads itself ([`OverloadReport::paragraphs`]) and presents itself in the
//! common shape ([`Present`](crate::Present)).
//!
//! # The model
//! Time is in milliseconds of virtual time (one engine time unit, as in
//! [`units`](crate::units)).
//!
//! - **Clients.** Operations start as a Poisson stream at `arrival_rate`
//!   (700 per second) for `duration` (60 s); the first attempt leaves at
//!   once. Each operation is one library [`Decision`](staggered::Decision)
//!   over its own jittered [`Delays`](staggered::Delays), limited by the
//!   schedule's `attempts` and deadline (one attempt for `no-retry`), and
//!   sharing the policy's budget with every other operation:
//!   `record_request` once per operation, `on_success` on success,
//!   `on_failure` on failure. The network takes no time: an attempt
//!   reaches the server when it is sent and the response reaches the client
//!   when the server finishes it.
//! - **Timeout.** If the response is not back `timeout` (100 ms) after the
//!   attempt was sent (or, when the schedule has a deadline, the time left
//!   before it, if shorter), the attempt fails with
//!   [`Failure::timeout`](staggered::Failure::timeout) and the decision
//!   retries after its delay or stops; a response that arrives later is
//!   ignored.
//! - **Server.** One worker and a FIFO queue without limit. Service times
//!   are exponential with mean `1 / capacity` (1 ms). From the trigger's
//!   start to its end the rate is `trigger_capacity` of that (halved): a
//!   service time is drawn when the service starts, at the rate in force
//!   then, so a request in service when the rate changes keeps its draw.
//!   The server serves every request, including those whose client has
//!   timed out (the work is wasted), and answers each with an error
//!   ([`Failure::TRANSIENT`](staggered::Failure::TRANSIENT), retried) with
//!   probability `error_rate`.
//! - **Success.** An attempt succeeds when its response arrives within the
//!   timeout and is not an error; the operation then ends successfully.
//! - **End.** No operation starts after `duration`; those still running are
//!   followed to their outcome (their attempts are bounded), so that
//!   `goodput` counts every operation's fate. The per-second series cover
//!   `[0, duration)`.
//!
//! What is measured, and the definitions of amplification, goodput and
//! recovery, are on [`OverloadRow`].
//!
//! Why retries without a budget never recover (a metastable failure: the
//! server works on attempts whose clients have given up), and how each
//! budget spends its allowance, is in the guide's chapter "Choosing a
//! strategy", with the default run's figures.
//!
//! # Reproducibility
//! A run draws from generators seeded by the experiment's seed: the first
//! attempts' arrivals and the server's service times and errors from
//! `(seed, stream)`, so every policy meets the same offered load (a paired
//! comparison), and each operation's jitter from `(seed, policy name,
//! operation index)`. Each row is a function of the parameters and its
//! policy alone: the report is bit-identical whatever the number of threads.

mod model;
mod reading;
mod report;
mod view;

pub use report::{OverloadReport, OverloadRow};

use std::cell::Cell;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use staggered::budget::{RatioBudgetBuilder, TokenBucketBuilder};
use staggered::{Backoff, NoBudget, RetryThrottle};

use crate::experiment::{ensure, Experiment, Invalid, Progress, Work};
use crate::fleet::{self, Policy};
use crate::values::{Capacity, Fraction, Jitter, List, Rate, Share, Span, Window};

/// The most first attempts a run may expect (`arrival_rate * duration`). At
/// this size one policy takes about a minute.
pub const MAX_OPERATIONS: f64 = 1e8;

/// The overload experiment: the server, the clients, the trigger, the
/// policies to compare and how recovery is judged. The default is a server
/// at 70% load that loses half its capacity for 5 s; the model is on the
/// [module](self).
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::{Experiment, OverloadParams, Policy};
///
/// // The default scenario, shortened to 30 s.
/// let params = OverloadParams { duration: "30s".parse()?, ..OverloadParams::default() };
/// let report = params.run()?;
/// assert!(!report.row(Policy::Retry).unwrap().recovered); // a metastable failure
/// assert!(report.row(Policy::TokenBucket).unwrap().recovered);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct OverloadParams {
    /// Policies to compare, comma-separated: no-retry, retry,
    /// retry+token-bucket, retry+ratio, retry+throttle.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub policies: List<Policy>,
    /// Simulated time during which operations start, 1s to 24h.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub duration: Span,
    /// Operations started per second (a Poisson stream), such as `700` or
    /// `700/s`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    pub arrival_rate: Rate,
    /// The server's capacity in requests per second (one worker,
    /// exponential service times).
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    pub capacity: Rate,
    /// The client's timeout on every attempt.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub timeout: Span,
    /// When the server loses capacity, `START..END` since the run began
    /// (`10s..15s`), or `none`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "START..END|none"))]
    pub trigger: Window,
    /// The capacity during the trigger: a rate (`500`, `500/s`) or a share
    /// of the capacity (`0.5x`, `50%`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "R|Fx|P%"))]
    pub trigger_capacity: Capacity,
    /// The probability that the server answers an attempt with an error, a
    /// transient failure that is retried: `0.01` or `1%`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub error_rate: Fraction,
    /// Goodput must reach this share of the offered load in every second of
    /// the recovery window: `0.95` or `95%`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub recovery_threshold: Fraction,
    /// How long goodput must hold the threshold, whole seconds.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub recovery_window: Span,
    /// retry+token-bucket: the bucket's tokens, full at the start.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_capacity: u32,
    /// retry+token-bucket: the cost of a retry after an error.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_retry_cost: u32,
    /// retry+token-bucket: the cost of a retry after a timeout.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_timeout_cost: u32,
    /// retry+token-bucket: the tokens a first-try success puts back.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_refund: u32,
    /// retry+ratio: retries allowed per recent request, `0.2` or `20%`, up
    /// to 1000 (100000%).
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub ratio_percent: Share,
    /// retry+ratio: retries allowed per second with no traffic.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub ratio_min_per_sec: u32,
    /// retry+ratio: how long requests and retries count, 1s to 60s.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub ratio_ttl: Span,
    /// retry+throttle: max_tokens, 1 to 1000; no retry at or below half.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub throttle_max_tokens: u32,
    /// retry+throttle: token_ratio, the tokens a success puts back, 0.001 to
    /// max_tokens.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub throttle_token_ratio: f64,
    /// Seed of every run's generators: the same seed gives the same output
    /// on every machine, whatever its number of cores.
    #[cfg_attr(feature = "clap", arg(long, value_name = "S", value_parser = crate::values::seed))]
    pub seed: u64,
    /// The retrying policies' strategy, one of the library's.
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME"))]
    pub strategy: Jitter,
    /// The first retry's ceiling, the schedule's base.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub base: Span,
    /// The schedule's cap (max_delay), at least the base.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub cap: Span,
    /// max_attempts of the retrying policies, first attempt included.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub attempts: u32,
    /// A deadline on each operation, none by default; an attempt's timeout
    /// is cut to the time left before it.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub deadline: Option<Span>,
}

impl Default for OverloadParams {
    /// 700 operations a second on a server of 1000 whose capacity halves
    /// from 10 s to 15 s of a 60 s run, attempts timing out after 100 ms;
    /// every policy, with full jitter from 100 ms, a 1 s cap and 3
    /// attempts; the budgets at their published defaults (the AWS SDKs'
    /// token bucket, Finagle's ratio budget, gRPC's retry throttle, 10
    /// tokens and a ratio of 0.1); recovery when goodput holds 95% of the
    /// offered load for 5 s.
    fn default() -> Self {
        let (bucket, ratio) = (TokenBucketBuilder::new(), RatioBudgetBuilder::new());
        let (strategy, base, cap, attempts) = fleet::DEFAULT_SCHEDULE;
        OverloadParams {
            policies: List(vec![
                Policy::NoRetry,
                Policy::Retry,
                Policy::TokenBucket,
                Policy::Ratio,
                Policy::Throttle,
            ]),
            duration: Span(Duration::from_secs(60)),
            arrival_rate: Rate(700.0),
            capacity: Rate(1000.0),
            timeout: Span(Duration::from_millis(100)),
            trigger: Window::Between(Duration::from_secs(10), Duration::from_secs(15)),
            trigger_capacity: Capacity::Share(0.5),
            error_rate: Fraction(0.0),
            recovery_threshold: Fraction(0.95),
            recovery_window: Span(Duration::from_secs(5)),
            bucket_capacity: bucket.capacity(),
            bucket_retry_cost: bucket.retry_cost(),
            bucket_timeout_cost: bucket.timeout_cost(),
            bucket_refund: bucket.success_refund(),
            ratio_percent: Share(ratio.retry_percent()),
            ratio_min_per_sec: ratio.min_per_sec(),
            ratio_ttl: Span(ratio.ttl()),
            throttle_max_tokens: 10,
            throttle_token_ratio: 0.1,
            seed: 2015,
            strategy: Jitter(strategy),
            base: Span(base),
            cap: Span(cap),
            attempts,
            deadline: None,
        }
    }
}

/// The policies of the overload scenario, in the order it compares them.
const POLICIES: [Policy; 5] =
    [Policy::NoRetry, Policy::Retry, Policy::TokenBucket, Policy::Ratio, Policy::Throttle];

impl OverloadParams {
    /// The schedule every retrying policy walks.
    ///
    /// # Errors
    /// An [`Invalid`] naming the parameter the library refuses.
    pub fn backoff(&self) -> Result<Backoff, Invalid> {
        fleet::schedule(self.strategy, self.base, self.cap, self.attempts, self.deadline)
    }

    /// The trigger as (start, end, the fraction of the capacity left), or
    /// `None` without one.
    pub fn trigger(&self) -> Option<(Duration, Duration, f64)> {
        match self.trigger {
            Window::None => None,
            Window::Between(start, end) => {
                Some((start, end, self.trigger_capacity.share_of(self.capacity.0)))
            }
        }
    }

    /// The token bucket of `retry+token-bucket`.
    pub fn token_bucket(&self) -> TokenBucketBuilder {
        TokenBucketBuilder::new()
            .with_capacity(self.bucket_capacity)
            .with_retry_cost(self.bucket_retry_cost)
            .with_timeout_cost(self.bucket_timeout_cost)
            .with_success_refund(self.bucket_refund)
    }

    /// The ratio budget of `retry+ratio`.
    pub fn ratio_budget(&self) -> RatioBudgetBuilder {
        RatioBudgetBuilder::new()
            .with_retry_percent(self.ratio_percent.0)
            .with_min_per_sec(self.ratio_min_per_sec)
            .with_ttl(self.ratio_ttl.0)
    }

    /// The retry throttle of `retry+throttle`.
    fn retry_throttle(&self) -> Result<RetryThrottle, Invalid> {
        RetryThrottle::with_parameters(self.throttle_max_tokens, self.throttle_token_ratio).map_err(|err| {
            let field: &[&str] = match err.field() {
                staggered::Field::MaxTokens => &["throttle_max_tokens"],
                _ => &["throttle_token_ratio"],
            };
            Invalid::new(field, format!("invalid budget for retry+throttle: {err}"))
        })
    }

    /// How many 1-second buckets the per-second series hold: the duration
    /// rounded up (the last bucket is shorter when the duration is not a
    /// whole number of seconds).
    pub fn buckets(&self) -> usize {
        fleet::buckets(self.duration.0)
    }

    /// Simulates one policy on the calling thread: the same row a report
    /// has for it, whether or not it is one of these parameters' policies.
    ///
    /// # Errors
    /// What [`validate`](Experiment::validate) finds.
    pub fn simulate(&self, policy: Policy) -> Result<OverloadRow, Invalid> {
        self.validate()?;
        Ok(self.simulate_policy(policy, &self.backoff()?, &Progress::default()))
    }

    /// One policy's run, with a fresh budget of the policy's kind.
    fn simulate_policy(&self, policy: Policy, backoff: &Backoff, progress: &Progress) -> OverloadRow {
        // The virtual clock the ratio budget reads; the run advances it.
        let clock = Cell::new(Duration::ZERO);
        let counts = match policy {
            Policy::TokenBucket => {
                model::simulate(self, policy, backoff, &self.token_bucket().build(), &clock, progress)
            }
            Policy::Ratio => {
                let budget = self.ratio_budget().build_with_clock(|| clock.get());
                let budget = budget.expect("the parameters checked the ratio budget");
                model::simulate(self, policy, backoff, &budget, &clock, progress)
            }
            Policy::Throttle => {
                let budget = self.retry_throttle().expect("the parameters checked the retry throttle");
                model::simulate(self, policy, backoff, &budget, &clock, progress)
            }
            _ => model::simulate(self, policy, backoff, &NoBudget, &clock, progress),
        };
        OverloadRow::new(self, policy, counts)
    }
}

impl Experiment for OverloadParams {
    type Report = OverloadReport;

    fn validate(&self) -> Result<(), Invalid> {
        let backoff = self.backoff()?;
        fleet::check_duration(self.duration.0)?;
        let timeout = format!("invalid timeout {}: must be above 0", self.timeout);
        ensure(!self.timeout.0.is_zero(), &["timeout"], timeout)?;
        if let Some((start, end, share)) = self.trigger() {
            let (window, duration) = (self.trigger, self.duration);
            ensure(
                start < end,
                &["trigger"],
                format!("invalid trigger {window}: must start before it ends"),
            )?;
            let late = format!("invalid trigger {window}: ends after the run's duration, {duration}");
            ensure(end <= self.duration.0, &["trigger", "duration"], late)?;
            let share_message = format!(
                "invalid trigger-capacity {share}: must be a finite fraction of the service rate above 0"
            );
            ensure(share.is_finite() && share > 0.0, &["trigger_capacity"], share_message)?;
        }
        fleet::check_policies(&self.policies, &POLICIES)?;
        self.ratio_budget().build_with_clock(|| Duration::ZERO).map_err(|err| {
            let field: &[&str] = match err.field() {
                staggered::Field::Ttl => &["ratio_ttl"],
                staggered::Field::RetryPercent => &["ratio_percent"],
                _ => &["ratio_min_per_sec"],
            };
            Invalid::new(field, format!("invalid budget for retry+ratio: {err}"))
        })?;
        self.retry_throttle()?;
        let threshold = self.recovery_threshold.0;
        let above_0 = format!("invalid recovery-threshold {threshold}: must be above 0 and at most 1");
        ensure(threshold > 0.0 && threshold <= 1.0, &["recovery_threshold"], above_0)?;
        let window = self.recovery_window.0;
        let whole = format!(
            "invalid recovery-window {}: must be a whole number of seconds, at least 1",
            self.recovery_window
        );
        ensure(window >= Duration::from_secs(1) && window.subsec_nanos() == 0, &["recovery_window"], whole)?;
        let retries = self.policies.iter().any(|&p| p != Policy::NoRetry);
        fleet::check_load(self.duration.0, self.arrival_rate.0, (MAX_OPERATIONS, ""), retries, &backoff)
    }

    /// The schedule's parameters without a retrying policy; a budget's
    /// without its policy; the trigger's capacity without a trigger.
    fn notes(&self) -> Vec<(&'static str, String)> {
        let has = |policy| self.policies.0.contains(&policy);
        let retries = self.policies.iter().any(|&p| p != Policy::NoRetry);
        let groups: [(&[&'static str], bool, &str); 5] = [
            (&["strategy", "base", "cap", "attempts", "deadline"], retries, "no policy retries"),
            (
                &["bucket_capacity", "bucket_retry_cost", "bucket_timeout_cost", "bucket_refund"],
                has(Policy::TokenBucket),
                "retry+token-bucket is not among the policies",
            ),
            (
                &["ratio_percent", "ratio_min_per_sec", "ratio_ttl"],
                has(Policy::Ratio),
                "retry+ratio is not among the policies",
            ),
            (
                &["throttle_max_tokens", "throttle_token_ratio"],
                has(Policy::Throttle),
                "retry+throttle is not among the policies",
            ),
            (&["trigger_capacity"], self.trigger != Window::None, "the trigger is none"),
        ];
        fleet::inert(&groups)
    }

    /// Simulated seconds, [`buckets`](OverloadParams::buckets) per policy: a
    /// run counts each second as its virtual clock passes it.
    fn work(&self) -> Work {
        Work { total: (self.buckets() * self.policies.0.len()) as u64, unit: "simulated seconds" }
    }

    fn run_with_progress(&self, progress: &Progress) -> Result<OverloadReport, Invalid> {
        self.validate()?;
        let backoff = self.backoff()?;
        let rows = fleet::run_policies(&self.policies.0, progress, |policy| {
            self.simulate_policy(policy, &backoff, progress)
        });
        Ok(OverloadReport::new(self.clone(), backoff, rows))
    }
}
