//! The reading of a report: at one client count, which strategy did the least
//! work, which finished first, and by how much; and the paragraphs printed
//! under the tables.

use std::fmt;

use super::{ContentionReport, ContentionRow, ContentionStrategy};
use crate::Summary;

/// The client count the 2015 experiment publishes figures for, and so the
/// one [`ContentionReport::paragraphs`] reads when the experiment has it.
pub const PUBLISHED_CLIENTS: u32 = 100;

/// How many standard errors apart two means must be to call the gap real
/// rather than run-to-run noise: 2, about a 95% two-sided test.
pub const NOISE_Z: f64 = 2.0;

/// One strategy's standing on one measure.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Place {
    /// The strategy.
    pub strategy: ContentionStrategy,
    /// Its measure over the runs (calls or completion time).
    pub summary: Summary,
}

impl Place {
    /// How much lower this mean is than `other`'s, as a fraction of `other`'s
    /// (0.25: 25% lower; negative when higher).
    pub fn lead_over(&self, other: &Place) -> f64 {
        1.0 - self.summary.mean / other.summary.mean
    }

    /// Whether the gap to `other` exceeds [`NOISE_Z`] standard errors of the
    /// difference of the two means.
    pub fn differs_from(&self, other: &Place) -> bool {
        let (a, b) = (self.summary, other.summary);
        let se = (a.std_error().powi(2) + b.std_error().powi(2)).sqrt();
        (a.mean - b.mean).abs() > NOISE_Z * se
    }
}

/// The strategies ranked on one measure, lowest mean first.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Ranking {
    /// The lowest mean (the first in configuration order on a tie).
    pub best: Place,
    /// The second lowest, if more than one strategy ran.
    pub runner_up: Option<Place>,
    /// The highest mean.
    pub worst: Place,
}

impl Ranking {
    fn of<'a>(
        rows: impl Iterator<Item = &'a ContentionRow>,
        measure: fn(&ContentionRow) -> Summary,
    ) -> Option<Self> {
        let place = |row: &ContentionRow| Place { strategy: row.strategy, summary: measure(row) };
        let mut places: Vec<Place> = rows.map(place).collect();
        // A stable sort keeps configuration order on ties.
        places.sort_by(|a, b| a.summary.mean.total_cmp(&b.summary.mean));
        Some(Ranking { best: *places.first()?, runner_up: places.get(1).copied(), worst: *places.last()? })
    }
}

/// What one client count of a report says: the least work (mean calls) and
/// the first to finish (mean completion time), each with its margin over
/// the runner-up and the worst. Its `Display` is the sentence the CLI prints.
///
/// ```
/// use staggered_sim::{ContentionParams, Experiment};
///
/// let report = ContentionParams { clients: "40".parse()?, runs: 10, ..Default::default() }.run()?;
/// let reading = report.reading(40).unwrap();
/// assert_eq!(reading.work.best.strategy.name(), "full");
/// println!("{reading}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Reading {
    /// The client count.
    pub clients: u32,
    /// The strategies ranked by mean calls per run.
    pub work: Ranking,
    /// The strategies ranked by mean completion time.
    pub time: Ranking,
}

impl ContentionReport {
    /// The reading at `clients`, if the report has that client count.
    pub fn reading(&self, clients: u32) -> Option<Reading> {
        self.reading_if(clients, |_| true)
    }

    /// The reading at `clients` among the strategies `keep` accepts; `None`
    /// if it accepts none of them or the report lacks that client count.
    ///
    /// The 2015 finding that decorrelated finishes soonest compares the
    /// strategies that back off: `none` finishes sooner still, at three times
    /// the calls, in the published figures as here.
    ///
    /// ```
    /// use staggered_sim::{ContentionParams, ContentionStrategy, Experiment};
    ///
    /// let report = ContentionParams { clients: "100".parse()?, runs: 20, ..Default::default() }.run()?;
    /// assert_eq!(report.reading(100).unwrap().time.best.strategy, ContentionStrategy::NoBackoff);
    /// let backing_off = report.reading_if(100, |s| s != ContentionStrategy::NoBackoff).unwrap();
    /// assert_eq!(backing_off.time.best.strategy.name(), "decorrelated");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reading_if(&self, clients: u32, keep: impl Fn(ContentionStrategy) -> bool) -> Option<Reading> {
        let keep = &keep;
        let rows = self.rows_for(clients).filter(move |row| keep(row.strategy));
        Some(Reading {
            clients,
            work: Ranking::of(rows.clone(), |row| row.calls)?,
            time: Ranking::of(rows, |row| row.time)?,
        })
    }

    /// The reading at every client count, in order.
    pub fn readings(&self) -> impl Iterator<Item = Reading> + '_ {
        self.config().clients.0.iter().filter_map(|&clients| self.reading(clients))
    }

    /// The paragraphs under the tables: the reading at [`PUBLISHED_CLIENTS`]
    /// if the experiment has it, else at its largest client count; and
    /// again among the strategies that back off when `none` ran with at
    /// least two of them, since `none` finishes first at three times the
    /// calls.
    pub fn paragraphs(&self) -> Vec<String> {
        let clients = &self.config().clients.0;
        let at = if clients.contains(&PUBLISHED_CLIENTS) {
            PUBLISHED_CLIENTS
        } else {
            clients.iter().copied().max().unwrap_or(PUBLISHED_CLIENTS)
        };
        let backs_off = |s: ContentionStrategy| s != ContentionStrategy::NoBackoff;
        let strategies = &self.config().strategies.0;
        let mut lines: Vec<String> = self.reading(at).map(|r| r.to_string()).into_iter().collect();
        if strategies.contains(&ContentionStrategy::NoBackoff)
            && strategies.iter().filter(|&&s| backs_off(s)).count() >= 2
        {
            if let Some(reading) = self.reading_if(at, backs_off) {
                lines.push(format!("Among the strategies that back off: {reading}"));
            }
        }
        lines
    }
}

