//! The `throttling` scenario: a fleet offers more than a rate-limited server
//! admits, and an adaptive limiter (the AWS SDKs' mode, or the tracking
//! mode) learns to send what it admits.
//!
//! A throttled client does not have an outage to ride out: it sends faster
//! than the server admits, so every attempt, first attempts included,
//! competes for too little capacity, and backing off between the retries of
//! one operation does nothing about the next operation's first attempt.
//! [`ThrottlingParams`] runs each [`Policy`] it names and measures
//! throttling, goodput, client-side waits and the rate the fleet settles at
//! in a [`ThrottlingReport`], which reads itself
//! ([`ThrottlingReport::paragraphs`]) and presents itself in the common
//! shape ([`Present`](crate::Present)).
//!
//! # The model
//! Time is in milliseconds of virtual time (one engine time unit, as in
//! [`units`](crate::units)).
//!
//! - **Clients.** `clients` (20) clients each start operations as a
//!   Poisson stream at `arrival_rate / clients` per second (1000 per second
//!   in all) for `duration` (60 s). Each operation is one library
//!   [`Decision`](staggered::Decision) over its own jittered
//!   [`Delays`](staggered::Delays), limited by the schedule's `attempts`
//!   and deadline (one attempt for `no-retry`). The standard and adaptive
//!   modes give each client its own retry quota (a
//!   [`TokenBucket`](staggered::TokenBucket)): `on_success` on success,
//!   `on_failure` with [`Failure::THROTTLED`](staggered::Failure::THROTTLED)
//!   on a throttle.
//! - **Caller.** Each operation's caller gives up after `timeout` (5 s):
//!   it is the decision's deadline too (no retry waits past it), and an
//!   operation that succeeds later is late, not goodput.
//! - **Limiter.** Under `adaptive` and `adaptive-tracking` each client has
//!   one [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter) on the
//!   simulation's clock, in the AWS SDKs' mode or the tracking mode
//!   ([`AdaptiveMode`](staggered::limiter::AdaptiveMode)). Every attempt,
//!   first or retry, joins the client's queue and leaves it, first come
//!   first served, when
//!   [`try_acquire`](staggered::limiter::AdaptiveLimiter::try_acquire) gives
//!   it a token; when it says to wait, the client asks again after that
//!   wait. Every response is recorded with
//!   [`record_response`](staggered::limiter::AdaptiveLimiter::record_response).
//!   Until the first throttle the limiter is off and nothing waits. An
//!   attempt waits at most `max_token_wait` (1 s) for its token, and never
//!   past the caller's timeout: at the head of the queue it gives up as
//!   soon as the limiter's wait would take it past that bound, behind the
//!   head at the bound itself; the operation is shed (the library's
//!   [`StopReason::TokenWaitTooLong`](staggered::StopReason::TokenWaitTooLong)).
//! - **Network.** A message takes one `hop` (10 ms) each way.
//! - **Server.** It admits at most `rate_limit` (500) requests per second:
//!   a token bucket refilled at that rate, holding `rate_limit_burst` of
//!   tokens (one second's worth; at least one), full at the start. A request that finds a token is served
//!   at once and succeeds; one that finds none is answered at once as
//!   throttled. Either answer reaches the client one hop later.
//! - **Announced quota.** With `announce`, the server writes the IETF
//!   `RateLimit` field on every answer, `"default";r=R;t=T`: `R` the whole
//!   tokens left in its bucket, `T` the whole seconds, rounded up, until
//!   the bucket is full (0 when it is). Under `adaptive+headers` each
//!   client reads it with the library's parser
//!   ([`ratelimit`](staggered::classify::quota::ratelimit)) and tells its
//!   limiter ([`announce`](staggered::limiter::AdaptiveLimiter::announce))
//!   before recording the response; the other policies do not read it.
//! - **End.** Nothing happens after `duration`: an operation still waiting
//!   or in flight then is unfinished (offered, not succeeded), and waits
//!   still under way count up to the end (a queued attempt whose bound has
//!   passed by then was shed at it).
//!
//! What is measured is on [`ThrottlingRow`].
//!
//! What each policy does about it, with the default run's figures, is in
//! the guide's chapter "When the server throttles".
//!
//! # Reproducibility
//! Each client's arrivals come from a generator seeded by `(seed, client)`
//! and each operation's jitter from `(seed, client, operation index)`,
//! without the policy: every policy meets the same offered load, and an
//! operation draws the same delays under each (a paired comparison). Each
//! row is a function of the parameters and its policy alone: the report is
//! bit-identical whatever the number of threads.

