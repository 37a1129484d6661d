//! `ThrottlingConfig`: a validated throttling experiment, and its builder.

use std::num::NonZeroUsize;
use std::time::Duration;

use serde::{Serialize, Serializer};
use staggered::budget::TokenBucketBuilder;
use staggered::config::format_duration;
use staggered::limiter::AdaptiveLimiterBuilder;
use staggered::{Backoff, Strategy};

use super::{ThrottlingError, ThrottlingPolicy};
use crate::{plain, MAX_ATTEMPTS, MAX_DURATION};

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

/// A validated throttling experiment: the server's rate limit, the clients
/// and their load, and the policies to compare. The model is documented on
/// [`run_throttling`](crate::run_throttling).
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::{ThrottlingConfig, ThrottlingPolicy};
///
/// let config = ThrottlingConfig::builder()
///     .with_clients(5)
///     .with_arrival_rate(200.0)
///     .with_rate_limit(100.0)
///     .with_duration(Duration::from_secs(20))
///     .with_policies([ThrottlingPolicy::Retry, ThrottlingPolicy::Adaptive])
///     .build()?;
/// assert_eq!(config.hop(), Duration::from_millis(10));
/// assert!(ThrottlingConfig::builder().with_rate_limit(0.0).build().is_err());
/// # Ok::<(), staggered_sim::ThrottlingError>(())
/// ```
///
/// It serializes as plain data: durations as the CLI writes them (`10ms`),
/// the backoff, the retry quota and the limiter as their parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThrottlingConfig {
    pub(super) seed: u64,
    #[serde(serialize_with = "plain::human")]
    pub(super) duration: Duration,
    pub(super) clients: u32,
    pub(super) arrival_rate: f64,
    pub(super) rate_limit: f64,
    #[serde(serialize_with = "plain::human")]
    pub(super) hop: Duration,
    pub(super) policies: Vec<ThrottlingPolicy>,
    #[serde(serialize_with = "plain::backoff")]
    pub(super) backoff: Backoff,
    #[serde(serialize_with = "plain::token_bucket")]
    pub(super) token_bucket: TokenBucketBuilder,
    #[serde(serialize_with = "limiter")]
    pub(super) limiter: AdaptiveLimiterBuilder,
    #[serde(skip)]
    pub(super) threads: Option<NonZeroUsize>,
}

/// The limiter's parameters, from its builder's accessors.
fn limiter<S: Serializer>(l: &AdaptiveLimiterBuilder, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = serializer.serialize_map(Some(6))?;
    map.serialize_entry("scale_constant", &l.scale_constant())?;
    map.serialize_entry("beta", &l.beta())?;
    map.serialize_entry("smoothing", &l.smoothing())?;
    map.serialize_entry("rate_bucket", &format_duration(l.rate_bucket()))?;
    map.serialize_entry("min_rate", &l.min_rate())?;
    map.serialize_entry("max_rate_scale", &l.max_rate_scale())?;
    map.end()
}

impl ThrottlingConfig {
    /// A builder holding the defaults (see [`ThrottlingConfigBuilder`]).
    pub fn builder() -> ThrottlingConfigBuilder {
        ThrottlingConfigBuilder::new()
    }

    /// A builder that starts from this configuration, to change some of it.
    pub fn to_builder(&self) -> ThrottlingConfigBuilder {
        ThrottlingConfigBuilder { config: self.clone() }
    }

    /// The experiment's seed: every run's generators derive from it.
    pub const fn seed(&self) -> u64 {
        self.seed
    }
    /// The simulated time of a run.
    pub const fn duration(&self) -> Duration {
        self.duration
    }
    /// The number of clients, each with its own arrivals, retry quota and limiter.
    pub const fn clients(&self) -> u32 {
        self.clients
    }
    /// Operations per second offered by all clients together (Poisson,
    /// split evenly).
    pub const fn arrival_rate(&self) -> f64 {
        self.arrival_rate
    }
    /// The requests per second the server admits.
    pub const fn rate_limit(&self) -> f64 {
        self.rate_limit
    }
    /// One network hop, client to server or back.
    pub const fn hop(&self) -> Duration {
        self.hop
    }
    /// The policies, in the order given.
    pub fn policies(&self) -> &[ThrottlingPolicy] {
        &self.policies
    }
    /// The schedule every retrying policy walks.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }
    /// The parameters of each client's retry quota (standard and adaptive modes).
    pub const fn token_bucket(&self) -> TokenBucketBuilder {
        self.token_bucket
    }
    /// The parameters of each client's adaptive limiter.
    pub const fn limiter(&self) -> AdaptiveLimiterBuilder {
        self.limiter
    }
    /// The worker threads asked for; `None` means one per available core.
    pub const fn threads(&self) -> Option<NonZeroUsize> {
        self.threads
    }

