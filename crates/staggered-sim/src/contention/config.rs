//! `ContentionConfig`: a validated contention experiment, and its builder.

use std::num::NonZeroUsize;

use serde::Serialize;
use staggered::Backoff;

use super::{ContentionError, ContentionStrategy};

/// The largest client count a point may have. The work of one run grows about
/// as the square of the client count (`none` makes about `N^2 / 6` calls), so
/// at this size a single run of `none` already takes many minutes.
pub const MAX_CLIENTS: u32 = 100_000;

/// The most runs an experiment may hold in all (client counts x strategies
/// x runs): every run's outcome is kept until the end, 24 bytes each.
pub const MAX_TOTAL_RUNS: usize = 10_000_000;

/// The most work an experiment may be, in client pairs: the sum, over every
/// client count N, strategy and run, of `N^2`. A run of N clients without
/// backoff makes about `N^2 / 6` calls, the costliest case, at a fraction of
/// a microsecond each; so this limit is about a quarter of an hour of one
/// core at worst. 100,000 clients for one run of each published strategy
/// (5e10 pairs) is within it; 100,000 clients for a million runs is not.
pub const MAX_CLIENT_PAIRS: f64 = 1e11;

/// A validated contention experiment (the AWS Architecture Blog's
/// "Exponential Backoff And Jitter", 2015): which client counts and
/// strategies to simulate, how many runs per point, and the model's
/// parameters.
///
/// ```
/// use staggered_sim::{ContentionConfig, ContentionStrategy};
///
/// let config = ContentionConfig::builder()
///     .with_clients([50, 100])
///     .with_runs(20)
///     .with_strategies(["full", "decorrelated"].map(|s| s.parse().unwrap()))
///     .with_seed(7)
///     .build()?;
/// assert_eq!(config.clients(), &[50, 100]);
/// assert_eq!(ContentionConfig::published().runs(), 100);
/// # Ok::<(), staggered_sim::ContentionError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentionConfig {
    clients: Vec<u32>,
    runs: u32,
    seed: u64,
    strategies: Vec<ContentionStrategy>,
    /// The library schedule of each strategy, in the same order.
    #[serde(skip)]
    schedules: Vec<Backoff>,
    base: f64,
    cap: f64,
    hop_mean: f64,
    hop_sd: f64,
    #[serde(skip)]
    threads: Option<NonZeroUsize>,
}

impl ContentionConfig {
    /// A builder holding the published experiment's values (see
    /// [`ContentionConfigBuilder`]).
    pub fn builder() -> ContentionConfigBuilder {
        ContentionConfigBuilder::new()
    }

    /// The published experiment: N = 10, 20, ..., 190, 100 runs, the five
    /// published strategies, base 5, cap 2000, hops `abs(Normal(10, 2))`.
    pub fn published() -> Self {
        // The defaults are valid by construction; the tests check it.
        ContentionConfigBuilder::new().build().expect("the published experiment is a valid configuration")
    }

    /// A builder that starts from this configuration, to change some of it.
    pub fn to_builder(&self) -> ContentionConfigBuilder {
        ContentionConfigBuilder {
            clients: self.clients.clone(),
            runs: self.runs,
            seed: self.seed,
            strategies: self.strategies.clone(),
            base: self.base,
            cap: self.cap,
            hop_mean: self.hop_mean,
            hop_sd: self.hop_sd,
            threads: self.threads,
        }
    }

