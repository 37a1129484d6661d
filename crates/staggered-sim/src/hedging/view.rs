//! A hedging report in the common shape: its parameters, a table of a row
//! per load level and policy, the reading, a record per row, and a chart of
//! four measures against the load.
//!
//! The chart puts the load on x and draws a line per policy in each of four
//! panels (the median and 99.9th percentile latency, attempts per
//! operation, goodput), the loads beyond the capacity shaded: where a
//! hedging policy's tail stops beating `no-retry`, its extra load grows
//! and its goodput falls is then one vertical line across the panels.
//! Each policy keeps its color whatever the others chosen.

use std::time::Duration;

use staggered::config::format_duration;

use super::reading::{latency, times};
use super::{HedgingReport, HedgingRow, POLICIES};
use crate::fleet::{self, Policy};
use crate::view::{self, number, percent, Axis, Chart, Color, Dash, Layout, Line, Panel, Shade, Table};
use crate::Present;

/// A column of the records: its key and its value in a row.
type Field = view::Field<HedgingRow>;

/// A latency as the records write it: seconds, `null` for "failed".
fn seconds(latency: Option<Duration>) -> view::Value {
    latency.map(|d| d.as_secs_f64()).into()
}

/// Every record's field, in column order: the measures first, then the
/// counts they come from. Latencies are in seconds, `null` when the
/// percentile fell among the failed operations.
const FIELDS: [Field; 16] = [
    ("load", |r| r.load.into()),
    ("policy", |r| r.policy.name().into()),
    ("latency_p50", |r| seconds(r.p50)),
    ("latency_p99", |r| seconds(r.p99)),
    ("latency_p999", |r| seconds(r.p999)),
    ("attempts_per_operation", |r| r.attempts_per_operation.into()),
    ("goodput", |r| r.goodput.into()),
    ("operations", |r| r.operations.into()),
    ("attempts", |r| r.attempts.into()),
    ("succeeded", |r| r.succeeded.into()),
    ("hedges", |r| r.hedges.into()),
    ("hedge_wins", |r| r.hedge_wins.into()),
    ("rejected", |r| r.rejected.into()),
    ("cut", |r| r.cut.into()),
    ("wasted", |r| r.wasted.into()),
    ("refused", |r| r.refused.into()),
];

/// A latency in milliseconds, as the chart draws it; `None` for "failed".
fn millis(latency: Option<Duration>) -> Option<f64> {
    latency.map(|d| d.as_secs_f64() * 1e3)
}

