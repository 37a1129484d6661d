//! An overload report in the common shape: its parameters, a table of a row
//! per policy, the reading, a record per policy, and a chart of a panel per
//! policy.
//!
//! The chart stacks small multiples per policy rather than a panel per
//! measure: the offered load is the same for every policy (one seed), so a
//! panel per measure would draw it five times, and three policies (no-retry,
//! the token bucket and the throttle) would lie on top of each other in
//! every panel. One panel per policy tells each policy's story (arrivals
//! against capacity, goodput against offered load), and one time axis and
//! one y scale line their recoveries up for the eye.

use staggered::config::format_duration;

use super::reading::goodput;
use super::{OverloadReport, OverloadRow};
use crate::fleet::{self, Policy};
use crate::view::{self, format_rounded, number, percent, Chart, Color, Dash, Line, Shade, Table, Value};
use crate::Present;

/// A column of the records: its key and its value in a row.
type Field = view::Field<OverloadRow>;

/// Every record's field, in column order: whether and how fast a policy
/// recovered first, then how. Times are in seconds (`recovery_time` from
/// the trigger's end, `drained_at` from the run's start); `null` is
/// "never" or "no trigger".
const FIELDS: [Field; 15] = [
    ("policy", |r| r.policy.name().into()),
    ("recovered", |r| r.recovered.into()),
    ("recovery_time", |r| r.recovery_time.map(|t| t.as_secs_f64()).into()),
    ("amplification_trigger", |r| r.amplification_trigger.into()),
    ("amplification_after", |r| r.amplification_after.into()),
    ("goodput", |r| r.goodput.into()),
    ("amplification_drained", |r| r.amplification_drained.into()),
    ("peak_amplification_drained", |r| r.peak_amplification_drained.into()),
    ("amplification", |r| r.amplification.into()),
    ("drained_at", |r| r.drained_at.map(|t| t.as_secs_f64()).into()),
    ("operations", |r| r.operations.into()),
    ("attempts", |r| r.attempts.into()),
    ("succeeded", |r| r.succeeded.into()),
    ("timed_out", |r| r.timed_out.into()),
    ("refused", |r| r.refused.into()),
];

/// The trigger's window, shaded in this palette color.
const TRIGGER: usize = 1;

impl Present for OverloadReport {
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

impl OverloadReport {
    /// The experiment's parameters: one line per budget among the policies.
    fn parameters(&self) -> Vec<(String, String)> {
        let config = self.config();
        let names: Vec<&str> = config.policies.iter().map(|p| p.name()).collect();
        let trigger = match config.trigger() {
            Some((start, end, share)) => format!(
                "capacity {}x ({}/s) from {} to {}",
                number(share),
                number(share * config.capacity.0),
                format_duration(start),
                format_duration(end)
            ),
            None => "none".to_owned(),
        };
        let mut lines = vec![
            ("scenario", "overload: clients retry while the server loses capacity".to_owned()),
            ("policies", names.join(", ")),
            (
                "load",
                format!(
                    "{} operations/s (Poisson) for {}, seed {}; each attempt times out after {}",
                    number(config.arrival_rate.0),
                    format_duration(config.duration.0),
                    config.seed,
                    format_duration(config.timeout.0)
                ),
            ),
            (
                "server",
                format!(
                    "capacity {}/s (one worker, FIFO, exponential service times); errors {}",
                    number(config.capacity.0),
                    percent(config.error_rate.0)
                ),
            ),
            ("trigger", trigger),
            fleet::backoff_line(self.backoff()),
        ];
        let has = |policy| config.policies.0.contains(&policy);
        if has(Policy::TokenBucket) {
            let b = config.token_bucket();
            lines.push((
                "token bucket",
                format!(
                    "{} tokens; a retry costs {} ({} after a timeout); a first-try success refunds {}",
                    b.capacity(),
                    b.retry_cost(),
                    b.timeout_cost(),
                    b.success_refund()
                ),
            ));
        }
        if has(Policy::Ratio) {
            let r = config.ratio_budget();
            lines.push((
                "ratio budget",
                format!(
                    "retries up to {} of requests + {}/s, over {}",
                    percent(r.retry_percent()),
                    r.min_per_sec(),
                    format_duration(r.ttl())
                ),
            ));
        }
        if has(Policy::Throttle) {
            let (max_tokens, token_ratio) = (config.throttle_max_tokens, config.throttle_token_ratio);
            lines.push((
                "retry throttle",
                format!(
                    "{max_tokens} tokens, token_ratio {}; no retry at or below half",
                    number(token_ratio)
                ),
            ));
        }
        lines.push((
            "recovery",
            format!(
                "goodput >= {} of the offered load in every second of {}, from the trigger's end",
                percent(config.recovery_threshold.0),
                format_duration(config.recovery_window.0)
            ),
        ));
        lines.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
    }

