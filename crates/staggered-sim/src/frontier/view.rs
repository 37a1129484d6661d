//! A frontier in the common shape: its parameters, a table per client
//! count (fastest first) and the candidates' standings, the reading, a
//! record per point, and a chart of calls against time per client count.

use staggered::config::format_duration;
use staggered::{Backoff, Strategy};

use super::reading::change;
use super::{Entry, FrontierReport, FrontierRow};
use crate::view::{
    self, list, number, percent, Axis, Band, BandBox, Chart, Color, Dash, Layout, Line, Marker, Panel, Point,
    Scatter, Table, Value,
};
use crate::Present;

/// The most panels in a row of the chart.
const COLUMNS: usize = 3;

/// The palette colors of the Pareto front (green) and of the target's box
/// (yellow), apart from the families' (each its strategy's color).
const FRONT: usize = 4;
const TARGET: usize = 5;

impl Present for FrontierReport {
    /// Records keep every digit, one per (client count, point): `clients,
    /// point,kind,family,scale,multiplier,floor,schedule,runs,mean_calls,
    /// se_calls,mean_time,se_time,calls_vs_full,time_vs_decorrelated,front,
    /// target` (`kind` is `reference` or `candidate`; the ratios and
    /// `target` are empty without the references they need). The tables
    /// round the means.
    fn present(&self) -> view::Report {
        let columns = [
            "clients",
            "point",
            "kind",
            "family",
            "scale",
            "multiplier",
            "floor",
            "schedule",
            "runs",
            "mean_calls",
            "se_calls",
            "mean_time",
            "se_time",
            "calls_vs_full",
            "time_vs_decorrelated",
            "front",
            "target",
        ];
        let mut records = Table::new(None, columns);
        let schedules: Vec<String> = self.schedules().iter().map(schedule).collect();
        let references = self.config().references.0.len();
        for (i, row) in self.rows().iter().enumerate() {
            let (kind, family, scale, multiplier, floor) = match row.entry {
                Entry::Reference(_) => ("reference", Value::Null, Value::Null, Value::Null, Value::Null),
                Entry::Candidate(c) => {
                    ("candidate", c.family.name().into(), c.scale.into(), c.multiplier.into(), c.floor.into())
                }
            };
            let at = i % (references + self.candidates().len());
            records.push([
                row.clients.into(),
                row.entry.name().into(),
                kind.into(),
                family,
                scale,
                multiplier,
                floor,
                schedules[at].clone().into(),
                row.calls.runs.into(),
                row.calls.mean.into(),
                row.calls.std_error().into(),
                row.time.mean.into(),
                row.time.std_error().into(),
                row.calls_vs_full.into(),
                row.time_vs_decorrelated.into(),
                row.front.into(),
                row.on_target.into(),
            ]);
        }
        let mut tables: Vec<Table> = self.config().clients.0.iter().map(|&n| self.table(n)).collect();
        if !self.candidates().is_empty() {
            tables.push(self.standings_table());
        }
        view::Report {
            parameters: self.parameters(),
            tables,
            notes: self.paragraphs(),
            records,
            document: None,
            chart: Some(self.chart()),
        }
    }
}

/// A library schedule as its parameters: `proportional, base 27.273ms,
/// multiplier 1.5, factor 0.818182, max_delay 2s` (one time unit is one
/// millisecond).
fn schedule(b: &Backoff) -> String {
    let mut text = format!("{}, base {}", b.strategy(), format_duration(b.base()));
    if b.strategy().uses_multiplier() {
        text.push_str(&format!(", multiplier {}", number(b.multiplier())));
    }
    if b.strategy().uses_factor() {
        text.push_str(&format!(", factor {}", number((b.factor() * 1e6).round() / 1e6)));
    }
    text + &format!(", max_delay {}", format_duration(b.max_delay()))
}

impl FrontierReport {
    /// The frontier's parameters, above the tables.
    fn parameters(&self) -> Vec<(String, String)> {
        let c = self.config();
        let values = |values: &[f64]| {
            list(values.iter().map(|v| number(*v)).collect::<Vec<_>>().iter().map(String::as_str))
        };
        let families: Vec<&str> = c.families.iter().map(|f| f.name()).collect();
        let mut swept = vec![format!("scales {}", values(&c.scales.0))];
        if c.families.iter().any(|f| f.reads_multiplier()) {
            swept.push(format!("multipliers {}", values(&c.multipliers.0)));
        }
        if c.families.iter().any(|f| f.reads_floor()) {
            swept.push(format!("floors {}", values(&c.floors.0)));
        }
        let references: Vec<&str> = c.references.iter().map(|s| s.name()).collect();
        let margin = percent(c.margin.0);
        let mut lines = vec![
            (
                "scenario",
                "frontier: candidate schedules beside the published ones, in the contention experiment \
                 (AWS Architecture Blog, 2015)"
                    .to_owned(),
            ),
            (
                "candidates",
                format!("{}: {}; {}", self.candidates().len(), families.join(", "), swept.join("; ")),
            ),
            ("references", references.join(", ")),
        ];
        if c.has_target() {
            lines.push((
                "target",
                format!("mean calls at most full's + {margin}, mean completion time at most decorrelated's + {margin}"),
            ));
        }
        let clients: Vec<String> = c.clients.0.iter().map(u32::to_string).collect();
        lines.extend([
            ("clients", clients.join(", ")),
            ("runs", format!("{} per point, seed {}", c.runs, c.seed)),
            (
                "backoff",
                format!(
                    "base {}, cap {} time units (2015 convention); a candidate of scale s starts where its \
                     published strategy would with base s x {}",
                    number(c.base.0),
                    number(c.cap.0),
                    number(c.base.0)
                ),
            ),
            (
                "network",
                format!(
                    "every hop takes abs(Normal({}, {})) time units",
                    number(c.hop_mean),
                    number(c.hop_sd)
                ),
            ),
        ]);
        lines.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
    }