    /// The client counts, one point each, in the order given.
    pub fn clients(&self) -> &[u32] {
        &self.clients
    }
    /// Independent runs averaged into each point.
    pub const fn runs(&self) -> u32 {
        self.runs
    }
    /// The experiment's seed: every run's generators derive from it.
    pub const fn seed(&self) -> u64 {
        self.seed
    }
    /// The strategies, in the order given.
    pub fn strategies(&self) -> &[ContentionStrategy] {
        &self.strategies
    }
    /// The library schedule each strategy's clients walk, in the order of
    /// [`strategies`](ContentionConfig::strategies).
    pub fn schedules(&self) -> &[Backoff] {
        &self.schedules
    }
    /// The backoff base, in 2015 time units.
    pub const fn base(&self) -> f64 {
        self.base
    }
    /// The backoff cap, in time units.
    pub const fn cap(&self) -> f64 {
        self.cap
    }
    /// The mean of a message hop's normal distribution, in time units.
    pub const fn hop_mean(&self) -> f64 {
        self.hop_mean
    }
    /// The standard deviation of a message hop's normal distribution.
    pub const fn hop_sd(&self) -> f64 {
        self.hop_sd
    }
    /// The worker threads asked for; `None` means one per available core.
    pub const fn threads(&self) -> Option<NonZeroUsize> {
        self.threads
    }

    /// How many runs the experiment simulates in all.
    pub fn total_runs(&self) -> usize {
        self.clients.len() * self.strategies.len() * self.runs as usize
    }

    /// How many clients the experiment simulates in all, over every point
    /// and run: what its progress counts.
    pub fn total_clients(&self) -> u64 {
        let clients: u64 = self.clients.iter().map(|&n| u64::from(n)).sum();
        clients * self.strategies.len() as u64 * u64::from(self.runs)
    }
}

impl Default for ContentionConfig {
    /// [`ContentionConfig::published`].
    fn default() -> Self {
        ContentionConfig::published()
    }
}

/// Builds a [`ContentionConfig`], checking every parameter.
///
/// # Default
/// The published experiment:
///
/// | parameter | default |
/// |---|---|
/// | `clients` | 10, 20, ..., 190 |
/// | `runs` | 100 |
/// | `seed` | 2015 |
/// | `strategies` | [`ContentionStrategy::PUBLISHED`]: none, exponential, equal, full, decorrelated |
/// | `base` | 5 time units (2015 convention, see [`ContentionStrategy::backoff`]) |
/// | `cap` | 2000 time units |
/// | `hop_mean`, `hop_sd` | 10 and 2: every hop takes `abs(Normal(10, 2))` |
/// | `threads` | one per available core (results do not depend on it) |
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ContentionConfigBuilder {
    clients: Vec<u32>,
    runs: u32,
    seed: u64,
    strategies: Vec<ContentionStrategy>,
    base: f64,
    cap: f64,
    hop_mean: f64,
    hop_sd: f64,
    threads: Option<NonZeroUsize>,
}

impl ContentionConfigBuilder {
    /// A builder with the defaults above.
    pub fn new() -> Self {
        ContentionConfigBuilder {
            clients: (1..=19).map(|i| 10 * i).collect(),
            runs: 100,
            seed: 2015,
            strategies: ContentionStrategy::PUBLISHED.to_vec(),
            base: 5.0,
            cap: 2000.0,
            hop_mean: 10.0,
            hop_sd: 2.0,
            threads: None,
        }
    }

