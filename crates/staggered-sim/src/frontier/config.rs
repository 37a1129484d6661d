//! `FrontierConfig`: a validated frontier, and its builder.

use std::num::NonZeroUsize;

use serde::Serialize;
use staggered::{Backoff, Strategy};

use super::{Candidate, Family, FrontierError};
use crate::{ContentionConfig, ContentionError, ContentionStrategy, MAX_CLIENT_PAIRS, MAX_TOTAL_RUNS};

/// The most candidates a frontier may sweep.
pub const MAX_CANDIDATES: usize = 10_000;

/// The margin of the target by default: a candidate reaches it at a client
/// count when its mean calls are at most `full`'s plus 1% and its mean
/// completion time at most `decorrelated`'s plus 1%.
pub const DEFAULT_MARGIN: f64 = 0.01;

/// A validated frontier: candidate schedules, swept from families and
/// parameter values, run in the contention experiment beside reference
/// strategies.
///
/// ```
/// use staggered_sim::frontier::{Family, FrontierConfig};
///
/// let config = FrontierConfig::builder()
///     .with_families([Family::Full])
///     .with_scales([1.0, 2.0])
///     .with_multipliers([1.5, 2.0])
///     .with_clients([50])
///     .with_runs(10)
///     .build()?;
/// assert_eq!(config.candidates().len(), 4);
/// assert_eq!(config.references().iter().map(|s| s.name()).collect::<Vec<_>>(), ["equal", "full", "decorrelated", "smooth"]);
/// # Ok::<(), staggered_sim::frontier::FrontierError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrontierConfig {
    /// The reference strategies, client counts, runs, seed, base, cap and
    /// network, as a contention experiment.
    pub(super) contention: ContentionConfig,
    families: Vec<Family>,
    scales: Vec<f64>,
    multipliers: Vec<f64>,
    floors: Vec<f64>,
    margin: f64,
    candidates: Vec<Candidate>,
    /// The library schedule of each candidate, in the same order.
    #[serde(skip)]
    schedules: Vec<Backoff>,
}

impl FrontierConfig {
    /// A builder with the defaults listed on [`FrontierConfigBuilder`].
    pub fn builder() -> FrontierConfigBuilder {
        FrontierConfigBuilder::new()
    }

    /// The default frontier.
    pub fn standard() -> Self {
        FrontierConfigBuilder::new().build().expect("the default frontier is a valid configuration")
    }

    /// A builder that starts from this configuration, to change some of it.
    pub fn to_builder(&self) -> FrontierConfigBuilder {
        FrontierConfigBuilder {
            contention: self.contention.to_builder(),
            families: self.families.clone(),
            scales: self.scales.clone(),
            multipliers: self.multipliers.clone(),
            floors: self.floors.clone(),
            margin: self.margin,
        }
    }

    /// The contention experiment the candidates run in: its client counts,
    /// runs, seed, base, cap and network, with the references as its
    /// strategies.
    pub const fn contention(&self) -> &ContentionConfig {
        &self.contention
    }
    /// The client counts, one panel each.
    pub fn clients(&self) -> &[u32] {
        self.contention.clients()
    }
    /// Independent runs averaged into each point.
    pub const fn runs(&self) -> u32 {
        self.contention.runs()
    }
    /// The seed every run's generators derive from.
    pub const fn seed(&self) -> u64 {
        self.contention.seed()
    }
    /// The reference strategies, run exactly as the contention experiment
    /// runs them (the same seeds, so the same figures).
    pub fn references(&self) -> &[ContentionStrategy] {
        self.contention.strategies()
    }
    /// The families swept.
    pub fn families(&self) -> &[Family] {
        &self.families
    }
    /// The scales swept.
    pub fn scales(&self) -> &[f64] {
        &self.scales
    }
    /// The multipliers swept (by `full` and `floored`).
    pub fn multipliers(&self) -> &[f64] {
        &self.multipliers
    }
    /// The floors swept (by `floored`).
    pub fn floors(&self) -> &[f64] {
        &self.floors
    }
    /// The target's margin over `full`'s calls and `decorrelated`'s time.
    pub const fn margin(&self) -> f64 {
        self.margin
    }
    /// Every candidate: for each family in order, each scale, multiplier
    /// and floor it reads, in the order given.
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }
    /// The library schedule of each candidate, in the same order.
    pub fn schedules(&self) -> &[Backoff] {
        &self.schedules
    }

    /// Whether the references include `full` and `decorrelated`, which the
    /// target is measured against.
    pub fn has_target(&self) -> bool {
        let has = |strategy| self.references().contains(&ContentionStrategy::Backoff(strategy));
        has(Strategy::Full) && has(Strategy::Decorrelated)
    }

    /// How many runs the frontier simulates in all.
    pub fn total_runs(&self) -> usize {
        self.clients().len() * (self.candidates.len() + self.references().len()) * self.runs() as usize
    }

    /// How many clients it simulates in all, over every point and run: what
    /// its progress counts.
    pub fn total_clients(&self) -> u64 {
        let clients: u64 = self.clients().iter().map(|&n| u64::from(n)).sum();
        clients * (self.candidates.len() + self.references().len()) as u64 * u64::from(self.runs())
    }
}

