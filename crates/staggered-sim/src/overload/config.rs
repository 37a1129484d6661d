//! `OverloadConfig`: a validated overload experiment, and its builder.

use std::num::NonZeroUsize;
use std::time::Duration;

use serde::Serialize;
use staggered::budget::{RatioBudgetBuilder, TokenBucketBuilder};
use staggered::{Backoff, RetryThrottle, Strategy};

use super::{OverloadError, OverloadPolicy};
use crate::plain;

/// The longest run: a day of simulated time (the per-second series are
/// kept in memory).
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// The most first attempts a run may expect (`arrival_rate * duration`). At
/// this size one policy takes about a minute.
pub const MAX_OPERATIONS: f64 = 1e8;

/// The most attempts a run may make at worst, when every attempt fails and
/// a retrying policy makes all of `max_attempts` for every operation: ten
/// times [`MAX_OPERATIONS`], about ten minutes per policy.
pub const MAX_ATTEMPTS: f64 = 10.0 * MAX_OPERATIONS;

/// A window during which the server's capacity changes: from `start` to
/// `end` the service rate is multiplied by `capacity`.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::Trigger;
///
/// let trigger = Trigger::default();
/// assert_eq!((trigger.start(), trigger.end()), (Duration::from_secs(10), Duration::from_secs(15)));
/// assert_eq!(trigger.capacity(), 0.5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Trigger {
    #[serde(serialize_with = "plain::human")]
    start: Duration,
    #[serde(serialize_with = "plain::human")]
    end: Duration,
    capacity: f64,
}

impl Trigger {
    /// A trigger from `start` to `end` (since the run began) leaving
    /// `capacity` times the service rate (0.5 halves it). Checked when the
    /// configuration is built.
    pub const fn new(start: Duration, end: Duration, capacity: f64) -> Self {
        Trigger { start, end, capacity }
    }
    /// When the trigger starts, since the run began.
    pub const fn start(&self) -> Duration {
        self.start
    }
    /// When the trigger ends.
    pub const fn end(&self) -> Duration {
        self.end
    }
    /// The fraction of the service rate left during the trigger.
    pub const fn capacity(&self) -> f64 {
        self.capacity
    }
}

impl Default for Trigger {
    /// The default trigger: the capacity halves from 10 s to 15 s.
    fn default() -> Self {
        Trigger::new(Duration::from_secs(10), Duration::from_secs(15), 0.5)
    }
}

/// A validated overload experiment: the server, the clients, the trigger,
/// the policies to compare and how recovery is judged. The model is
/// documented on [`run_overload`](crate::run_overload).
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::{OverloadConfig, OverloadPolicy};
///
/// let config = OverloadConfig::builder()
///     .with_arrival_rate(800.0)
///     .with_duration(Duration::from_secs(30))
///     .with_policies([OverloadPolicy::Retry, OverloadPolicy::TokenBucket])
///     .build()?;
/// assert_eq!(config.service_rate(), 1000.0);
/// assert!(OverloadConfig::builder().with_error_rate(1.5).build().is_err());
/// # Ok::<(), staggered_sim::OverloadError>(())
/// ```
///
/// It serializes as plain data: durations as the CLI writes them (`100ms`),
/// the backoff and the budgets as their parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverloadConfig {
    pub(super) seed: u64,
    #[serde(serialize_with = "plain::human")]
    pub(super) duration: Duration,
    pub(super) arrival_rate: f64,
    pub(super) service_rate: f64,
    #[serde(serialize_with = "plain::human")]
    pub(super) timeout: Duration,
    pub(super) trigger: Option<Trigger>,
    pub(super) error_rate: f64,
    pub(super) policies: Vec<OverloadPolicy>,
    #[serde(serialize_with = "plain::backoff")]
    pub(super) backoff: Backoff,
    #[serde(serialize_with = "plain::token_bucket")]
    pub(super) token_bucket: TokenBucketBuilder,
    #[serde(serialize_with = "plain::ratio_budget")]
    pub(super) ratio_budget: RatioBudgetBuilder,
    pub(super) retry_throttle: (u32, f64),
    pub(super) recovery_threshold: f64,
    #[serde(serialize_with = "plain::human")]
    pub(super) recovery_window: Duration,
    #[serde(skip)]
    pub(super) threads: Option<NonZeroUsize>,
}