mod model;
mod reading;
mod report;
mod view;

pub use report::{ThrottlingReport, ThrottlingRow};

use std::cell::Cell;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use staggered::budget::TokenBucketBuilder;
use staggered::limiter::AdaptiveLimiterBuilder;
use staggered::Backoff;

use crate::experiment::{ensure, Experiment, Invalid, Progress, Work};
use crate::fleet::{self, Policy};
use crate::values::{Jitter, List, Rate, Span};

/// The most clients a run may have: each has its own arrivals, quota and
/// limiter.
pub const MAX_THROTTLING_CLIENTS: u32 = 100_000;

/// The most operations a run may expect (`arrival_rate * duration`), a
/// tenth of the overload scenario's: the clients' queues hold every
/// operation the limiter holds back, about 350 bytes each, so a run far
/// above the limit at this size may take 3.5 GB.
pub const MAX_THROTTLING_OPERATIONS: f64 = 1e7;

/// The longest network hop.
pub const MAX_THROTTLING_HOP: Duration = Duration::from_secs(10);

/// The throttling experiment: the server's rate limit, the clients and
/// their load, and the policies to compare. The default is a fleet offering
/// twice what the server admits; the model is on the [module](self).
///
/// ```
/// use staggered_sim::{Experiment, Policy, ThrottlingParams};
///
/// // A small fleet offering twice the limit, for 20 s.
/// let params = ThrottlingParams {
///     clients: 4,
///     arrival_rate: "200".parse()?,
///     rate_limit: "100".parse()?,
///     duration: "20s".parse()?,
///     policies: "retry,adaptive".parse()?,
///     ..ThrottlingParams::default()
/// };
/// let report = params.run()?;
/// let (retry, adaptive) = (report.row(Policy::Retry).unwrap(), report.row(Policy::Adaptive).unwrap());
/// assert!(adaptive.throttled_fraction < retry.throttled_fraction / 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ThrottlingParams {
    /// Policies to compare, comma-separated: no-retry, retry,
    /// retry+token-bucket (the AWS SDKs' standard mode), adaptive (their
    /// adaptive mode), adaptive-tracking (the same with the limiter's
    /// tracking mode), and adaptive+headers (not by default: adaptive told
    /// the quota the server announces, with `announce`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub policies: List<Policy>,
    /// Simulated time of a run, 1s to 24h.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub duration: Span,
    /// The number of clients, each with its own arrivals, retry quota and
    /// limiter.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = crate::values::count))]
    pub clients: u32,
    /// Operations per second of all clients together (Poisson, split
    /// evenly), such as `1000` or `1000/s`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    pub arrival_rate: Rate,
    /// The requests per second the server admits (a token bucket; the
    /// excess is throttled at once), such as `500` or `500/s`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R"))]
    pub rate_limit: Rate,
    /// How much the server's token bucket holds, as time at the rate limit:
    /// `1s` holds a second of requests (never less than one request).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub rate_limit_burst: Span,
    /// One network hop, client to server or back, at most 10s.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub hop: Span,
    /// retry+token-bucket and adaptive: each client's retry quota, in tokens.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_capacity: u32,
    /// retry+token-bucket and adaptive: the quota's cost of a throttled retry.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_throttled_cost: u32,
    /// retry+token-bucket and adaptive: the tokens a first-try success puts back.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub bucket_refund: u32,
    /// adaptive: CUBIC's scale constant C, above 0.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub limiter_scale_constant: f64,
    /// adaptive: the fraction of the rate kept after a throttle, above 0 and below 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub limiter_beta: f64,
    /// adaptive: the weight of the latest rate bucket in the measured rate,
    /// above 0, at most 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub limiter_smoothing: f64,
    /// adaptive: the width of the rate meter's buckets, 1ms to 60s.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub limiter_rate_bucket: Span,
    /// adaptive: the lowest fill rate, per second, above 0.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub limiter_min_rate: f64,
    /// adaptive: the fill rate never exceeds this times the measured rate,
    /// at least 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F"))]
    pub limiter_max_rate_scale: f64,
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
    /// A deadline on each operation, none by default.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub deadline: Option<Span>,
    /// The caller's timeout on each operation, 1ms to 24h: no retry or
    /// wait for a token goes past it, an operation still waiting for a
    /// token then is shed, and only operations that succeed within it
    /// count as goodput.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub timeout: Span,
    /// adaptive and adaptive-tracking: the longest an attempt waits for its
    /// token before it is shed (the policies' max_token_wait), 1ms to 24h.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DUR"))]
    pub max_token_wait: Span,
    /// The server announces its quota on every response, in the IETF
    /// `RateLimit` header field (`"default";r=TOKENS;t=SECONDS`: the tokens
    /// left in its bucket and the whole seconds until it is full), which
    /// the adaptive+headers policy's limiters are told. `--announce` alone
    /// turns it on.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)
    )]
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub announce: bool,
}