impl Default for FrontierConfig {
    /// [`FrontierConfig::standard`].
    fn default() -> Self {
        FrontierConfig::standard()
    }
}

/// Builds a [`FrontierConfig`], checking every parameter.
///
/// # Default
/// | parameter | default |
/// |---|---|
/// | `families` | `full`, `floored` |
/// | `scales` | 1, 2, 3, 4, 5, 6 |
/// | `multipliers` | 1.5, 1.75, 2 |
/// | `floors` | 0.1, 0.2, 0.3 |
/// | `references` | equal, full, decorrelated, smooth |
/// | `clients` | 100 |
/// | `runs`, `seed`, `base`, `cap`, network | the contention experiment's: 100, 2015, 5, 2000, `abs(Normal(10, 2))` |
/// | `margin` | 1% ([`DEFAULT_MARGIN`]) |
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct FrontierConfigBuilder {
    contention: crate::ContentionConfigBuilder,
    families: Vec<Family>,
    scales: Vec<f64>,
    multipliers: Vec<f64>,
    floors: Vec<f64>,
    margin: f64,
}

impl FrontierConfigBuilder {
    /// A builder with the defaults above.
    pub fn new() -> Self {
        let references = [Strategy::Equal, Strategy::Full, Strategy::Decorrelated, Strategy::Smooth];
        FrontierConfigBuilder {
            contention: ContentionConfig::builder()
                .with_clients([100])
                .with_strategies(references.map(ContentionStrategy::Backoff)),
            families: vec![Family::Full, Family::Floored],
            scales: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            multipliers: vec![1.5, 1.75, 2.0],
            floors: vec![0.1, 0.2, 0.3],
            margin: DEFAULT_MARGIN,
        }
    }