impl OverloadConfig {
    /// A builder holding the defaults (see [`OverloadConfigBuilder`]).
    pub fn builder() -> OverloadConfigBuilder {
        OverloadConfigBuilder::new()
    }

    /// A builder that starts from this configuration, to change some of it.
    pub fn to_builder(&self) -> OverloadConfigBuilder {
        OverloadConfigBuilder { config: self.clone() }
    }

    /// The experiment's seed: every run's generators derive from it.
    pub const fn seed(&self) -> u64 {
        self.seed
    }
    /// The simulated time during which first attempts arrive.
    pub const fn duration(&self) -> Duration {
        self.duration
    }
    /// First attempts per second (a Poisson stream).
    pub const fn arrival_rate(&self) -> f64 {
        self.arrival_rate
    }
    /// The server's capacity in requests per second outside the trigger
    /// (exponential service times).
    pub const fn service_rate(&self) -> f64 {
        self.service_rate
    }
    /// The client's timeout on every attempt.
    pub const fn timeout(&self) -> Duration {
        self.timeout
    }
    /// The capacity drop, if any.
    pub const fn trigger(&self) -> Option<Trigger> {
        self.trigger
    }
    /// The probability that the server answers an attempt with an error.
    pub const fn error_rate(&self) -> f64 {
        self.error_rate
    }
    /// The policies, in the order given.
    pub fn policies(&self) -> &[OverloadPolicy] {
        &self.policies
    }
    /// The schedule every retrying policy walks; its `max_attempts` and
    /// deadline bound each operation.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }
    /// The parameters of [`OverloadPolicy::TokenBucket`]'s budget.
    pub const fn token_bucket(&self) -> TokenBucketBuilder {
        self.token_bucket
    }
    /// The parameters of [`OverloadPolicy::Ratio`]'s budget.
    pub const fn ratio_budget(&self) -> RatioBudgetBuilder {
        self.ratio_budget
    }
    /// The `(max_tokens, token_ratio)` of [`OverloadPolicy::Throttle`]'s budget.
    pub const fn retry_throttle(&self) -> (u32, f64) {
        self.retry_throttle
    }
    /// The share of the offered load that goodput must reach in every second
    /// of the recovery window.
    pub const fn recovery_threshold(&self) -> f64 {
        self.recovery_threshold
    }
    /// How long goodput must hold the threshold to count as recovered.
    pub const fn recovery_window(&self) -> Duration {
        self.recovery_window
    }
    /// The worker threads asked for; `None` means one per available core.
    pub const fn threads(&self) -> Option<NonZeroUsize> {
        self.threads
    }

    /// How many 1-second buckets the per-second series hold: the duration
    /// rounded up (the last bucket is shorter when the duration is not a
    /// whole number of seconds).
    pub fn buckets(&self) -> usize {
        crate::units::seconds_up(self.duration)
    }
}

impl Default for OverloadConfig {
    /// The default scenario, [`OverloadConfigBuilder::new`]'s defaults.
    fn default() -> Self {
        OverloadConfigBuilder::new().build().expect("the default scenario is a valid configuration")
    }
}

/// Builds an [`OverloadConfig`], checking every parameter.
///
/// # Default
/// A server at 70% load that loses half its capacity for 5 s:
///
/// | parameter | default |
/// |---|---|
/// | `seed` | 2015 |
/// | `duration` | 60 s |
/// | `arrival_rate` | 700 first attempts per second, Poisson |
/// | `service_rate` | 1000 requests per second, exponential service times |
/// | `timeout` | 100 ms per attempt |
/// | `trigger` | [`Trigger::default`]: capacity halved from 10 s to 15 s |
/// | `error_rate` | 0 |
/// | `policies` | [`OverloadPolicy::ALL`] |
/// | `backoff` | `full`, base 100 ms, max_delay 1 s, max_attempts 3 |
/// | `token_bucket` | AWS: 500 tokens, retry 5, timeout 10, refund 1 |
/// | `ratio_budget` | Finagle: 20% + 10 per second over 10 s |
/// | `retry_throttle` | gRPC: 10 tokens, ratio 0.1 |
/// | `recovery_threshold`, `recovery_window` | 0.95 and 5 s |
/// | `threads` | one per available core (results do not depend on it) |
///
/// The backoff: full jitter, with the `interactive` preset's
/// base (100 ms, the size of the timeout: a caller that waits 100 ms for an
/// answer retries on that scale) and 3 attempts (the AWS SDK's standard
/// mode). With 3 attempts the delays are `U[0, 100 ms]` then `U[0, 200 ms]`,
/// so the 1 s cap never binds.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct OverloadConfigBuilder {
    config: OverloadConfig,
}

