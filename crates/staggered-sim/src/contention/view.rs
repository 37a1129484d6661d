//! A contention report in the common shape: its parameters, a table per
//! measure (client counts down, strategies across), the reading, a record
//! per point, and a chart of both measures against the client count.

use super::{ContentionReport, ContentionRow};
use crate::view::{self, number, Axis, Chart, Color, Dash, Layout, Line, Panel, Table, Value};
use crate::{Present, Summary};

/// A measure of a point: its key in the records, what it is with its unit,
/// the chart's panel title and scale, and where it is in a row.
struct Measure {
    key: &'static str,
    label: &'static str,
    title: &'static str,
    log: bool,
    of: fn(&ContentionRow) -> Summary,
}

/// Calls per run, then completion time, the two measures of the experiment.
const MEASURES: [Measure; 2] = [
    Measure { key: "calls", label: "calls per run", title: "Calls vs clients", log: false, of: |r| r.calls },
    Measure {
        key: "time",
        label: "completion time in time units",
        title: "Completion time vs clients",
        // Plain exponential finishes about 30 times later than the rest.
        log: true,
        of: |r| r.time,
    },
];

impl Present for ContentionReport {
    /// Records keep every digit, one per (client count, strategy), with the
    /// mean, sample standard deviation, min and max of each measure over
    /// the runs: `clients,strategy,runs,mean_calls,sd_calls,min_calls,
    /// max_calls,mean_time,sd_time,min_time,max_time`. The tables round the
    /// means to whole numbers.
    fn present(&self) -> view::Report {
        let mut columns = vec!["clients".to_owned(), "strategy".to_owned(), "runs".to_owned()];
        for m in &MEASURES {
            columns.extend(["mean", "sd", "min", "max"].map(|stat| format!("{stat}_{}", m.key)));
        }
        let mut records = Table::new(None, columns);
        for row in self.rows() {
            let mut cells = vec![row.clients.into(), row.strategy.name().into(), row.runs().into()];
            for m in &MEASURES {
                let s = (m.of)(row);
                cells.extend([s.mean, s.std_dev, s.min, s.max].map(Value::from));
            }
            records.push(cells);
        }
        view::Report {
            parameters: self.parameters(),
            tables: MEASURES.iter().map(|m| self.table(m)).collect(),
            notes: self.paragraphs(),
            records,
            document: None,
            chart: Some(self.chart()),
        }
    }
}

impl ContentionReport {
    /// The experiment's parameters, above the tables.
    fn parameters(&self) -> Vec<(String, String)> {
        let c = self.config();
        let strategies: Vec<&str> = c.strategies.iter().map(|s| s.name()).collect();
        [
            (
                "scenario",
                "contention (AWS Architecture Blog, 2015): N clients race to update one row".to_owned(),
            ),
            ("strategies", strategies.join(", ")),
            ("runs", format!("{} per point, seed {}", c.runs, c.seed)),
            (
                "backoff",
                format!(
                    "base {}, cap {} time units (2015 convention: the first exponential ceiling is 2 x base)",
                    number(c.base.0),
                    number(c.cap.0)
                ),
            ),
            (
                "network",
                format!(
                    "every hop takes abs(Normal({}, {})) time units; time units are the model's own, not ms",
                    number(c.hop_mean),
                    number(c.hop_sd)
                ),
            ),
        ]
        .map(|(name, value)| (name.to_owned(), value))
        .to_vec()
    }

    /// The means of `measure`: a row per client count, a column per
    /// strategy, rounded to whole numbers.
    fn table(&self, measure: &Measure) -> Table {
        let c = self.config();
        let runs = match c.runs {
            1 => "1 run".to_owned(),
            runs => format!("{runs} runs"),
        };
        let title = format!("Mean {} over {runs}", measure.label);
        let strategies = c.strategies.iter().map(|s| s.name());
        let mut table = Table::new(Some(title), std::iter::once("clients").chain(strategies));
        for &clients in &c.clients.0 {
            let means =
                self.rows_for(clients).map(|row| Value::from(format!("{:.0}", (measure.of)(row).mean)));
            table.push(std::iter::once(clients.into()).chain(means));
        }
        table
    }

    /// A panel per measure, a line per strategy through its means.
    fn chart(&self) -> Chart {
        let panels = MEASURES.iter().map(|m| {
            let lines = self.config().strategies.iter().map(|&strategy| {
                let points = self.rows().iter().filter(|row| row.strategy == strategy);
                Line {
                    name: strategy.name().to_owned(),
                    points: points.map(|row| (f64::from(row.clients), (m.of)(row).mean)).collect(),
                    color: Color::of(strategy.name()),
                    markers: true,
                    dash: Dash::Solid,
                }
            });
            let y = format!("mean {}", m.label);
            let mut panel = Panel {
                title: m.title.to_owned(),
                x: Axis::linear("clients (N)"),
                y: if m.log { Axis::log(y) } else { Axis::linear(y) },
                lines: lines.collect(),
                shades: Vec::new(),
                bands: Vec::new(),
                scatters: Vec::new(),
            };
            // full and equal do about the same work: one line on the other.
            panel.mark_coinciding();
            panel
        });
        Chart { layout: Layout::SideBySide, panels: panels.collect() }
    }
}

#[cfg(test)]
mod tests {
    use crate::contention::tests::small;
    use crate::{Experiment, Present};

    #[test]
    fn records_tables_and_chart_follow_the_rows() {
        let report = small("5,8", 1, "none,full").run().unwrap();
        let view = report.present();
        assert_eq!(view.records.columns.len(), 11);
        assert_eq!(view.records.rows.len(), 4);
        let row = &report.rows()[3];
        assert_eq!(view.records.rows[3][..3], [8_u32.into(), "full".into(), 1_u32.into()]);
        assert_eq!(view.records.rows[3][7], row.time.mean.into());
        assert_eq!(view.tables.len(), 2);
        assert_eq!(view.tables[0].title.as_deref(), Some("Mean calls per run over 1 run"));
        assert_eq!(view.tables[1].columns, ["clients", "none", "full"]);
        assert_eq!(view.tables[1].rows[1][2], format!("{:.0}", row.time.mean).into());
        let chart = view.chart.unwrap();
        assert_eq!(chart.panels.len(), 2);
        assert!(chart.panels[1].y.log && !chart.panels[0].y.log);
        assert_eq!(
            chart.panels[0].lines[1].points,
            [(5.0, report.rows()[1].calls.mean), (8.0, row.calls.mean)]
        );
        assert_eq!(view.notes, report.paragraphs());
    }
}
