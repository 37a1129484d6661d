//! A throttling report in the common shape: its parameters, a table of a
//! row per policy, the reading, a record per policy, and a chart of a panel
//! per policy.
//!
//! As in the overload scenario, the chart stacks a panel per policy: the
//! offered load is the same in each (one seed), and each panel tells one
//! policy's story (attempts sent against the rate limit, goodput against
//! the offered load) on one time axis and one y scale.

use std::time::Duration;

use staggered::config::format_duration;

use super::reading::{percent, seconds};
use super::{ThrottlingReport, ThrottlingRow};
use crate::fleet::{self, Policy};
use crate::view::{self, number, Chart, Color, Dash, Line, Table};
use crate::Present;

/// A column of the records: its key and its value in a row.
type Field = view::Field<ThrottlingRow>;

/// Every record's field, in column order: the measures first, then the
/// counts they come from. Waits are in seconds, the send rate in attempts
/// per second.
const FIELDS: [Field; 15] = [
    ("policy", |r| r.policy.name().into()),
    ("throttled_fraction", |r| r.throttled_fraction.into()),
    ("goodput", |r| r.goodput.into()),
    ("attempts_per_operation", |r| r.attempts_per_operation.into()),
    ("wait_p50", |r| r.wait_p50.into()),
    ("wait_p99", |r| r.wait_p99.into()),
    ("send_rate", |r| r.send_rate.into()),
    ("operations", |r| r.operations.into()),
    ("attempts", |r| r.attempts.into()),
    ("throttled", |r| r.throttled.into()),
    ("succeeded", |r| r.succeeded.into()),
    ("refused", |r| r.refused.into()),
    ("unfinished", |r| r.unfinished.into()),
    ("shed", |r| r.shed.into()),
    ("late", |r| r.late.into()),
];

impl Present for ThrottlingReport {
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

impl ThrottlingReport {
    /// The experiment's parameters: the quota and the limiter only when a
    /// policy has them.
    fn parameters(&self) -> Vec<(String, String)> {
        let config = self.config();
        let names: Vec<&str> = config.policies.iter().map(|p| p.name()).collect();
        let mut lines = vec![
            ("scenario", "throttling: clients offer more than a rate-limited server admits".to_owned()),
            ("policies", names.join(", ")),
            (
                "load",
                format!(
                    "{} clients offering {} operations/s in all (Poisson, split evenly) for {}, seed {}",
                    config.clients,
                    number(config.arrival_rate.0),
                    format_duration(config.duration.0),
                    config.seed
                ),
            ),
            (
                "server",
                format!(
                    "admits {}/s (a token bucket holding {}); the excess is throttled at once; {} per hop{}",
                    number(config.rate_limit.0),
                    match config.rate_limit_burst.0 {
                        burst if burst == Duration::from_secs(1) => "one second".to_owned(),
                        burst => format_duration(burst),
                    },
                    format_duration(config.hop.0),
                    if config.announce { "; announces its quota in a RateLimit header" } else { "" }
                ),
            ),
            fleet::backoff_line(self.backoff()),
            (
                "caller",
                format!(
                    "gives each operation {}: no retry or wait for a token goes past it, and only what \
                     succeeds within it is goodput",
                    format_duration(config.timeout.0)
                ),
            ),
        ];
        let has = |check: fn(Policy) -> bool| config.policies.iter().any(|&p| check(p));
        if has(Policy::has_budget) {
            let b = config.quota();
            lines.push((
                "retry quota",
                format!(
                    "one per client: {} tokens; a throttled retry costs {}; a first-try success refunds {}",
                    b.capacity(),
                    b.throttled_cost(),
                    b.success_refund()
                ),
            ));
        }
        if has(|p| p == Policy::Adaptive) {
            let l = config.limiter();
            lines.push((
                "limiter",
                format!(
                    "one per client: CUBIC, scale constant {}, beta {}; rate measured over {} buckets, smoothing {}",
                    number(l.scale_constant()),
                    number(l.beta()),
                    format_duration(l.rate_bucket()),
                    number(l.smoothing())
                ),
            ));
        }
        if has(|p| p == Policy::Tracking) {
            lines.push((
                "tracking",
                "one per client: over windows of at least 1s and 20 responses, 0.95 times the rate the \
                 server admitted after a window with throttles; after one without, 5% more, doubling with \
                 each clean window in a row up to 80%, back to what the server last admitted, then 2%"
                    .to_owned(),
            ));
        }
        if has(Policy::has_limiter) {
            let wait = format_duration(config.max_token_wait.0);
            lines
                .push(("token wait", format!("an attempt waits at most {wait} for its token, then is shed")));
        }
        lines.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
    }

