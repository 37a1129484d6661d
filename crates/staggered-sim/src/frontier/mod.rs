//! The `frontier` scenario: a search for schedules that do less work or
//! finish sooner than the published ones, in the contention experiment of
//! the AWS Architecture Blog's "Exponential Backoff And Jitter" (2015).
//!
//! In that experiment `full` jitter does the least work (calls) and
//! `decorrelated` finishes first among the strategies that back off, at
//! every client count a different trade. A frontier sweeps the parameters
//! of a few families of the library's schedules ([`Family`]: `full` with
//! another multiplier and first interval, `full` with a floor, and
//! `decorrelated` and `smooth` from another base), runs every candidate
//! beside reference strategies, and reports for each client count which
//! points no other beats on both measures (the Pareto front), and which
//! candidates reach the target: mean calls at most `full`'s and mean
//! completion time at most `decorrelated`'s, each plus a margin (1% by
//! default). A candidate that reaches it at every client count does the
//! work of `full` in the time of `decorrelated`.
//!
//! [`FrontierParams`], [`FrontierReport`] with its [`Standing`]s and
//! [`FrontierReading`].
//!
//! # Reproducibility
//! The references run exactly as the contention experiment runs them, so
//! their figures are its. A candidate's runs draw from generators seeded by
//! `(seed, client count, family, parameters, run index)` alone: its figures
//! do not depend on the other candidates, on their order or on the number
//! of threads.

mod family;
mod reading;
mod report;
mod view;

pub use family::{Candidate, Family};
pub use reading::FrontierReading;
pub use report::{Entry, FrontierReport, FrontierRow, Standing};

use serde::{Deserialize, Serialize};
use staggered::{Backoff, Strategy};

use crate::experiment::{ensure, Experiment, Invalid, Progress, Work};
use crate::rng::{derive, name_id};
use crate::values::{Clients, List, Share, Units, Values};
use crate::{ContentionParams, ContentionStrategy};

/// The most candidates a frontier may sweep.
pub const MAX_CANDIDATES: usize = 10_000;

/// A frontier: candidate schedules, swept from families and parameter
/// values, run in the contention experiment beside reference strategies.
///
/// ```
/// use staggered_sim::frontier::FrontierParams;
/// use staggered_sim::Experiment;
///
/// let params = FrontierParams {
///     families: "full".parse()?,
///     scales: "1,4".parse()?,
///     multipliers: "2".parse()?,
///     clients: "30".parse()?,
///     runs: 20,
///     ..FrontierParams::default()
/// };
/// let report = params.run()?;
/// assert_eq!(report.rows().len(), 2 + 4); // two candidates, four references
/// let wider = &report.standings()[1];
/// assert_eq!(wider.candidate.name(), "full(scale 4, multiplier 2)");
/// // Waiting longer from the first retry saves calls.
/// assert!(wider.calls_vs_full.unwrap().0 < 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct FrontierParams {
    /// Families of candidates, comma-separated: full (U[0, x], any
    /// multiplier and first interval), floored (U[a x, x]), decorrelated,
    /// smooth.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub families: List<Family>,
    /// Scales s: a candidate starts where its published strategy would with
    /// base s x base. Numbers and ranges FROM..TO/STEP, comma-separated.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub scales: Values,
    /// Multipliers m (full and floored): the interval's growth per retry,
    /// at least 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub multipliers: Values,
    /// Floors a (floored): the shortest delay as a fraction of the
    /// interval, 0 to 1.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub floors: Values,
    /// Strategies drawn as labelled points beside the candidates, as
    /// contention's strategies; the target needs full and decorrelated.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub references: List<ContentionStrategy>,
    /// The target's margin: a candidate reaches it at a client count when
    /// its mean calls are at most full's and its mean completion time at
    /// most decorrelated's, each plus this.
    #[cfg_attr(feature = "clap", arg(long, value_name = "F|P%"))]
    pub margin: Share,
    /// Client counts, one panel each: `100`, `10,50,100`, or `FROM..TO/STEP`
    /// with both ends included (`10..190/10`); items combine with commas.
    #[cfg_attr(feature = "clap", arg(long, value_name = "LIST"))]
    pub clients: Clients,
    /// Independent runs averaged into each point.
    #[cfg_attr(feature = "clap", arg(long, value_name = "R", value_parser = crate::values::count))]
    pub runs: u32,
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