/// A panel of the chart: its title, its y axis, and a row's value on it
/// (`None`: no point, a failed percentile).
type Measure = (&'static str, Axis, fn(&HedgingRow) -> Option<f64>);

/// The loads beyond the capacity, shaded in this palette color.
const BEYOND: usize = 7;

impl Present for HedgingReport {
    fn present(&self) -> view::Report {
        view::Report {
            parameters: self.parameters(),
            tables: vec![self.table()],
            notes: self.paragraphs(),
            records: Table::records(&FIELDS, self.rows()),
            document: None,
            chart: Some(self.chart()),
        }
    }
}

impl HedgingReport {
    /// The experiment's parameters: `retry`'s, the hedging's and the
    /// budget's only when a policy has them.
    fn parameters(&self) -> Vec<(String, String)> {
        let config = self.config();
        let names: Vec<&str> = config.policies.iter().map(|p| p.name()).collect();
        let loads: Vec<String> = config.loads.0.iter().map(|&load| percent(load)).collect();
        let capacity = config.capacity();
        let rates = config.loads.0.iter().map(|&load| load * capacity);
        let (low, high) =
            rates.fold((f64::INFINITY, 0.0_f64), |(low, high), rate| (low.min(rate), high.max(rate)));
        let deadline = config.deadline.map_or_else(|| "none".to_owned(), |d| format_duration(d.0));
        let mut lines = vec![
            (
                "scenario",
                "hedging: hedged requests on a server with a long tail, from light load to beyond its capacity"
                    .to_owned(),
            ),
            ("policies", names.join(", ")),
            (
                "load",
                format!(
                    "{} operations (Poisson) at each of {} of the capacity ({:.0}/s to {:.0}/s), seed {}; deadline \
                     {deadline}",
                    config.operations,
                    loads.join(", "),
                    low,
                    high,
                    config.seed
                ),
            ),
            (
                "server",
                format!(
                    "{} workers and a queue of {} (a request that finds it full is rejected); service times \
                     log-normal, median {}, sigma {}, and {} of them {} longer; capacity {:.1}/s",
                    config.workers,
                    config.queue,
                    format_duration(config.service_median.0),
                    number(config.service_sigma),
                    percent(config.stall_rate.0),
                    format_duration(config.stall.0),
                    capacity
                ),
            ),
        ];
        let has = |policy| config.policies.0.contains(&policy);
        if has(Policy::Retry) {
            let (name, backoff) = fleet::backoff_line(self.backoff());
            lines.push((
                name,
                format!("{backoff}; each attempt times out after {}", format_duration(config.timeout.0)),
            ));
        }
        if config.policies.iter().any(|p| p.hedges()) {
            let mut how = Vec::new();
            if has(Policy::Hedge) || has(Policy::HedgeRatio) {
                how.push(format!("after {} without an answer", format_duration(config.hedge_delay.0)));
            }
            if has(Policy::HedgeLearned) {
                how.push(format!(
                    "at the learned {} percentile of latencies (after 100 of them)",
                    ordinal(config.percentile)
                ));
            }
            lines.push(("hedging", format!("{} copies at most; {}", config.hedge_attempts, how.join("; "))));
        }
        if has(Policy::HedgeRatio) {
            let r = config.ratio_budget();
            lines.push((
                "ratio budget",
                format!(
                    "copies up to {} of requests + {}/s, over {}",
                    percent(r.retry_percent()),
                    r.min_per_sec(),
                    format_duration(r.ttl())
                ),
            ));
        }
        lines.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
    }

    /// A row per load level and policy. Latencies have three significant
    /// digits, goodput two decimals (the records keep every digit).
    fn table(&self) -> Table {
        let title = "Per load level (a fraction of the capacity) and policy: operation latency, median, 99th and \
                     99.9th percentiles (failed: the percentile falls among the operations that failed); attempts \
                     and copies per operation; goodput, the operations that succeeded; attempts and copies the \
                     server rejected, and the budget refused";
        let columns =
            ["load", "policy", "p50", "p99", "p99.9", "attempts/op", "goodput", "rejected", "refused"];
        let mut table = Table::new(Some(title.to_owned()), columns);
        for row in self.rows() {
            table.push([
                percent(row.load).into(),
                row.policy.name().into(),
                latency(row.p50).into(),
                latency(row.p99).into(),
                latency(row.p999).into(),
                times(row.attempts_per_operation).into(),
                super::reading::goodput(row.goodput).into(),
                row.rejected.into(),
                row.refused.into(),
            ]);
        }
        table
    }

    /// Four panels against the load, a line per policy.
    fn chart(&self) -> Chart {
        let config = self.config();
        let top = config.loads.0.iter().copied().fold(0.0, f64::max);
        let shades = if top > 1.0 {
            vec![Shade { name: "beyond the capacity".to_owned(), from: 1.0, to: top, color: BEYOND }]
        } else {
            Vec::new()
        };
        let measures: [Measure; 4] = [
            ("Median latency", Axis::log("ms"), |r| millis(r.p50)),
            ("99.9th percentile latency (no point: failed)", Axis::log("ms"), |r| millis(r.p999)),
            ("Attempts and copies per operation", Axis::linear("per operation"), |r| {
                Some(r.attempts_per_operation)
            }),
            ("Goodput", Axis::linear("operations that succeeded").over(0.0, 1.0), |r| Some(r.goodput)),
        ];
        let panels = measures.into_iter().map(|(title, y, measure)| {
            let lines = config.policies.iter().map(|&policy| {
                let rows = self.rows().iter().filter(|row| row.policy == policy);
                let points = rows.filter_map(|row| Some((row.load, measure(row)?))).collect();
                let color = POLICIES.iter().position(|&p| p == policy).unwrap_or(0);
                Line {
                    name: policy.name().to_owned(),
                    points,
                    color: Color::Series(color),
                    markers: true,
                    dash: Dash::Solid,
                }
            });
            Panel {
                title: title.to_owned(),
                x: Axis::linear("offered load, a fraction of the capacity").over(0.0, top),
                y,
                lines: lines.collect(),
                shades: shades.clone(),
                bands: Vec::new(),
                scatters: Vec::new(),
            }
        });
        Chart { layout: Layout::Grid { columns: 2 }, panels: panels.collect() }
    }
}

/// A percentile as people say it: `95th`, `51st`, `99.9th`.
fn ordinal(percentile: f64) -> String {
    let value = (percentile * 100.0 * 1e9).round() / 1e9;
    let suffix = match value as u64 % 100 {
        _ if value.fract() != 0.0 => "th",
        11..=13 => "th",
        n if n % 10 == 1 => "st",
        n if n % 10 == 2 => "nd",
        n if n % 10 == 3 => "rd",
        _ => "th",
    };
    format!("{}{suffix}", number(value))
}