    /// A row per policy. Goodput has two decimals and amplifications two and
    /// an `x` (the records keep every digit); `-` is a figure that does not
    /// apply.
    fn table(&self) -> Table {
        let config = self.config();
        let from = if config.trigger().is_some() { "the trigger's end" } else { "the start" };
        let title = format!(
            "Per policy: goodput, the operations that succeeded; recovery, from {from} until goodput holds {} of \
             the offered load for {}; load amplification, server arrivals / first attempts, during the trigger, \
             after it, once the budget drained (peak: its worst second) and overall; retries the budget refused",
            percent(config.recovery_threshold.0),
            format_duration(config.recovery_window.0)
        );
        let columns =
            ["policy", "goodput", "recovery", "trigger", "after", "drained", "peak", "overall", "refused"];
        let mut table = Table::new(Some(title), columns);
        let times = |x: Option<f64>| Value::from(x.map_or_else(|| "-".to_owned(), |x| format!("{x:.2}x")));
        for row in self.rows() {
            table.push([
                row.policy.name().into(),
                goodput(row.goodput).into(),
                row.recovery_time.map_or_else(|| "never".to_owned(), format_rounded).into(),
                times(row.amplification_trigger),
                times(row.amplification_after),
                times(row.amplification_drained),
                times(row.peak_amplification_drained),
                times(Some(row.amplification)),
                row.refused.into(),
            ]);
        }
        table
    }

    /// A panel per policy: per second, the offered load, the attempts
    /// reaching the server and the goodput, with the server's capacity and
    /// the trigger's window; every panel on one scale.
    fn chart(&self) -> Chart {
        let config = self.config();
        let end = config.duration.0.as_secs_f64();
        let capacity = config.capacity.0;
        let (points, shades) = match config.trigger() {
            Some((start, stop, share)) => {
                let (from, to, low) = (start.as_secs_f64(), stop.as_secs_f64(), capacity * share);
                let points = vec![
                    (0.0, capacity),
                    (from, capacity),
                    (from, low),
                    (to, low),
                    (to, capacity),
                    (end, capacity),
                ];
                (points, vec![Shade { name: "trigger".to_owned(), from, to, color: TRIGGER }])
            }
            None => (vec![(0.0, capacity), (end, capacity)], Vec::new()),
        };
        let capacity = Line {
            name: "capacity".to_owned(),
            points,
            color: Color::Reference,
            markers: false,
            dash: Dash::Solid,
        };
        let panels = self.rows().iter().map(|row| {
            let recovery = match row.recovery_time {
                Some(t) if config.trigger().is_some() => {
                    format!("recovered {} after the trigger", format_rounded(t))
                }
                Some(t) => format!("goodput held from {}", format_rounded(t)),
                None => "never recovered".to_owned(),
            };
            (format!("{}: goodput {}, {recovery}", row.policy, goodput(row.goodput)), &row.series)
        });
        fleet::chart(end, &capacity, &shades, ("server arrivals", 2), panels)
    }
}

#[cfg(test)]
mod tests {
    use super::super::reading::fixtures;
    use super::*;
    use crate::view::Layout;

    #[test]
    fn records_keep_every_digit_and_the_table_rounds() {
        let view = fixtures::report().present();
        assert_eq!(view.records.columns, FIELDS.map(|(key, _)| key));
        let ratio = &view.records.rows[3];
        assert_eq!(ratio[0], "retry+ratio".into());
        assert_eq!(ratio[2], Value::Float(14.0));
        assert_eq!(ratio[9], Value::Float(10.4));
        assert_eq!(view.records.rows[1][2], Value::Null, "retry never recovered");
        let table = &view.tables[0];
        let cells: Vec<String> = table.rows[3].iter().map(Value::to_string).collect();
        assert_eq!(
            cells,
            ["retry+ratio", "70.10%", "14s", "1.42x", "1.05x", "1.13x", "2.21x", "1.23x", "11311"]
        );
        assert_eq!(table.rows[1][2], "never".into());
        assert!(table.title.as_ref().unwrap().contains("from the trigger's end until goodput holds 95%"));
        let names: Vec<&str> = view.parameters.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            ["scenario", "policies", "load", "server", "trigger", "backoff", "token bucket", "ratio budget"]
                .into_iter()
                .chain(["retry throttle", "recovery"])
                .collect::<Vec<_>>()
        );
        assert_eq!(view.parameters[4].1, "capacity 0.5x (500/s) from 5s to 10s");
        assert_eq!(
            view.parameters[6].1,
            "500 tokens; a retry costs 5 (10 after a timeout); a first-try success refunds 1"
        );
    }

    #[test]
    fn a_panel_per_policy_on_one_scale() {
        let chart = fixtures::report().present().chart.unwrap();
        assert_eq!(chart.layout, Layout::Stacked);
        assert_eq!(chart.panels.len(), 5);
        assert_eq!(chart.panels[1].title, "retry: goodput 16.86%, never recovered");
        assert_eq!(chart.panels[3].title, "retry+ratio: goodput 70.10%, recovered 14s after the trigger");
        let top = chart.panels[0].y.range.unwrap().1;
        assert!(chart.panels.iter().all(|panel| panel.y.range == Some((0.0, top))));
        assert_eq!(top, 2100.0 * 1.08);
        let panel = &chart.panels[0];
        assert_eq!(panel.lines[2].points[2], (5.0, 500.0), "the capacity halves at the trigger");
        assert_eq!(panel.lines[1].points[0], (0.5, 700.0), "a count in the middle of its second");
        // Goodput often equals the arrivals: an area under them, not a line.
        let first = f64::from(fixtures::report().rows()[0].series.goodput[0]);
        assert_eq!((panel.bands[0].name.as_str(), panel.bands[0].boxes[0].high), ("goodput", first));
        assert_eq!((panel.bands[0].boxes[0].from, panel.bands[0].boxes[0].to), (0.0, 1.0), "its second");
        assert_eq!(panel.shades[0].from, 5.0);
    }
}