impl Default for ThrottlingParams {
    /// 20 clients offering 1000 operations a second in all for 60 s to a
    /// server that admits 500, 10 ms a hop; every policy, with full jitter
    /// from 100 ms, a 1 s cap and 3 attempts, and a caller timeout of 5 s
    /// on each operation, of which an attempt waits at most 1 s for a
    /// limiter's token; the AWS SDKs' retry quota
    /// (500 tokens, a throttled retry costs 5, a first-try success refunds
    /// 1) and adaptive limiter (CUBIC, scale constant 0.4, beta 0.7).
    fn default() -> Self {
        let (quota, limiter) = (TokenBucketBuilder::new(), AdaptiveLimiterBuilder::new());
        let (strategy, base, cap, attempts) = fleet::DEFAULT_SCHEDULE;
        ThrottlingParams {
            policies: List(POLICIES.to_vec()),
            duration: Span(Duration::from_secs(60)),
            clients: 20,
            arrival_rate: Rate(1000.0),
            rate_limit: Rate(500.0),
            rate_limit_burst: Span(Duration::from_secs(1)),
            hop: Span(Duration::from_millis(10)),
            bucket_capacity: quota.capacity(),
            bucket_throttled_cost: quota.throttled_cost(),
            bucket_refund: quota.success_refund(),
            limiter_scale_constant: limiter.scale_constant(),
            limiter_beta: limiter.beta(),
            limiter_smoothing: limiter.smoothing(),
            limiter_rate_bucket: Span(limiter.rate_bucket()),
            limiter_min_rate: limiter.min_rate(),
            limiter_max_rate_scale: limiter.max_rate_scale(),
            seed: 2015,
            strategy: Jitter(strategy),
            base: Span(base),
            cap: Span(cap),
            attempts,
            deadline: None,
            timeout: Span(Duration::from_secs(5)),
            max_token_wait: Span(Duration::from_secs(1)),
            announce: false,
        }
    }
}

/// The policies of the throttling scenario, in the order it compares them.
const POLICIES: [Policy; 5] =
    [Policy::NoRetry, Policy::Retry, Policy::TokenBucket, Policy::Adaptive, Policy::Tracking];

/// Every policy the throttling scenario knows: its default ones, and
/// adaptive+headers, which needs the server to announce its quota.
const KNOWN: [Policy; 6] = [
    Policy::NoRetry,
    Policy::Retry,
    Policy::TokenBucket,
    Policy::Adaptive,
    Policy::Tracking,
    Policy::AdaptiveHeaders,
];

impl ThrottlingParams {
    /// The schedule every retrying policy walks.
    ///
    /// # Errors
    /// An [`Invalid`] naming the parameter the library refuses.
    pub fn backoff(&self) -> Result<Backoff, Invalid> {
        fleet::schedule(self.strategy, self.base, self.cap, self.attempts, self.deadline)
    }

    /// Each client's retry quota (standard and adaptive modes).
    pub fn quota(&self) -> TokenBucketBuilder {
        TokenBucketBuilder::new()
            .with_capacity(self.bucket_capacity)
            .with_throttled_cost(self.bucket_throttled_cost)
            .with_success_refund(self.bucket_refund)
    }

    /// Each client's adaptive limiter, in the AWS SDKs' mode (a policy's
    /// [`limiter_mode`](Policy::limiter_mode) sets its own).
    pub fn limiter(&self) -> AdaptiveLimiterBuilder {
        AdaptiveLimiterBuilder::new()
            .with_scale_constant(self.limiter_scale_constant)
            .with_beta(self.limiter_beta)
            .with_smoothing(self.limiter_smoothing)
            .with_rate_bucket(self.limiter_rate_bucket.0)
            .with_min_rate(self.limiter_min_rate)
            .with_max_rate_scale(self.limiter_max_rate_scale)
    }

    /// How many 1-second buckets the per-second series hold: the duration
    /// rounded up.
    pub fn buckets(&self) -> usize {
        fleet::buckets(self.duration.0)
    }