impl OverloadConfigBuilder {
    /// A builder with the defaults above.
    pub fn new() -> Self {
        let backoff = Backoff::builder(Strategy::Full)
            .with_base(Duration::from_millis(100))
            .with_max_delay(Duration::from_secs(1))
            .with_max_attempts(3)
            .build()
            .expect("the default backoff is valid");
        OverloadConfigBuilder {
            config: OverloadConfig {
                seed: 2015,
                duration: Duration::from_secs(60),
                arrival_rate: 700.0,
                service_rate: 1000.0,
                timeout: Duration::from_millis(100),
                trigger: Some(Trigger::default()),
                error_rate: 0.0,
                policies: OverloadPolicy::ALL.to_vec(),
                backoff,
                token_bucket: TokenBucketBuilder::new(),
                ratio_budget: RatioBudgetBuilder::new(),
                retry_throttle: (10, 0.1),
                recovery_threshold: 0.95,
                recovery_window: Duration::from_secs(5),
                threads: None,
            },
        }
    }

    /// Sets the seed every run's generators derive from.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }
    /// Sets the simulated time during which first attempts arrive; 1 s to
    /// [`MAX_DURATION`]. Operations still running at the end are followed
    /// to their outcome.
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.config.duration = duration;
        self
    }
    /// Sets the first attempts per second; finite, above 0.
    pub fn with_arrival_rate(mut self, per_second: f64) -> Self {
        self.config.arrival_rate = per_second;
        self
    }
    /// Sets the server's capacity in requests per second; finite, above 0.
    pub fn with_service_rate(mut self, per_second: f64) -> Self {
        self.config.service_rate = per_second;
        self
    }
    /// Sets the client's timeout on every attempt; above 0.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = timeout;
        self
    }
    /// Sets the capacity drop; it must start before it ends and end within
    /// the duration, and its capacity must be finite and above 0.
    pub fn with_trigger(mut self, trigger: Trigger) -> Self {
        self.config.trigger = Some(trigger);
        self
    }
    /// Runs without a capacity drop.
    pub fn without_trigger(mut self) -> Self {
        self.config.trigger = None;
        self
    }
    /// Sets the probability that the server answers an attempt with an
    /// error (a transient failure); 0 to 1.
    pub fn with_error_rate(mut self, probability: f64) -> Self {
        self.config.error_rate = probability;
        self
    }
    /// Sets the policies to compare, without repeats.
    pub fn with_policies(mut self, policies: impl IntoIterator<Item = OverloadPolicy>) -> Self {
        self.config.policies = policies.into_iter().collect();
        self
    }
    /// Sets the schedule of the retrying policies. It needs `max_attempts`
    /// or a deadline, so that every operation ends, and at most
    /// [`MAX_ATTEMPTS`] attempts at worst; its seed is ignored
    /// (each operation's generator derives from the experiment's seed).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.config.backoff = backoff;
        self
    }
    /// Sets the token bucket's parameters.
    pub fn with_token_bucket(mut self, token_bucket: TokenBucketBuilder) -> Self {
        self.config.token_bucket = token_bucket;
        self
    }
    /// Sets the ratio budget's parameters.
    pub fn with_ratio_budget(mut self, ratio_budget: RatioBudgetBuilder) -> Self {
        self.config.ratio_budget = ratio_budget;
        self
    }
    /// Sets the retry throttle's `max_tokens` and `token_ratio`.
    pub fn with_retry_throttle(mut self, max_tokens: u32, token_ratio: f64) -> Self {
        self.config.retry_throttle = (max_tokens, token_ratio);
        self
    }
    /// Sets how recovery is judged: goodput at or above `threshold` (above
    /// 0, at most 1) times the offered load in every second of `window` (a
    /// whole number of seconds, at least 1).
    pub fn with_recovery(mut self, threshold: f64, window: Duration) -> Self {
        self.config.recovery_threshold = threshold;
        self.config.recovery_window = window;
        self
    }
    /// Sets the number of worker threads. Results do not depend on it.
    pub fn with_threads(mut self, threads: NonZeroUsize) -> Self {
        self.config.threads = Some(threads);
        self
    }
    /// Uses one worker thread per available core (the default).
    pub fn without_threads(mut self) -> Self {
        self.config.threads = None;
        self
    }

    /// Checks every parameter and builds the configuration.
    ///
    /// # Errors
    /// An [`OverloadError`] naming the first parameter that is wrong.
    pub fn build(self) -> Result<OverloadConfig, OverloadError> {
        let c = self.config;
        if c.duration < Duration::from_secs(1) || c.duration > MAX_DURATION {
            return Err(OverloadError::Duration(c.duration));
        }
        if !(c.arrival_rate.is_finite() && c.arrival_rate > 0.0) {
            return Err(OverloadError::ArrivalRate(c.arrival_rate));
        }
        if !(c.service_rate.is_finite() && c.service_rate > 0.0) {
            return Err(OverloadError::ServiceRate(c.service_rate));
        }
        if c.timeout.is_zero() {
            return Err(OverloadError::Timeout(c.timeout));
        }
        if let Some(Trigger { start, end, capacity }) = c.trigger {
            if start >= end || end > c.duration {
                return Err(OverloadError::TriggerWindow { start, end, duration: c.duration });
            }
            if !(capacity.is_finite() && capacity > 0.0) {
                return Err(OverloadError::TriggerCapacity(capacity));
            }
        }
        if !(0.0..=1.0).contains(&c.error_rate) {
            return Err(OverloadError::ErrorRate(c.error_rate));
        }
        if c.policies.is_empty() {
            return Err(OverloadError::NoPolicies);
        }
        for (i, &policy) in c.policies.iter().enumerate() {
            if c.policies[..i].contains(&policy) {
                return Err(OverloadError::DuplicatePolicy(policy));
            }
        }
        if c.backoff.max_attempts().is_none() && c.backoff.deadline().is_none() {
            return Err(OverloadError::UnboundedBackoff);
        }
        c.ratio_budget
            .build_with_clock(|| Duration::ZERO)
            .map_err(|source| OverloadError::Budget { policy: OverloadPolicy::Ratio, source })?;
        let (max_tokens, token_ratio) = c.retry_throttle;
        RetryThrottle::with_parameters(max_tokens, token_ratio)
            .map_err(|source| OverloadError::Budget { policy: OverloadPolicy::Throttle, source })?;
        if !(c.recovery_threshold > 0.0 && c.recovery_threshold <= 1.0) {
            return Err(OverloadError::RecoveryThreshold(c.recovery_threshold));
        }
        if c.recovery_window < Duration::from_secs(1) || c.recovery_window.subsec_nanos() != 0 {
            return Err(OverloadError::RecoveryWindow(c.recovery_window));
        }
        let operations = c.arrival_rate * c.duration.as_secs_f64();
        if operations > MAX_OPERATIONS {
            return Err(OverloadError::TooManyOperations(operations));
        }
        // Without a budget, an overload makes every operation use all its attempts.
        let retries = c.policies.iter().any(|&p| p != OverloadPolicy::NoRetry);
        let attempts = operations * f64::from(c.backoff.max_attempts().unwrap_or(1));
        if retries && attempts > MAX_ATTEMPTS {
            return Err(OverloadError::TooManyAttempts(attempts));
        }
        Ok(c)
    }
}

impl Default for OverloadConfigBuilder {
    fn default() -> Self {
        OverloadConfigBuilder::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_story_of_a_capacity_drop() {
        let config = OverloadConfig::default();
        assert_eq!(config.duration(), Duration::from_secs(60));
        assert_eq!((config.arrival_rate(), config.service_rate()), (700.0, 1000.0));
        assert_eq!(config.timeout(), Duration::from_millis(100));
        assert_eq!(
            config.trigger(),
            Some(Trigger::new(Duration::from_secs(10), Duration::from_secs(15), 0.5))
        );
        assert_eq!(config.policies(), OverloadPolicy::ALL);
        assert_eq!(config.backoff().max_attempts(), Some(3));
        assert_eq!(config.backoff().strategy(), Strategy::Full);
        assert_eq!(config.buckets(), 60);
        assert_eq!(config.to_builder().build().unwrap(), config);
        let odd = config.to_builder().with_duration(Duration::from_millis(2500)).without_trigger();
        assert_eq!(odd.build().unwrap().buckets(), 3);
    }
}