    /// How many 1-second buckets the per-second series hold: the duration
    /// rounded up.
    pub fn buckets(&self) -> usize {
        crate::units::seconds_up(self.duration)
    }
}

impl Default for ThrottlingConfig {
    /// The default experiment, [`ThrottlingConfigBuilder::new`]'s defaults.
    fn default() -> Self {
        ThrottlingConfigBuilder::new().build().expect("the default experiment is a valid configuration")
    }
}

/// Builds a [`ThrottlingConfig`], checking every parameter.
///
/// # Default
/// A fleet offering twice what the server admits:
///
/// | parameter | default |
/// |---|---|
/// | `seed` | 2015 |
/// | `duration` | 60 s |
/// | `clients` | 20 |
/// | `arrival_rate` | 1000 operations per second in all, Poisson, split evenly |
/// | `rate_limit` | 500 requests per second, a token bucket holding one second |
/// | `hop` | 10 ms each way |
/// | `policies` | [`ThrottlingPolicy::ALL`] |
/// | `backoff` | `full`, base 100 ms, max_delay 1 s, max_attempts 3 |
/// | `token_bucket` | AWS: 500 tokens, a throttled retry costs 5, refund 1 |
/// | `limiter` | AWS: CUBIC with scale constant 0.4 and beta 0.7 |
/// | `threads` | one per available core (results do not depend on it) |
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ThrottlingConfigBuilder {
    config: ThrottlingConfig,
}

impl ThrottlingConfigBuilder {
    /// A builder with the defaults above.
    pub fn new() -> Self {
        let backoff = Backoff::builder(Strategy::Full)
            .with_base(Duration::from_millis(100))
            .with_max_delay(Duration::from_secs(1))
            .with_max_attempts(3)
            .build()
            .expect("the default backoff is valid");
        ThrottlingConfigBuilder {
            config: ThrottlingConfig {
                seed: 2015,
                duration: Duration::from_secs(60),
                clients: 20,
                arrival_rate: 1000.0,
                rate_limit: 500.0,
                hop: Duration::from_millis(10),
                policies: ThrottlingPolicy::ALL.to_vec(),
                backoff,
                token_bucket: TokenBucketBuilder::new(),
                limiter: AdaptiveLimiterBuilder::new(),
                threads: None,
            },
        }
    }

    /// Sets the seed every run's generators derive from.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }
    /// Sets the simulated time of a run; 1 s to [`MAX_DURATION`].
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.config.duration = duration;
        self
    }
    /// Sets the number of clients; 1 to [`MAX_THROTTLING_CLIENTS`].
    pub fn with_clients(mut self, clients: u32) -> Self {
        self.config.clients = clients;
        self
    }
    /// Sets the operations per second of all clients together; finite, above 0.
    pub fn with_arrival_rate(mut self, per_second: f64) -> Self {
        self.config.arrival_rate = per_second;
        self
    }
    /// Sets the requests per second the server admits; finite, above 0.
    pub fn with_rate_limit(mut self, per_second: f64) -> Self {
        self.config.rate_limit = per_second;
        self
    }
    /// Sets one network hop; at most [`MAX_THROTTLING_HOP`].
    pub fn with_hop(mut self, hop: Duration) -> Self {
        self.config.hop = hop;
        self
    }
    /// Sets the policies to compare, without repeats.
    pub fn with_policies(mut self, policies: impl IntoIterator<Item = ThrottlingPolicy>) -> Self {
        self.config.policies = policies.into_iter().collect();
        self
    }
    /// Sets the schedule of the retrying policies. It needs `max_attempts`
    /// or a deadline; its seed is ignored (each operation's generator
    /// derives from the experiment's seed).
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.config.backoff = backoff;
        self
    }
    /// Sets the retry quota's parameters.
    pub fn with_token_bucket(mut self, token_bucket: TokenBucketBuilder) -> Self {
        self.config.token_bucket = token_bucket;
        self
    }
    /// Sets the adaptive limiter's parameters.
    pub fn with_limiter(mut self, limiter: AdaptiveLimiterBuilder) -> Self {
        self.config.limiter = limiter;
        self
    }
    /// Sets the number of worker threads. Results do not depend on it.
    pub fn with_threads(mut self, threads: NonZeroUsize) -> Self {
        self.config.threads = Some(threads);
        self
    }

    /// Checks every parameter and builds the configuration.
    ///
    /// # Errors
    /// A [`ThrottlingError`] naming the first parameter that is wrong.
    pub fn build(self) -> Result<ThrottlingConfig, ThrottlingError> {
        let c = self.config;
        if c.duration < Duration::from_secs(1) || c.duration > MAX_DURATION {
            return Err(ThrottlingError::Duration(c.duration));
        }
        if c.clients == 0 || c.clients > MAX_THROTTLING_CLIENTS {
            return Err(ThrottlingError::Clients(c.clients));
        }
        if !(c.arrival_rate.is_finite() && c.arrival_rate > 0.0) {
            return Err(ThrottlingError::ArrivalRate(c.arrival_rate));
        }
        if !(c.rate_limit.is_finite() && c.rate_limit > 0.0) {
            return Err(ThrottlingError::RateLimit(c.rate_limit));
        }
        if c.hop > MAX_THROTTLING_HOP {
            return Err(ThrottlingError::Hop(c.hop));
        }
        if c.policies.is_empty() {
            return Err(ThrottlingError::NoPolicies);
        }
        for (i, &policy) in c.policies.iter().enumerate() {
            if c.policies[..i].contains(&policy) {
                return Err(ThrottlingError::DuplicatePolicy(policy));
            }
        }
        if c.backoff.max_attempts().is_none() && c.backoff.deadline().is_none() {
            return Err(ThrottlingError::UnboundedBackoff);
        }
        c.limiter.validate().map_err(ThrottlingError::Limiter)?;
        let operations = c.arrival_rate * c.duration.as_secs_f64();
        if operations > MAX_THROTTLING_OPERATIONS {
            return Err(ThrottlingError::TooManyOperations(operations));
        }
        let retries = c.policies.iter().any(|&p| p != ThrottlingPolicy::NoRetry);
        let attempts = operations * f64::from(c.backoff.max_attempts().unwrap_or(1));
        if retries && attempts > MAX_ATTEMPTS {
            return Err(ThrottlingError::TooManyAttempts(attempts));
        }
        Ok(c)
    }
}