    /// Simulates one policy on the calling thread: the same row a report
    /// has for it, whether or not it is one of these parameters' policies.
    ///
    /// # Errors
    /// What [`validate`](Experiment::validate) finds.
    pub fn simulate(&self, policy: Policy) -> Result<ThrottlingRow, Invalid> {
        self.validate()?;
        Ok(self.simulate_policy(policy, &self.backoff()?, &Progress::default()))
    }

    /// One policy's run, with fresh quotas and limiters.
    fn simulate_policy(&self, policy: Policy, backoff: &Backoff, progress: &Progress) -> ThrottlingRow {
        let clock = Cell::new(Duration::ZERO);
        ThrottlingRow::new(self, policy, model::simulate(self, policy, backoff, &clock, progress))
    }
}

impl Experiment for ThrottlingParams {
    type Report = ThrottlingReport;

    fn validate(&self) -> Result<(), Invalid> {
        let backoff = self.backoff()?;
        fleet::check_duration(self.duration.0)?;
        let clients = format!("invalid clients {}: must be from 1 to {MAX_THROTTLING_CLIENTS}", self.clients);
        ensure((1..=MAX_THROTTLING_CLIENTS).contains(&self.clients), &["clients"], clients)?;
        let hop = format!("invalid hop {}: must be at most {}", self.hop, Span(MAX_THROTTLING_HOP));
        ensure(self.hop.0 <= MAX_THROTTLING_HOP, &["hop"], hop)?;
        let within = |span: Span| (Duration::from_millis(1)..=fleet::MAX_DURATION).contains(&span.0);
        let timeout = format!("invalid timeout {}: must be from 1ms to 24h", self.timeout);
        ensure(within(self.timeout), &["timeout"], timeout)?;
        let wait = format!("invalid max_token_wait {}: must be from 1ms to 24h", self.max_token_wait);
        ensure(within(self.max_token_wait), &["max_token_wait"], wait)?;
        fleet::check_policies(&self.policies, &KNOWN)?;
        self.limiter().validate().map_err(|err| {
            let field = match err.field() {
                staggered::Field::ScaleConstant => "limiter_scale_constant",
                staggered::Field::Beta => "limiter_beta",
                staggered::Field::Smoothing => "limiter_smoothing",
                staggered::Field::RateBucket => "limiter_rate_bucket",
                staggered::Field::MinRate => "limiter_min_rate",
                _ => "limiter_max_rate_scale",
            };
            Invalid::new(&[field], format!("invalid limiter for adaptive: {err}"))
        })?;
        let retries = self.policies.iter().any(|&p| p != Policy::NoRetry);
        let held = " (the clients' queues are held in memory)";
        fleet::check_load(
            self.duration.0,
            self.arrival_rate.0,
            (MAX_THROTTLING_OPERATIONS, held),
            retries,
            &backoff,
        )
    }

    /// The schedule's parameters without a retrying policy, the quota's
    /// without a policy that has one, the limiter's without `adaptive`.
    fn notes(&self) -> Vec<(&'static str, String)> {
        let has = |check: fn(Policy) -> bool| self.policies.iter().any(|&p| check(p));
        let groups: [(&[&'static str], bool, &str); 5] = [
            (
                &["strategy", "base", "cap", "attempts", "deadline"],
                has(|p| p != Policy::NoRetry),
                "no policy retries",
            ),
            (
                &["bucket_capacity", "bucket_throttled_cost", "bucket_refund"],
                has(Policy::has_budget),
                "no policy has a retry quota",
            ),
            (
                &["limiter_scale_constant", "limiter_beta", "limiter_smoothing", "limiter_rate_bucket"],
                has(|p| p == Policy::Adaptive || p == Policy::AdaptiveHeaders),
                "neither adaptive nor adaptive+headers is among the policies",
            ),
            (&["announce"], has(Policy::reads_headers), "adaptive+headers is not among the policies"),
            (&["max_token_wait"], has(Policy::has_limiter), "no policy has a limiter"),
        ];
        fleet::inert(&groups)
    }

    /// Simulated seconds, [`buckets`](ThrottlingParams::buckets) per policy.
    fn work(&self) -> Work {
        Work { total: (self.buckets() * self.policies.0.len()) as u64, unit: "simulated seconds" }
    }

    fn run_with_progress(&self, progress: &Progress) -> Result<ThrottlingReport, Invalid> {
        self.validate()?;
        let backoff = self.backoff()?;
        let rows = fleet::run_policies(&self.policies.0, progress, |policy| {
            self.simulate_policy(policy, &backoff, progress)
        });
        Ok(ThrottlingReport::new(self.clone(), backoff, rows))
    }
}