    /// Sets the client counts, one point each; each must be in
    /// `1..=`[`MAX_CLIENTS`], without repeats, and the experiment within
    /// [`MAX_TOTAL_RUNS`] and [`MAX_CLIENT_PAIRS`].
    pub fn with_clients(mut self, clients: impl IntoIterator<Item = u32>) -> Self {
        self.clients = clients.into_iter().collect();
        self
    }
    /// Sets the independent runs averaged into each point; at least 1, and
    /// the experiment within [`MAX_TOTAL_RUNS`] and [`MAX_CLIENT_PAIRS`].
    pub fn with_runs(mut self, runs: u32) -> Self {
        self.runs = runs;
        self
    }
    /// Sets the seed every run's generators derive from.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets the strategies to compare, without repeats.
    pub fn with_strategies(mut self, strategies: impl IntoIterator<Item = ContentionStrategy>) -> Self {
        self.strategies = strategies.into_iter().collect();
        self
    }
    /// Sets the backoff base in 2015 time units (the first exponential
    /// ceiling is `2 * base`); finite, at least 0.
    pub fn with_base(mut self, base: f64) -> Self {
        self.base = base;
        self
    }
    /// Sets the backoff cap in time units; finite, and not below any
    /// strategy's first delay.
    pub fn with_cap(mut self, cap: f64) -> Self {
        self.cap = cap;
        self
    }
    /// Sets the network: every hop takes `abs(Normal(mean, sd))` time units;
    /// both finite, at least 0.
    pub fn with_hop(mut self, mean: f64, sd: f64) -> Self {
        self.hop_mean = mean;
        self.hop_sd = sd;
        self
    }
    /// Sets the number of worker threads. Results do not depend on it.
    pub fn with_threads(mut self, threads: NonZeroUsize) -> Self {
        self.threads = Some(threads);
        self
    }
    /// Uses one worker thread per available core (the default).
    pub fn without_threads(mut self) -> Self {
        self.threads = None;
        self
    }

    /// Checks every parameter and builds the configuration, with the library
    /// schedule of each strategy.
    ///
    /// # Errors
    /// A [`ContentionError`] naming the first parameter that is wrong.
    pub fn build(self) -> Result<ContentionConfig, ContentionError> {
        if self.clients.is_empty() {
            return Err(ContentionError::NoClients);
        }
        if self.runs == 0 {
            return Err(ContentionError::ZeroRuns);
        }
        if self.strategies.is_empty() {
            return Err(ContentionError::NoStrategies);
        }
        // The size first, from the lengths alone: a list of any length is
        // refused at once, before any pass over it.
        let runs = f64::from(self.runs) * self.strategies.len() as f64;
        let total_runs = runs * self.clients.len() as f64;
        if total_runs > MAX_TOTAL_RUNS as f64 {
            return Err(ContentionError::TooManyRuns(total_runs));
        }
        // One pass, with the counts seen kept as bits (MAX_CLIENTS of them).
        let mut seen = vec![0u64; (MAX_CLIENTS as usize).div_ceil(64) + 1];
        for &n in &self.clients {
            if n == 0 || n > MAX_CLIENTS {
                return Err(ContentionError::Clients(n));
            }
            let (word, bit) = (n as usize / 64, 1u64 << (n % 64));
            if seen[word] & bit != 0 {
                return Err(ContentionError::DuplicateClients(n));
            }
            seen[word] |= bit;
        }
        for (i, &strategy) in self.strategies.iter().enumerate() {
            if self.strategies[..i].contains(&strategy) {
                return Err(ContentionError::DuplicateStrategy(strategy));
            }
        }
        if !(self.hop_mean.is_finite() && self.hop_mean >= 0.0) {
            return Err(ContentionError::HopMean(self.hop_mean));
        }
        if !(self.hop_sd.is_finite() && self.hop_sd >= 0.0) {
            return Err(ContentionError::HopSd(self.hop_sd));
        }
        let pairs = runs * self.clients.iter().map(|&n| f64::from(n) * f64::from(n)).sum::<f64>();
        if pairs > MAX_CLIENT_PAIRS {
            return Err(ContentionError::TooMuchWork(pairs));
        }
        let schedules = self
            .strategies
            .iter()
            .map(|strategy| strategy.backoff(self.base, self.cap))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ContentionConfig {
            clients: self.clients,
            runs: self.runs,
            seed: self.seed,
            strategies: self.strategies,
            schedules,
            base: self.base,
            cap: self.cap,
            hop_mean: self.hop_mean,
            hop_sd: self.hop_sd,
            threads: self.threads,
        })
    }
}