impl Default for ThrottlingConfigBuilder {
    fn default() -> Self {
        ThrottlingConfigBuilder::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_offers_twice_the_limit() {
        let config = ThrottlingConfig::default();
        assert_eq!((config.clients(), config.arrival_rate(), config.rate_limit()), (20, 1000.0, 500.0));
        assert_eq!((config.duration(), config.seed()), (Duration::from_secs(60), 2015));
        assert_eq!(config.policies(), ThrottlingPolicy::ALL);
        let b = config.backoff();
        assert_eq!(
            (b.strategy(), b.base(), b.max_delay()),
            (Strategy::Full, Duration::from_millis(100), Duration::from_secs(1))
        );
        assert_eq!(b.max_attempts(), Some(3));
        assert_eq!(config.to_builder().build().unwrap(), config);
        assert_eq!(config.buckets(), 60);
    }

    #[test]
    fn bad_parameters_are_named() {
        let b = ThrottlingConfig::builder;
        let cases = [
            (b().with_duration(Duration::from_millis(999)), "duration"),
            (b().with_clients(0), "clients"),
            (b().with_arrival_rate(f64::NAN), "arrival-rate"),
            (b().with_rate_limit(-1.0), "rate-limit"),
            (b().with_hop(Duration::from_secs(11)), "hop"),
            (b().with_policies([]), "policies"),
            (b().with_policies([ThrottlingPolicy::Retry, ThrottlingPolicy::Retry]), "policies"),
            (b().with_limiter(AdaptiveLimiterBuilder::new().with_beta(2.0)), "limiter"),
            (b().with_arrival_rate(1e7).with_duration(Duration::from_secs(3600)), "arrival-rate"),
        ];
        for (builder, parameter) in cases {
            let err = builder.build().unwrap_err();
            assert_eq!(err.parameter(), parameter, "{err}");
            assert!(err.to_string().contains(parameter) || parameter == "limiter", "{err}");
        }
        let err = b().with_limiter(AdaptiveLimiterBuilder::new().with_beta(2.0)).build().unwrap_err();
        let source = std::error::Error::source(&err).unwrap().to_string();
        assert!(source.starts_with("invalid beta"), "{source}");
        let unbounded =
            Backoff::builder(Strategy::Full).without_max_attempts().without_deadline().build().unwrap();
        assert_eq!(b().with_backoff(unbounded).build().unwrap_err(), ThrottlingError::UnboundedBackoff);
    }

    #[test]
    fn a_run_whose_queues_could_outgrow_memory_is_refused() {
        // The clients' queues hold every operation the limiter holds back:
        // about 350 bytes each, all of them when the limit is far below the
        // load. 2e7 operations could take 7 GB.
        let b = ThrottlingConfig::builder;
        let err =
            b().with_arrival_rate(1000.0).with_duration(Duration::from_secs(20_000)).build().unwrap_err();
        assert_eq!(err, ThrottlingError::TooManyOperations(2e7));
        assert_eq!(
            err.to_string(),
            "invalid arrival-rate and duration: 20000000 operations expected, at most 10000000 (the clients' \
             queues are held in memory)"
        );
        assert!(b().with_arrival_rate(1000.0).with_duration(Duration::from_secs(10_000)).build().is_ok());
    }
}