    /// Sets the families to sweep, without repeats.
    pub fn with_families(mut self, families: impl IntoIterator<Item = Family>) -> Self {
        self.families = families.into_iter().collect();
        self
    }
    /// Sets the scales: each candidate starts where its published strategy
    /// would with base `scale * base`; positive.
    pub fn with_scales(mut self, scales: impl IntoIterator<Item = f64>) -> Self {
        self.scales = scales.into_iter().collect();
        self
    }
    /// Sets the multipliers `full` and `floored` sweep; at least 1.
    pub fn with_multipliers(mut self, multipliers: impl IntoIterator<Item = f64>) -> Self {
        self.multipliers = multipliers.into_iter().collect();
        self
    }
    /// Sets the floors `floored` sweeps, as fractions of the interval in `[0, 1]`.
    pub fn with_floors(mut self, floors: impl IntoIterator<Item = f64>) -> Self {
        self.floors = floors.into_iter().collect();
        self
    }
    /// Sets the reference strategies, drawn as labelled points: any of the
    /// contention experiment's, without repeats. The target needs `full`
    /// and `decorrelated` among them.
    pub fn with_references(mut self, references: impl IntoIterator<Item = ContentionStrategy>) -> Self {
        self.contention = self.contention.with_strategies(references);
        self
    }
    /// Sets the target's margin over `full`'s calls and `decorrelated`'s
    /// time, as a fraction (0.01 for 1%); finite, at least 0.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }
    /// Sets the client counts, one panel each (as the contention experiment).
    pub fn with_clients(mut self, clients: impl IntoIterator<Item = u32>) -> Self {
        self.contention = self.contention.with_clients(clients);
        self
    }
    /// Sets the runs averaged into each point.
    pub fn with_runs(mut self, runs: u32) -> Self {
        self.contention = self.contention.with_runs(runs);
        self
    }
    /// Sets the seed every run's generators derive from.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.contention = self.contention.with_seed(seed);
        self
    }
    /// Sets the experiment's base, in 2015 time units.
    pub fn with_base(mut self, base: f64) -> Self {
        self.contention = self.contention.with_base(base);
        self
    }
    /// Sets the cap, in time units.
    pub fn with_cap(mut self, cap: f64) -> Self {
        self.contention = self.contention.with_cap(cap);
        self
    }
    /// Sets the network: every hop takes `abs(Normal(mean, sd))` time units.
    pub fn with_hop(mut self, mean: f64, sd: f64) -> Self {
        self.contention = self.contention.with_hop(mean, sd);
        self
    }
    /// Sets the number of worker threads. Results do not depend on it.
    pub fn with_threads(mut self, threads: NonZeroUsize) -> Self {
        self.contention = self.contention.with_threads(threads);
        self
    }

    /// Checks every parameter and builds the frontier, with the library
    /// schedule of each candidate.
    ///
    /// # Errors
    /// A [`FrontierError`] naming the first parameter that is wrong.
    pub fn build(self) -> Result<FrontierConfig, FrontierError> {
        if self.families.is_empty() {
            return Err(FrontierError::NoFamilies);
        }
        for (i, &family) in self.families.iter().enumerate() {
            if self.families[..i].contains(&family) {
                return Err(FrontierError::DuplicateFamily(family));
            }
        }
        let reads = |read: fn(Family) -> bool| self.families.iter().any(|&f| read(f));
        let lists = [
            ("scales", &self.scales, true),
            ("multipliers", &self.multipliers, reads(Family::reads_multiplier)),
            ("floors", &self.floors, reads(Family::reads_floor)),
        ];
        for (parameter, values, read) in lists {
            if read && values.is_empty() {
                return Err(FrontierError::NoValues(parameter));
            }
            for (i, &value) in values.iter().enumerate() {
                if values[..i].contains(&value) {
                    return Err(FrontierError::DuplicateValue(parameter, value));
                }
            }
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(FrontierError::Margin(self.margin));
        }
        let one = [0.0];
        let pick = |read: bool, values: &'_ [f64]| -> Vec<f64> {
            if read {
                values.to_vec()
            } else {
                one.to_vec()
            }
        };
        let count: usize = self
            .families
            .iter()
            .map(|&family| {
                self.scales.len()
                    * pick(family.reads_multiplier(), &self.multipliers).len()
                    * pick(family.reads_floor(), &self.floors).len()
            })
            .sum();
        if count > MAX_CANDIDATES {
            return Err(FrontierError::TooManyCandidates(count));
        }
        let mut candidates = Vec::with_capacity(count);
        for &family in &self.families {
            for &scale in &self.scales {
                for &multiplier in &pick(family.reads_multiplier(), &self.multipliers) {
                    for &floor in &pick(family.reads_floor(), &self.floors) {
                        candidates.push(Candidate::new(family, scale, multiplier, floor));
                    }
                }
            }
        }
        let contention = self.contention.build()?;
        check_size(&contention, candidates.len())?;
        let (base, cap) = (contention.base(), contention.cap());
        let schedules = candidates.iter().map(|c| c.backoff(base, cap)).collect::<Result<Vec<_>, _>>()?;
        Ok(FrontierConfig {
            contention,
            families: self.families,
            scales: self.scales,
            multipliers: self.multipliers,
            floors: self.floors,
            margin: self.margin,
            candidates,
            schedules,
        })
    }
}