    /// One client count's points, soonest finish first.
    fn table(&self, clients: u32) -> Table {
        let runs = match self.config().runs {
            1 => "1 run".to_owned(),
            runs => format!("{runs} runs"),
        };
        let title = format!(
            "N = {clients}: mean calls per run and completion time in time units over {runs}, soonest finish first"
        );
        let columns =
            ["point", "calls", "±", "time", "±", "calls vs full", "time vs decorrelated", "front", "target"];
        let mut table = Table::new(Some(title), columns);
        let mut rows: Vec<&FrontierRow> = self.rows_for(clients).collect();
        rows.sort_by(|a, b| a.time.mean.total_cmp(&b.time.mean));
        let or_dash = |value: Option<String>| Value::from(value.unwrap_or_else(|| "-".to_owned()));
        for row in rows {
            table.push([
                row.entry.name().into(),
                format!("{:.1}", row.calls.mean).into(),
                format!("{:.1}", row.calls.std_error()).into(),
                format!("{:.0}", row.time.mean).into(),
                format!("{:.0}", row.time.std_error()).into(),
                or_dash(row.calls_vs_full.map(change)),
                or_dash(row.time_vs_decorrelated.map(change)),
                if row.front { "*" } else { "" }.into(),
                or_dash(row.on_target.map(|on| if on { "yes" } else { "no" }.to_owned())),
            ]);
        }
        table
    }

    /// Each candidate over every client count, closest to the target first.
    fn standings_table(&self) -> Table {
        let title = "Each candidate at its worst client count, closest to the target first".to_owned();
        let columns = [
            "candidate",
            "calls vs full",
            "at N",
            "time vs decorrelated",
            "at N",
            "on the front at N",
            "target",
        ];
        let mut table = Table::new(Some(title), columns);
        let mut standings = self.standings();
        standings.sort_by(|a, b| {
            a.excess().unwrap_or(f64::INFINITY).total_cmp(&b.excess().unwrap_or(f64::INFINITY))
        });
        let dash = || Value::from("-");
        for s in standings {
            let (calls, at_calls) =
                s.calls_vs_full.map_or((dash(), dash()), |(r, n)| (change(r).into(), n.into()));
            let (time, at_time) =
                s.time_vs_decorrelated.map_or((dash(), dash()), |(r, n)| (change(r).into(), n.into()));
            let fronts: Vec<String> = s.fronts.iter().map(u32::to_string).collect();
            let target = s.dominates.map_or(dash(), |all| if all { "every N" } else { "no" }.into());
            table.push([
                s.candidate.name().into(),
                calls,
                at_calls,
                time,
                at_time,
                fronts.join(" ").into(),
                target,
            ]);
        }
        table
    }

