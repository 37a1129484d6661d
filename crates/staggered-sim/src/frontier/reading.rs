//! The reading of a frontier: which candidates did the work of `full` in
//! the time of `decorrelated` at every client count, or which came
//! closest; and each client count's front, in words.

use std::fmt;

use super::{FrontierReport, FrontierRow, Standing};
use crate::view::{list, percent};

/// What a frontier says about its target.
///
/// ```
/// use staggered_sim::frontier::FrontierParams;
/// use staggered_sim::Experiment;
///
/// let params = FrontierParams {
///     families: "smooth".parse()?,
///     scales: "1".parse()?,
///     clients: "20".parse()?,
///     runs: 10,
///     ..FrontierParams::default()
/// };
/// let reading = params.run()?.reading();
/// let closest = reading.closest.as_ref().unwrap();
/// assert_eq!(closest.candidate.name(), "smooth(scale 1)");
/// println!("{reading}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FrontierReading {
    /// The candidates that reached the target at every client count, in the
    /// parameters' order.
    pub dominant: Vec<Standing>,
    /// The candidate least far from the target at its worst client count
    /// (the first on a tie); `None` without candidates or without the
    /// target's references.
    pub closest: Option<Standing>,
    /// The target's margin.
    pub margin: f64,
    /// How many client counts the standings cover.
    pub client_counts: usize,
    /// How many candidates there were.
    pub candidates: usize,
}

impl FrontierReport {
    /// The reading of the whole frontier.
    pub fn reading(&self) -> FrontierReading {
        let standings = self.standings();
        let closest = standings
            .iter()
            .filter(|s| s.excess().is_some())
            .min_by(|a, b| {
                a.excess().unwrap_or(f64::INFINITY).total_cmp(&b.excess().unwrap_or(f64::INFINITY))
            })
            .cloned();
        FrontierReading {
            dominant: standings.iter().filter(|s| s.dominates == Some(true)).cloned().collect(),
            closest,
            margin: self.config().margin.0,
            client_counts: self.config().clients.0.len(),
            candidates: standings.len(),
        }
    }

    /// The paragraphs under the tables: the reading, each client count's
    /// front, and what the marks mean.
    pub fn paragraphs(&self) -> Vec<String> {
        let mut paragraphs = Vec::new();
        if self.config().has_target() {
            paragraphs.push(self.reading().to_string());
        }
        for &clients in &self.config().clients.0 {
            let mut front: Vec<&FrontierRow> = self.rows_for(clients).filter(|row| row.front).collect();
            front.sort_by(|a, b| a.calls.mean.total_cmp(&b.calls.mean));
            let points = front.iter().map(|row| {
                format!("{} ({:.0} calls, {:.0} time units)", row.entry.name(), row.calls.mean, row.time.mean)
            });
            paragraphs.push(format!(
                "N = {clients}: on the front, from the fewest calls to the soonest finish: {}.",
                points.collect::<Vec<_>>().join("; ")
            ));
        }
        let mut marks =
            "front: * marks a point that no other point of its client count beats on both means.".to_owned();
        if self.config().has_target() {
            let margin = percent(self.config().margin.0);
            marks.push_str(&format!(
                " target: yes when the mean calls are at most full's + {margin} and the mean completion time at \
                 most decorrelated's + {margin}."
            ));
        }
        marks.push_str(" ± is one standard error of the mean over the runs.");
        paragraphs.push(marks);
        paragraphs
    }
}

/// A ratio as a signed change: `+1.2%`, `-3.4%`.
pub(super) fn change(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

impl fmt::Display for FrontierReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let margin = percent(self.margin);
        let every = match self.client_counts {
            1 => "at its client count".to_owned(),
            n => format!("at all {n} client counts"),
        };
        let target = format!(
            "mean calls at most full's + {margin} and mean completion time at most decorrelated's + {margin} {every}"
        );
        if !self.dominant.is_empty() {
            let names: Vec<String> = self.dominant.iter().map(|s| s.candidate.name()).collect();
            return write!(
                f,
                "{} of the {} candidates reached the target, {target}: {}.",
                names.len(),
                self.candidates,
                list(names.iter().map(String::as_str))
            );
        }
        write!(f, "None of the {} candidates reached the target, {target}.", self.candidates)?;
        if let Some(closest) = &self.closest {
            let (Some((calls, at_calls)), Some((time, at_time))) =
                (closest.calls_vs_full, closest.time_vs_decorrelated)
            else {
                return Ok(());
            };
            write!(
                f,
                " Closest: {}, at worst {} calls against full (N = {at_calls}) and {} time against decorrelated \
                 (N = {at_time}).",
                closest.candidate.name(),
                change(calls),
                change(time)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::FrontierParams;
    use crate::values::Share;
    use crate::Experiment;

    #[test]
    fn the_reading_names_the_closest_or_the_winners() {
        let params = FrontierParams {
            families: "full".parse().unwrap(),
            scales: "1,2".parse().unwrap(),
            multipliers: "2".parse().unwrap(),
            clients: "10,20".parse().unwrap(),
            runs: 4,
            ..FrontierParams::default()
        };
        let report = params.run().unwrap();
        let reading = report.reading();
        assert_eq!(reading.candidates, 2);
        let standings = report.standings();
        let least = standings.iter().map(|s| s.excess().unwrap()).fold(f64::INFINITY, f64::min);
        assert_eq!(reading.closest.as_ref().unwrap().excess(), Some(least));
        let text = reading.to_string();
        if reading.dominant.is_empty() {
            assert!(text.starts_with("None of the 2 candidates reached the target"), "{text}");
            assert!(text.contains("at all 2 client counts. Closest: full(scale"), "{text}");
        } else {
            assert!(text.contains("of the 2 candidates reached the target"), "{text}");
        }
        // With a margin wide enough, every candidate reaches it.
        let wide = FrontierParams { margin: Share(10.0), ..params }.run().unwrap().reading();
        assert_eq!(wide.dominant.len(), 2);
        assert!(
            wide.to_string()
                .starts_with("2 of the 2 candidates reached the target, mean calls at most full's + 1000%"),
            "{wide}"
        );
        let paragraphs = report.paragraphs();
        assert_eq!(paragraphs.len(), 1 + 2 + 1);
        assert!(
            paragraphs[1].starts_with("N = 10: on the front, from the fewest calls to the soonest finish: ")
        );
    }

    #[test]
    fn changes_and_percentages_read_as_written() {
        assert_eq!(change(1.012), "+1.2%");
        assert_eq!(change(0.95), "-5.0%");
    }
}