    /// A row per policy, percentages with two decimals and waits with three
    /// significant digits (the records keep every digit).
    fn table(&self) -> Table {
        let title = "Per policy: throttled, the attempts the server throttled; goodput, the operations that \
                     succeeded within the caller's timeout; attempts per operation, the attempts that reached the server over the \
                     operations offered (below 1 when operations are still waiting at the end); client-side waits (limiter and backoff), median and \
                     99th percentile; send rate, attempts reaching the server per second over the last half; \
                     retries the quota refused; operations shed waiting for a token; operations unfinished \
                     at the end"
            .to_owned();
        let columns = [
            "policy",
            "throttled",
            "goodput",
            "attempts/op",
            "wait p50",
            "wait p99",
            "send rate",
            "refused",
            "shed",
            "unfinished",
        ];
        let mut table = Table::new(Some(title), columns);
        for row in self.rows() {
            table.push([
                row.policy.name().into(),
                percent(row.throttled_fraction).into(),
                percent(row.goodput).into(),
                format!("{:.2}", row.attempts_per_operation).into(),
                seconds(row.wait_p50).into(),
                seconds(row.wait_p99).into(),
                format!("{:.0}/s", row.send_rate).into(),
                row.refused.into(),
                row.shed.into(),
                row.unfinished.into(),
            ]);
        }
        table
    }

    /// A panel per policy: per second, the offered load, the attempts
    /// reaching the server and the goodput, with the rate limit; every panel
    /// on one scale.
    fn chart(&self) -> Chart {
        let config = self.config();
        let (end, limit) = (config.duration.0.as_secs_f64(), config.rate_limit.0);
        // Dashed: the lines of a policy that sends at the limit lie on it.
        let points = vec![(0.0, limit), (end, limit)];
        let limit = Line {
            name: "rate limit".to_owned(),
            points,
            color: Color::Reference,
            markers: false,
            dash: Dash::Long,
        };
        let panels = self.rows().iter().map(|row| {
            let (throttled, goodput) = (percent(row.throttled_fraction), percent(row.goodput));
            (format!("{}: {throttled} of attempts throttled, goodput {goodput}", row.policy), &row.series)
        });
        fleet::chart(end, &limit, &[], ("attempts sent", 2), panels)
    }
}

#[cfg(test)]
mod tests {
    use super::super::reading::fixtures;
    use super::*;
    use crate::view::{Layout, Value};

    #[test]
    fn records_keep_every_digit_and_the_table_rounds() {
        let view = fixtures::report().present();
        assert_eq!(view.records.columns, FIELDS.map(|(key, _)| key));
        let adaptive = &view.records.rows[3];
        assert_eq!(adaptive[0], "adaptive".into());
        assert_eq!(adaptive[1], Value::Float(0.0154));
        assert_eq!(adaptive[4], Value::Float(13.939));
        let cells: Vec<String> = view.tables[0].rows[3].iter().map(Value::to_string).collect();
        assert_eq!(
            cells,
            ["adaptive", "1.54%", "50.96%", "0.52", "13.94s", "34.95s", "508/s", "0", "0", "29342"]
        );
        let names: Vec<&str> = view.parameters.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "scenario",
                "policies",
                "load",
                "server",
                "backoff",
                "caller",
                "retry quota",
                "limiter",
                "tracking",
                "token wait"
            ]
        );
        assert_eq!(
            view.parameters[2].1,
            "20 clients offering 1000 operations/s in all (Poisson, split evenly) for 20s, seed 2015"
        );
        assert_eq!(
            view.parameters[6].1,
            "one per client: 500 tokens; a throttled retry costs 5; a first-try success refunds 1"
        );
        assert_eq!(view.parameters[9].1, "an attempt waits at most 1s for its token, then is shed");
        assert_eq!(view.notes.len(), 3);
    }

    #[test]
    fn the_table_says_what_attempts_per_operation_divides() {
        // adaptive's 0.52 is below 1: operations still queued at the end
        // count, attempts not sent do not.
        let title = fixtures::report().present().tables[0].title.clone().unwrap();
        assert!(
            title.contains(
                "attempts per operation, the attempts that reached the server over the operations offered \
                 (below 1 when operations are still waiting at the end);"
            ),
            "{title}"
        );
    }

    #[test]
    fn a_panel_per_policy_on_one_scale_with_the_limit() {
        let chart = fixtures::report().present().chart.unwrap();
        assert_eq!((chart.layout, chart.panels.len()), (Layout::Stacked, 4));
        assert_eq!(chart.panels[3].title, "adaptive: 1.54% of attempts throttled, goodput 50.96%");
        let top = chart.panels[0].y.range.unwrap().1;
        assert!(chart.panels.iter().all(|panel| panel.y.range == Some((0.0, top))));
        assert_eq!(top, 2395.0 * 1.08);
        let panel = &chart.panels[1];
        assert_eq!(panel.lines[0].points[0], (0.5, 2395.0));
        // The limit is drawn last, dashed, over the goodput's area, which
        // reaches up to it when every attempt the limit lets through
        // succeeds; the offered load is dashed over the attempts.
        assert_eq!(
            panel.lines.iter().map(|l| (l.name.as_str(), l.dash)).collect::<Vec<_>>(),
            [("attempts sent", Dash::Solid), ("offered load", Dash::Long), ("rate limit", Dash::Long)]
        );
        assert_eq!(panel.lines[2].points, [(0.0, 500.0), (20.0, 500.0)]);
        assert_eq!(panel.bands[0].name, "goodput");
    }
}