impl Default for FrontierParams {
    /// Families `full` and `floored`, scales 1 to 6, multipliers 1.5, 1.75
    /// and 2, floors 0.1, 0.2 and 0.3, references equal, full, decorrelated
    /// and smooth, margin 1%, at N = 100; the rest as the contention
    /// experiment's.
    fn default() -> Self {
        let contention = ContentionParams::default();
        let references = [Strategy::Equal, Strategy::Full, Strategy::Decorrelated, Strategy::Smooth];
        FrontierParams {
            families: List(vec![Family::Full, Family::Floored]),
            scales: Values(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            multipliers: Values(vec![1.5, 1.75, 2.0]),
            floors: Values(vec![0.1, 0.2, 0.3]),
            references: List(references.map(ContentionStrategy::Backoff).to_vec()),
            margin: Share(0.01),
            clients: Clients(vec![100]),
            runs: contention.runs,
            seed: contention.seed,
            base: contention.base,
            cap: contention.cap,
            hop_mean: contention.hop_mean,
            hop_sd: contention.hop_sd,
        }
    }
}

impl FrontierParams {
    /// The contention experiment the candidates run in, with the
    /// references as its strategies.
    pub fn contention(&self) -> ContentionParams {
        ContentionParams {
            clients: self.clients.clone(),
            runs: self.runs,
            strategies: self.references.clone(),
            seed: self.seed,
            base: self.base,
            cap: self.cap,
            hop_mean: self.hop_mean,
            hop_sd: self.hop_sd,
        }
    }

    /// Every candidate: for each family in order, each scale, multiplier
    /// and floor it reads, in the order given.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut candidates = Vec::new();
        for &family in self.families.iter() {
            let pick = |read: bool, values: &Values| if read { values.0.clone() } else { vec![0.0] };
            for &scale in &self.scales.0 {
                for &multiplier in &pick(family.reads_multiplier(), &self.multipliers) {
                    for &floor in &pick(family.reads_floor(), &self.floors) {
                        candidates.push(Candidate::new(family, scale, multiplier, floor));
                    }
                }
            }
        }
        candidates
    }

    /// Whether the references include `full` and `decorrelated`, which the
    /// target is measured against.
    pub fn has_target(&self) -> bool {
        let has = |strategy| self.references.0.contains(&ContentionStrategy::Backoff(strategy));
        has(Strategy::Full) && has(Strategy::Decorrelated)
    }

    /// How many candidates the families, scales, multipliers and floors
    /// make, counted without making them.
    fn count(&self) -> usize {
        let length = |read: bool, values: &Values| if read { values.0.len() } else { 1 };
        let per_family = |family: &Family| {
            self.scales.0.len()
                * length(family.reads_multiplier(), &self.multipliers)
                * length(family.reads_floor(), &self.floors)
        };
        self.families.iter().map(per_family).sum()
    }

    /// The library schedule of each candidate, in order.
    fn schedules(&self, candidates: &[Candidate]) -> Result<Vec<Backoff>, Invalid> {
        candidates.iter().map(|candidate| candidate.backoff(self.base.0, self.cap.0)).collect()
    }
}

impl Experiment for FrontierParams {
    type Report = FrontierReport;