impl Default for ContentionConfigBuilder {
    fn default() -> Self {
        ContentionConfigBuilder::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::Strategy;

    #[test]
    fn published_is_the_2015_grid() {
        let config = ContentionConfig::published();
        assert_eq!(config.clients().len(), 19);
        assert_eq!(config.clients()[0], 10);
        assert_eq!(config.clients()[18], 190);
        assert_eq!(config.strategies(), ContentionStrategy::PUBLISHED);
        assert_eq!(config.total_runs(), 19 * 5 * 100);
        assert_eq!(config.to_builder().build().unwrap(), config);
    }

    #[test]
    fn rejects_each_bad_parameter_by_name() {
        let b = ContentionConfig::builder;
        let full = ContentionStrategy::Backoff(Strategy::Full);
        let cases = [
            (b().with_clients([]), ContentionError::NoClients),
            (b().with_clients([10, 0]), ContentionError::Clients(0)),
            (b().with_clients([MAX_CLIENTS + 1]), ContentionError::Clients(MAX_CLIENTS + 1)),
            (b().with_clients([10, 20, 10]), ContentionError::DuplicateClients(10)),
            (b().with_runs(0), ContentionError::ZeroRuns),
            (b().with_strategies([]), ContentionError::NoStrategies),
            (b().with_strategies([full, full]), ContentionError::DuplicateStrategy(full)),
            (b().with_base(f64::INFINITY), ContentionError::Base(f64::INFINITY)),
            (b().with_cap(-3.0), ContentionError::Cap(-3.0)),
            (b().with_hop(-1.0, 2.0), ContentionError::HopMean(-1.0)),
            (b().with_hop(10.0, f64::INFINITY), ContentionError::HopSd(f64::INFINITY)),
            (b().with_runs(1_000_000), ContentionError::TooManyRuns(95e6)),
            (b().with_clients([MAX_CLIENTS]).with_runs(3), ContentionError::TooMuchWork(1.5e11)),
        ];
        for (builder, expected) in cases {
            assert_eq!(builder.build().unwrap_err(), expected);
        }
        let err = b().with_cap(9.0).build().unwrap_err();
        let exponential = ContentionStrategy::Backoff(Strategy::Exponential);
        assert_eq!(err, ContentionError::FirstDelay { strategy: exponential, cap: 9.0, first: 10.0 });
        // One run of each published strategy at the largest client count is allowed.
        assert!(b().with_clients([MAX_CLIENTS]).with_runs(1).build().is_ok());
        // 100,000 clients for a million runs (days of work) is refused.
        let days = b().with_clients([MAX_CLIENTS]).with_runs(1_000_000).build().unwrap_err();
        assert!(matches!(days, ContentionError::TooMuchWork(_)), "{days:?}");
    }

    #[test]
    fn a_list_past_the_limit_is_refused_by_its_length_before_any_pass_over_it() {
        // Ten million client counts (repeats included) for one strategy and
        // one run: past MAX_TOTAL_RUNS by its length alone, so refused for
        // that, at once, whatever is in it; and a long list within the
        // limit is checked for repeats in one pass.
        let full = ContentionStrategy::Backoff(Strategy::Full);
        let b = || ContentionConfig::builder().with_strategies([full]).with_runs(1);
        let long = (0..=MAX_TOTAL_RUNS).map(|i| 1 + (i % 7) as u32);
        assert_eq!(b().with_clients(long).build().unwrap_err(), ContentionError::TooManyRuns(1e7 + 1.0));
        let distinct = 1..=MAX_CLIENTS;
        assert!(matches!(b().with_clients(distinct).build().unwrap_err(), ContentionError::TooMuchWork(_)));
        let repeated = (1..=MAX_CLIENTS).chain([MAX_CLIENTS]);
        assert_eq!(
            b().with_clients(repeated).build().unwrap_err(),
            ContentionError::DuplicateClients(MAX_CLIENTS)
        );
    }

    #[test]
    fn total_clients_count_every_run() {
        let config = ContentionConfig::builder().with_clients([10, 20]).with_runs(3).build().unwrap();
        assert_eq!(config.total_clients(), 30 * 5 * 3);
    }
}