impl fmt::Display for Reading {
    /// `N = 100: full did the least work, 796 calls per run: 2% fewer than
    /// equal (812) and 57% fewer than exponential (1855). decorrelated
    /// finished first, after 4462 time units: ...`, with `within run-to-run
    /// noise` after a margin that fails [`Place::differs_from`]. With one
    /// strategy, there is nothing to rank: `N = 5: full made 14 calls per
    /// run and finished after 233 time units.`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "N = {}: ", self.clients)?;
        if self.work.runner_up.is_none() {
            let (only, time) = (self.work.best, self.time.best.summary.mean);
            let calls = only.summary.mean;
            return write!(
                f,
                "{} made {calls:.0} calls per run and finished after {time:.0} time units.",
                only.strategy
            );
        }
        write_ranking(f, &self.work, "did the least work,", "calls per run", "fewer")?;
        f.write_str(" ")?;
        write_ranking(f, &self.time, "finished first, after", "time units", "sooner")
    }
}

fn write_ranking(
    f: &mut fmt::Formatter<'_>,
    ranking: &Ranking,
    verb: &str,
    unit: &str,
    less: &str,
) -> fmt::Result {
    let best = ranking.best;
    write!(f, "{} {verb} {:.0} {unit}", best.strategy, best.summary.mean)?;
    // With two strategies the runner-up is also the worst: name it once.
    let worst = Some(ranking.worst).filter(|w| Some(w) != ranking.runner_up.as_ref() && *w != best);
    for (i, other) in ranking.runner_up.into_iter().chain(worst).enumerate() {
        f.write_str(if i == 0 { ": " } else { " and " })?;
        write!(
            f,
            "{:.0}% {less} than {} ({:.0}",
            100.0 * best.lead_over(&other),
            other.strategy,
            other.summary.mean
        )?;
        if !best.differs_from(&other) {
            f.write_str(", within run-to-run noise")?;
        }
        f.write_str(")")?;
    }
    f.write_str(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contention::tests::small;
    use crate::Experiment;

    fn summary(mean: f64, std_dev: f64) -> Summary {
        Summary { mean, std_dev, min: mean, max: mean, runs: 100 }
    }

    #[test]
    fn margins_and_noise() {
        let full = Place { strategy: "full".parse().unwrap(), summary: summary(797.0, 7.0) };
        let equal = Place { strategy: "equal".parse().unwrap(), summary: summary(812.0, 8.0) };
        let close = Place { strategy: "equal".parse().unwrap(), summary: summary(799.0, 8.0) };
        assert!((full.lead_over(&equal) - 15.0 / 812.0).abs() < 1e-12);
        assert!(full.differs_from(&equal)); // 15 apart, standard error of the gap ~1.06
        assert!(!full.differs_from(&close));
    }

    #[test]
    fn reads_a_small_experiment() {
        let report = small("30", 20, "none,exponential,equal,full,decorrelated").run().unwrap();
        let reading = report.reading(30).unwrap();
        assert_eq!(reading.work.worst.strategy.name(), "none");
        assert_eq!(reading.time.worst.strategy.name(), "exponential");
        let text = reading.to_string();
        assert!(text.starts_with("N = 30: full did the least work, "), "{text}");
        assert!(text.contains("% sooner than exponential ("), "{text}");
        assert_eq!(report.readings().count(), 1);
        assert_eq!(report.reading(31), None);
    }

    #[test]
    fn one_or_two_strategies() {
        let text = small("5", 3, "full").run().unwrap().reading(5).unwrap().to_string();
        assert!(text.starts_with("N = 5: full made "), "{text}");
        assert!(text.contains(" calls per run and finished after "), "{text}");
        assert!(!text.contains("than") && !text.contains("least") && !text.contains("first"), "{text}");
        let text = small("5", 3, "full,none").run().unwrap().reading(5).unwrap().to_string();
        assert_eq!(text.matches(" than ").count(), 2, "one comparison per measure: {text}");
    }

    fn paragraphs(clients: &str, strategies: &str) -> Vec<String> {
        small(clients, 5, strategies).run().unwrap().paragraphs()
    }

    #[test]
    fn paragraphs_read_at_100_or_the_largest_count() {
        let reading = paragraphs("5,8", "none,full");
        assert_eq!(reading.len(), 1, "one strategy backs off: no second reading");
        assert!(reading[0].starts_with("N = 8: "), "{reading:?}");
        let reading = paragraphs("100,20", "none,full,equal");
        assert_eq!(reading.len(), 2);
        assert!(reading[0].starts_with("N = 100: "), "{reading:?}");
        assert!(reading[1].starts_with("Among the strategies that back off: N = 100: "));
        assert!(!reading[1].contains("none"), "{reading:?}");
    }
}