    fn validate(&self) -> Result<(), Invalid> {
        let families = &self.families.0;
        ensure(!families.is_empty(), &["families"], "invalid families: give at least one family")?;
        for (i, family) in families.iter().enumerate() {
            ensure(
                !families[..i].contains(family),
                &["families"],
                format!("invalid families: {family} is given twice"),
            )?;
        }
        let reads = |read: fn(Family) -> bool| families.iter().any(|&f| read(f));
        let lists: [(&[&str], &Values, bool); 3] = [
            (&["scales"], &self.scales, true),
            (&["multipliers"], &self.multipliers, reads(Family::reads_multiplier)),
            (&["floors"], &self.floors, reads(Family::reads_floor)),
        ];
        for (field, values, read) in lists {
            ensure(
                !read || !values.0.is_empty(),
                field,
                format!("invalid {}: give at least one value", field[0]),
            )?;
            for (i, value) in values.0.iter().enumerate() {
                let twice = format!("invalid {}: {} is given twice", field[0], crate::view::number(*value));
                ensure(!values.0[..i].contains(value), field, twice)?;
            }
        }
        let margin = self.margin.0;
        ensure(
            margin.is_finite() && margin >= 0.0,
            &["margin"],
            format!("invalid margin {margin}: must be a finite fraction, at least 0"),
        )?;
        let count = self.count();
        let too_many = format!("invalid families, scales, multipliers and floors: {count} candidates, more than the limit of {MAX_CANDIDATES}");
        ensure(count <= MAX_CANDIDATES, &["families", "scales", "multipliers", "floors"], too_many)?;
        let contention = self.contention();
        // The whole frontier's size before the references' alone, which it
        // includes, so that an error names the families.
        contention.check_size(count + self.references.0.len(), "families")?;
        contention.validate().map_err(|err| err.renamed("strategies", "references"))?;
        self.schedules(&self.candidates()).map(drop)
    }

    /// References without `full` or `decorrelated`: the target is not measured.
    fn notes(&self) -> Vec<(&'static str, String)> {
        let note = "lacks full or decorrelated: the target (the work of full in the time of decorrelated) is not measured";
        if self.has_target() {
            Vec::new()
        } else {
            vec![("references", note.to_owned())]
        }
    }

    /// Clients, summed over every point, entry (candidate or reference) and run.
    fn work(&self) -> Work {
        Work {
            total: self.contention().total_clients(self.count() + self.references.0.len()),
            unit: "clients",
        }
    }

    fn run_with_progress(&self, progress: &Progress) -> Result<FrontierReport, Invalid> {
        self.validate()?;
        let contention = self.contention();
        let references = contention.run_with_progress(progress)?;
        let candidates = self.candidates();
        let schedules = self.schedules(&candidates)?;
        let seed_of =
            |clients, candidate: usize, run| run_seed(self.seed, clients, &candidates[candidate], run);
        let summaries = contention.simulate_grid(&schedules, seed_of, progress);
        let schedules = contention.schedules()?.into_iter().chain(schedules).collect();
        Ok(FrontierReport::new(self.clone(), candidates, schedules, references.rows(), &summaries))
    }
}

/// The seed of one run of a candidate: a function of its coordinates and
/// nothing else.
fn run_seed(seed: u64, clients: u32, candidate: &Candidate, run: u32) -> u64 {
    let bits = |value: Option<f64>| value.map_or(u64::MAX, f64::to_bits);
    derive(&[
        seed,
        u64::from(clients),
        name_id(candidate.family.name()),
        candidate.scale.to_bits(),
        bits(candidate.multiplier),
        bits(candidate.floor),
        u64::from(run),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_every_coordinate() {
        let a = Candidate::new(Family::Floored, 2.0, 1.5, 0.1);
        let base = run_seed(1, 10, &a, 0);
        let others = [
            run_seed(2, 10, &a, 0),
            run_seed(1, 11, &a, 0),
            run_seed(1, 10, &a, 1),
            run_seed(1, 10, &Candidate::new(Family::Full, 2.0, 1.5, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.5, 1.5, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.0, 1.6, 0.1), 0),
            run_seed(1, 10, &Candidate::new(Family::Floored, 2.0, 1.5, 0.2), 0),
        ];
        assert!(others.iter().all(|&seed| seed != base));
    }
}