    /// A panel per client count: calls against time, the candidates of each
    /// family as markers, the front as a dashed line, the references as
    /// labelled points and the target as a shaded box.
    fn chart(&self) -> Chart {
        let families = &self.config().families.0;
        let panels = self.config().clients.0.iter().map(|&clients| {
            let rows: Vec<&FrontierRow> = self.rows_for(clients).collect();
            let point = |row: &FrontierRow, label: Option<String>| Point {
                x: row.time.mean,
                y: row.calls.mean,
                label,
            };
            let mut scatters: Vec<Scatter> = families
                .iter()
                .map(|&family| {
                    let members = rows
                        .iter()
                        .filter(|row| matches!(row.entry, Entry::Candidate(c) if c.family == family));
                    let mut parameters = vec!["scale"];
                    parameters.extend(family.reads_multiplier().then_some("multiplier"));
                    parameters.extend(family.reads_floor().then_some("floor"));
                    Scatter {
                        name: format!("{family}({})", parameters.join(", ")),
                        color: Color::of(family.name()),
                        marker: Marker::Circle,
                        points: members.map(|row| point(row, None)).collect(),
                    }
                })
                .collect();
            let references = rows.iter().filter(|row| matches!(row.entry, Entry::Reference(_)));
            scatters.push(Scatter {
                name: String::new(),
                color: Color::Reference,
                marker: Marker::Circle,
                points: references.map(|row| point(row, Some(row.entry.name()))).collect(),
            });
            let mut front: Vec<(f64, f64)> =
                rows.iter().filter(|row| row.front).map(|row| (row.time.mean, row.calls.mean)).collect();
            front.sort_by(|a, b| a.0.total_cmp(&b.0));
            let lines = vec![Line {
                name: "Pareto front".to_owned(),
                points: front,
                color: Color::Series(FRONT),
                markers: false,
                dash: Dash::Long,
            }];
            let xs = rows.iter().map(|row| row.time.mean);
            let ys = rows.iter().map(|row| row.calls.mean);
            let (x, y) = (padded(xs, 0.15), padded(ys, 0.05));
            let mut bands = Vec::new();
            let reference = |strategy| self.reference(clients, strategy);
            if let (Some(full), Some(decorrelated)) =
                (reference(Strategy::Full), reference(Strategy::Decorrelated))
            {
                let margin = 1.0 + self.config().margin.0;
                let edge = |limit: f64, (low, high): (f64, f64)| limit.clamp(low, high);
                bands.push(Band {
                    name: format!(
                        "target: calls <= full + {m}, time <= decorrelated + {m}",
                        m = percent(self.config().margin.0)
                    ),
                    color: TARGET,
                    boxes: vec![BandBox {
                        from: x.0,
                        to: edge(decorrelated.time.mean * margin, x),
                        low: y.0,
                        high: edge(full.calls.mean * margin, y),
                    }],
                });
            }
            Panel {
                title: format!("N = {clients}"),
                x: Axis::linear("mean completion time in time units").over(x.0, x.1),
                y: Axis::linear("mean calls per run").over(y.0, y.1),
                lines,
                shades: Vec::new(),
                bands,
                scatters,
            }
        });
        let panels: Vec<Panel> = panels.collect();
        Chart { layout: Layout::Grid { columns: panels.len().clamp(1, COLUMNS) }, panels }
    }
}

/// The range of `values` with `right` of its span added above and 5%
/// below, never empty: room for the labels right of the points.
fn padded(values: impl Iterator<Item = f64>, right: f64) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = (high - low).max(high.abs() * 0.01).max(1.0);
    ((low - 0.05 * span).max(0.0), high + right * span)
}

#[cfg(test)]
mod tests {
    use crate::frontier::FrontierParams;
    use crate::view::{Layout, Value};
    use crate::{Experiment, Present};

    #[test]
    fn records_tables_and_chart_follow_the_rows() {
        let params = FrontierParams {
            scales: "2".parse().unwrap(),
            multipliers: "1.5".parse().unwrap(),
            floors: "0.2".parse().unwrap(),
            clients: "6,12".parse().unwrap(),
            runs: 3,
            ..FrontierParams::default()
        };
        let report = params.run().unwrap();
        let view = report.present();
        assert_eq!(view.records.rows.len(), 2 * (4 + 2));
        let floored = &view.records.rows[5];
        assert_eq!(
            floored[..3],
            [6_u32.into(), "floored(scale 2, multiplier 1.5, floor 0.2)".into(), "candidate".into()]
        );
        assert_eq!(
            floored[7],
            "proportional, base 12ms, multiplier 1.5, factor 0.666667, max_delay 2s".into()
        );
        assert_eq!(view.records.rows[1][7], "full, base 10ms, multiplier 2, max_delay 2s".into());
        assert_eq!(view.records.rows[0][3], Value::Null, "a reference has no family");
        let row = report.rows()[5];
        assert_eq!(floored[9], row.calls.mean.into());
        assert_eq!(floored[10], row.calls.std_error().into());
        assert_eq!(view.tables.len(), 2 + 1);
        assert_eq!(view.tables[0].rows.len(), 6);
        assert!(view.tables[0].title.as_deref().unwrap().starts_with("N = 6: mean calls"));
        assert_eq!(view.tables[2].rows.len(), 2, "a standing per candidate");
        // Each comparison says which mean it compares, in both tables.
        for table in [&view.tables[0], &view.tables[2]] {
            assert!(table.columns.iter().any(|c| c == "calls vs full"), "{:?}", table.columns);
            assert!(table.columns.iter().any(|c| c == "time vs decorrelated"), "{:?}", table.columns);
        }
        let chart = view.chart.unwrap();
        assert_eq!(chart.layout, Layout::Grid { columns: 2 });
        assert_eq!(chart.panels.len(), 2);
        let panel = &chart.panels[0];
        assert_eq!(panel.scatters.len(), 2 + 1);
        assert_eq!(panel.scatters[1].name, "floored(scale, multiplier, floor)");
        let labels: Vec<_> = panel.scatters[2].points.iter().map(|p| p.label.clone().unwrap()).collect();
        assert_eq!(labels, ["equal", "full", "decorrelated", "smooth"]);
        assert_eq!(panel.bands.len(), 1, "the target");
        assert!(!panel.lines[0].points.is_empty(), "the front");
        assert_eq!(view.notes, report.paragraphs());
    }
}