/// Refuses a frontier whose candidates and references together exceed the
/// contention experiment's limits on runs and work.
fn check_size(contention: &ContentionConfig, candidates: usize) -> Result<(), ContentionError> {
    let runs = f64::from(contention.runs()) * (candidates + contention.strategies().len()) as f64;
    let total_runs = runs * contention.clients().len() as f64;
    if total_runs > MAX_TOTAL_RUNS as f64 {
        return Err(ContentionError::TooManyRuns(total_runs));
    }
    let pairs = runs * contention.clients().iter().map(|&n| f64::from(n) * f64::from(n)).sum::<f64>();
    if pairs > MAX_CLIENT_PAIRS {
        return Err(ContentionError::TooMuchWork(pairs));
    }
    Ok(())
}

impl Default for FrontierConfigBuilder {
    fn default() -> Self {
        FrontierConfigBuilder::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_every_family_by_the_values_it_reads() {
        let config = FrontierConfig::builder()
            .with_families([Family::Smooth, Family::Floored])
            .with_scales([1.0, 2.0])
            .with_multipliers([1.5])
            .with_floors([0.0, 0.2])
            .build()
            .unwrap();
        let names: Vec<String> = config.candidates().iter().map(Candidate::name).collect();
        assert_eq!(
            names,
            [
                "smooth(scale 1)",
                "smooth(scale 2)",
                "floored(scale 1, multiplier 1.5, floor 0)",
                "floored(scale 1, multiplier 1.5, floor 0.2)",
                "floored(scale 2, multiplier 1.5, floor 0)",
                "floored(scale 2, multiplier 1.5, floor 0.2)",
            ]
        );
        assert_eq!(config.schedules().len(), 6);
        assert_eq!(config.total_runs(), (6 + 4) * 100);
        assert!(config.has_target());
        assert_eq!(config.to_builder().build().unwrap(), config);
        assert_eq!(FrontierConfig::standard().candidates().len(), 6 * 3 + 6 * 3 * 3);
    }

    #[test]
    fn rejects_each_bad_parameter_by_name() {
        let b = FrontierConfig::builder;
        let full = ContentionStrategy::Backoff(Strategy::Full);
        let cases: Vec<(FrontierConfigBuilder, &str, &str)> = vec![
            (b().with_families([]), "families", "invalid families: give at least one family"),
            (b().with_families([Family::Full, Family::Full]), "families", "invalid families: full is given twice"),
            (b().with_scales([]), "scales", "invalid scales: give at least one value"),
            (b().with_scales([1.0, 1.0]), "scales", "invalid scales: 1 is given twice"),
            (b().with_scales([-1.0]), "scales", "invalid scale -1: must be a positive number"),
            (b().with_multipliers([0.9]), "multipliers", "invalid multiplier 0.9: must be a finite number, at least 1"),
            (b().with_floors([]), "floors", "invalid floors: give at least one value"),
            (b().with_floors([1.2]), "floors", "invalid floor 1.2: must be between 0 and 1"),
            (b().with_margin(f64::NAN), "margin", "invalid margin NaN: must be a finite fraction, at least 0"),
            (b().with_scales([300.0]), "scales", "invalid scale for full(scale 300, multiplier 1.5): its first interval, 3000 time units, is above the cap, 2000"),
            (b().with_references([full, full]), "references", "invalid strategies: full is given twice"),
            (b().with_clients([0]), "clients", "invalid clients 0: must be between 1 and 100000"),
            (b().with_runs(0), "runs", "invalid runs 0: must be at least 1"),
            (b().with_runs(1_000_000), "runs", "invalid clients, strategies and runs: 76000000 runs in all"),
            (b().with_scales((1..=200).map(f64::from)).with_multipliers((1..=60).map(f64::from)), "families", "invalid families, scales, multipliers and floors: 48000 candidates"),
        ];
        for (builder, parameter, message) in cases {
            let err = builder.build().unwrap_err();
            assert_eq!(err.parameter(), parameter, "{err}");
            assert!(err.to_string().starts_with(message), "{err}");
        }
        // A family that does not read a list does not need it.
        let smooth = b().with_families([Family::Smooth]).with_multipliers([]).with_floors([]);
        assert!(smooth.build().is_ok());
        assert!(!b().with_references([full]).build().unwrap().has_target());
    }
}
