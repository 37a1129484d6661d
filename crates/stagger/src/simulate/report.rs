//! What a scenario measured, ready to export: [`Results`], the little that
//! `stagger simulate` needs of any scenario's results, and
//! [`SimulationReport`], the shape of results on an x axis.
//!
//! A scenario's own report (such as `staggered_sim::ContentionReport`) has
//! its own types; turning it into points on an x axis, one series per
//! strategy, with a [`Summary`] per measure, is the scenario module's job.
//! The table, CSV, JSON, Markdown and SVG then need nothing new for a new
//! scenario of that shape. A scenario whose results are not points (the
//! overload scenario's rows per policy and per-second series) implements
//! [`Results`] with exporters of its own.

use staggered_sim::Summary;

use super::{export, plot};
use crate::output::Format;

/// A scenario's results, as `stagger simulate` writes them: text in each
/// format, and an SVG chart.
pub trait Results {
    /// The results in `format`.
    ///
    /// # Errors
    /// Only if serialization fails.
    fn render(&self, format: Format) -> anyhow::Result<String>;

    /// The SVG document of the chart.
    ///
    /// # Errors
    /// If the chart cannot be laid out.
    fn chart(&self) -> anyhow::Result<String>;
}

impl Results for SimulationReport {
    fn render(&self, format: Format) -> anyhow::Result<String> {
        export::render(self, format)
    }

    fn chart(&self) -> anyhow::Result<String> {
        plot::render(self)
    }
}

/// The results of one simulation, ready to export.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationReport {
    /// The experiment's parameters, as (name, value) lines for the table's
    /// and Markdown's header.
    pub parameters: Vec<(&'static str, String)>,
    /// What the x axis counts: its CSV and JSON key, such as `clients`.
    pub x: &'static str,
    /// The x axis label of the chart, such as `clients (N)`.
    pub x_label: &'static str,
    /// What a series is: its CSV and JSON key, such as `strategy`.
    pub series: &'static str,
    /// The measures of every point, in column order.
    pub measures: Vec<Measure>,
    /// Every point: x major, then series, both in the order the user gave.
    pub points: Vec<Point>,
    /// Sentences that read the results, printed under the tables.
    pub reading: Vec<String>,
}

/// One measure of a point, such as the calls per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    /// Its key in CSV and JSON, which name it `mean_KEY`, `sd_KEY`, `min_KEY`
    /// and `max_KEY`.
    pub key: &'static str,
    /// What it is, with its unit (`completion time in time units`): the
    /// table's caption and the chart's y label say `mean` before it.
    pub label: &'static str,
    /// The title of its chart panel.
    pub title: &'static str,
    /// Whether its chart panel has a log scale, for a measure whose series
    /// lie orders of magnitude apart.
    pub log_scale: bool,
}

/// One point: an x value, a series, and a summary per measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The x value, such as the client count.
    pub x: u32,
    /// The series' name, such as the strategy.
    pub series: &'static str,
    /// How many runs each summary averages.
    pub runs: u32,
    /// One summary per [`SimulationReport::measures`], in the same order.
    pub values: Vec<Summary>,
}

impl SimulationReport {
    /// The x values, each once, in the order of the points.
    pub fn xs(&self) -> Vec<u32> {
        let mut xs: Vec<u32> = Vec::new();
        for point in &self.points {
            if !xs.contains(&point.x) {
                xs.push(point.x);
            }
        }
        xs
    }

    /// The series' names, each once, in the order of the points.
    pub fn series_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for point in &self.points {
            if !names.contains(&point.series) {
                names.push(point.series);
            }
        }
        names
    }

    /// The runs of every point, if they all have the same number.
    pub fn runs(&self) -> Option<u32> {
        let runs = self.points.first()?.runs;
        self.points.iter().all(|point| point.runs == runs).then_some(runs)
    }

    /// The point of `x` and `series`, if there is one.
    pub fn point(&self, x: u32, series: &str) -> Option<&Point> {
        self.points.iter().find(|point| point.x == x && point.series == series)
    }
}

/// A small report shared by the exporters' and the chart's tests: two client
/// counts, two strategies, two measures.
#[cfg(test)]
pub mod fixtures {
    use super::*;

    fn summary(values: &[f64]) -> Summary {
        Summary::of(values.iter().copied()).expect("values")
    }

    /// Known values: `calls` in the hundreds, `time` spanning two orders of
    /// magnitude.
    pub fn report() -> SimulationReport {
        let measures = vec![
            Measure { key: "calls", label: "calls per run", title: "Calls", log_scale: false },
            Measure { key: "time", label: "time in time units", title: "Time", log_scale: true },
        ];
        let point = |x, series, calls: &[f64], time: &[f64]| Point {
            x,
            series,
            runs: calls.len() as u32,
            values: vec![summary(calls), summary(time)],
        };
        SimulationReport {
            parameters: vec![("scenario", "test".to_owned()), ("runs", "2 per point".to_owned())],
            x: "clients",
            x_label: "clients (N)",
            series: "strategy",
            measures,
            points: vec![
                point(10, "none", &[20.0, 30.0], &[100.0, 120.0]),
                point(10, "full", &[15.0, 16.0], &[300.0, 500.0]),
                point(20, "none", &[80.0, 100.0], &[200.0, 240.0]),
                point(20, "full", &[40.5, 41.0], &[9000.0, 11000.0]),
            ],
            reading: vec!["full did the least work.".to_owned()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_keep_the_order_given() {
        let report = fixtures::report();
        assert_eq!(report.xs(), [10, 20]);
        assert_eq!(report.series_names(), ["none", "full"]);
        assert_eq!(report.point(20, "full").unwrap().values[0].mean, 40.75);
        assert_eq!(report.point(30, "full"), None);
        assert_eq!(report.runs(), Some(2));
    }
}
