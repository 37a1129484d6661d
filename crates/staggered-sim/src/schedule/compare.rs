//! [`ScheduleComparison`]: several strategies with the same parameters, in
//! one report: the shared parameters once, a block (a titled table) per
//! strategy, the notes that differ prefixed by their strategy, every
//! strategy's samples as records, and one chart.
//!
//! A comparison of one strategy is exactly that strategy's report, so a
//! single schedule prints the same bytes either way.

use staggered::Strategy;

use super::{chart, ScheduleReport};
use crate::view::{self, format_duration, list, number, Table, Value};
use crate::Present;

/// The reports on several strategies that share every other parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleComparison {
    reports: Vec<ScheduleReport>,
}

impl ScheduleComparison {
    /// A comparison of `reports`, in the order given.
    pub fn new(reports: Vec<ScheduleReport>) -> Self {
        ScheduleComparison { reports }
    }

    /// The reports, in order.
    pub fn reports(&self) -> &[ScheduleReport] {
        &self.reports
    }
}

impl Present for ScheduleComparison {
    /// One strategy: its own report. Several: the shared parameters, a table
    /// per strategy titled with its name, the notes, records
    /// `strategy,sample,retry,delay_ms`, and JSON a list of the strategies'
    /// documents.
    fn present(&self) -> view::Report {
        match &self.reports[..] {
            [] => view::Report::default(),
            [one] => one.present(),
            several => present(several),
        }
    }
}

/// [`ScheduleComparison::present`] for several reports.
fn present(reports: &[ScheduleReport]) -> view::Report {
    let views: Vec<view::Report> = reports.iter().map(Present::present).collect();
    let names: Vec<&str> = reports.iter().map(|r| r.backoff.strategy().name()).collect();
    let tables = views
        .iter()
        .zip(&names)
        .map(|(view, name)| Table { title: Some((*name).to_owned()), ..view.tables[0].clone() });
    let mut records =
        Table::new(None, std::iter::once("strategy".to_owned()).chain(views[0].records.columns.clone()));
    for (view, name) in views.iter().zip(&names) {
        for row in &view.records.rows {
            records.push(std::iter::once(Value::from(*name)).chain(row.iter().cloned()));
        }
    }
    view::Report {
        parameters: parameters(reports, &views),
        tables: tables.collect(),
        notes: notes(&views, &names),
        records,
        document: Some(Value::List(views.iter().filter_map(|view| view.document.clone()).collect())),
        chart: chart::chart(reports),
    }
}

/// The parameters once: the strategies, then each line that every report
/// writes alike, and for the lines that depend on the strategy (multiplier,
/// max_delay's reach, factor) what each strategy reads.
fn parameters(reports: &[ScheduleReport], views: &[view::Report]) -> Vec<(String, String)> {
    let first = &reports[0];
    let strategies: Vec<Strategy> = reports.iter().map(|r| r.backoff.strategy()).collect();
    let names = |pick: &dyn Fn(Strategy) -> bool| {
        list(strategies.iter().filter(|s| pick(**s)).map(|s| s.name()).collect::<Vec<_>>())
    };
    let mut lines = Vec::new();
    let preset = first.preset.map(|p| format!(" (preset {p})")).unwrap_or_default();
    lines.push(("strategies".to_owned(), format!("{}{preset}", list(strategies.iter().map(|s| s.name())))));
    for (name, value) in &views[0].parameters {
        let value = match name.as_str() {
            "strategy" | "factor" => continue,
            "multiplier" => {
                let unused = names(&|s| !s.uses_multiplier());
                let multiplier = number(first.backoff.multiplier());
                if unused.is_empty() {
                    multiplier
                } else {
                    format!("{multiplier} (unused by {unused})")
                }
            }
            "max_delay" => {
                let reach: Vec<String> = reports
                    .iter()
                    .filter(|r| r.backoff.delay_ceiling() > r.backoff.max_delay())
                    .map(|r| {
                        format!(
                            "{} with {}",
                            format_duration(r.backoff.delay_ceiling()),
                            r.backoff.strategy()
                        )
                    })
                    .collect();
                let cap = format_duration(first.backoff.max_delay());
                if reach.is_empty() {
                    cap
                } else {
                    format!(
                        "{cap} (caps the interval: a delay can reach {})",
                        list(reach.iter().map(String::as_str))
                    )
                }
            }
            _ if views.iter().all(|v| v.parameters.iter().any(|(n, v)| n == name && v == value)) => {
                value.clone()
            }
            _ => continue,
        };
        lines.push((name.clone(), value));
    }
    // The factor: only the strategies that read it do, each with its own
    // default, so it comes after max_delay, per strategy when they differ.
    let factors: Vec<(Strategy, f64)> = reports
        .iter()
        .filter(|r| r.backoff.strategy().uses_factor())
        .map(|r| (r.backoff.strategy(), r.backoff.factor()))
        .collect();
    if let Some(&(_, factor)) = factors.first() {
        let value = if factors.iter().all(|&(_, f)| f == factor) {
            format!("{} ({} only)", number(factor), list(factors.iter().map(|(s, _)| s.name())))
        } else {
            factors.iter().map(|(s, f)| format!("{} for {s}", number(*f))).collect::<Vec<_>>().join(", ")
        };
        let at = lines.iter().position(|(name, _)| name == "max_delay").map_or(lines.len(), |i| i + 1);
        lines.insert(at, ("factor".to_owned(), value));
    }
    lines
}

/// The notes every report writes alike, once, after those that differ,
/// each of which is prefixed with its strategy.
fn notes(views: &[view::Report], names: &[&str]) -> Vec<String> {
    let shared = |note: &String| views.iter().all(|v| v.notes.contains(note));
    let mut notes: Vec<String> = views
        .iter()
        .zip(names)
        .flat_map(|(view, name)| {
            view.notes.iter().filter(|n| !shared(n)).map(move |n| format!("{name}: {n}"))
        })
        .collect();
    notes.extend(views[0].notes.iter().filter(|n| shared(n)).cloned());
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScheduleQuery;
    use staggered::Preset;

    fn comparison(strategies: &[Strategy], samples: bool) -> ScheduleComparison {
        let reports = strategies.iter().map(|&s| {
            let query = ScheduleQuery::new(Preset::Aws.builder().with_strategy(s).build().unwrap())
                .with_preset(Some(Preset::Aws));
            let query = if samples { query.with_sampling(2, Some(5)).unwrap() } else { query };
            query.report(0)
        });
        ScheduleComparison::new(reports.collect())
    }

    #[test]
    fn one_strategy_is_its_own_report() {
        let comparison = comparison(&[Strategy::Full], true);
        assert_eq!(comparison.present(), comparison.reports()[0].present());
    }

    #[test]
    fn several_strategies_share_parameters_and_get_a_block_each() {
        let view =
            comparison(&[Strategy::Full, Strategy::Decorrelated, Strategy::Proportional], true).present();
        let parameter = |name: &str| &view.parameters.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(parameter("strategies"), "full, decorrelated and proportional (preset aws)");
        assert_eq!(parameter("multiplier"), "2 (unused by decorrelated)");
        assert_eq!(parameter("factor"), "0.5 (proportional only)");
        assert_eq!(parameter("max_delay"), "20s");
        assert_eq!(parameter("samples"), "2 sequences, seed 5");
        let titles: Vec<&str> = view.tables.iter().filter_map(|t| t.title.as_deref()).collect();
        assert_eq!(titles, ["full", "decorrelated", "proportional"]);
        assert!(view.notes[0].starts_with("full: Worst-case total wait: "), "{:?}", view.notes);
        assert!(view.notes.iter().any(|n| n.starts_with("decorrelated: ≈ median estimated")));
        assert!(view.notes.last().unwrap().starts_with("Retry r is the wait"), "shared notes once, last");
        assert_eq!(view.records.columns, ["strategy", "sample", "retry", "delay_ms"]);
        assert_eq!(view.records.rows.len(), 3 * 2 * 2);
        assert_eq!(view.records.rows[4][0], Value::from("decorrelated"));
        let Some(Value::List(documents)) = &view.document else { panic!("a list of documents") };
        assert_eq!(documents.len(), 3);
        assert_eq!(view.chart.as_ref().unwrap().panels[0].bands.len(), 3);
    }

    #[test]
    fn factors_that_differ_are_given_per_strategy() {
        let view = comparison(&[Strategy::Proportional, Strategy::Additive], false).present();
        let factor = &view.parameters.iter().find(|(n, _)| n == "factor").unwrap().1;
        assert_eq!(factor, "0.5 for proportional, 0.3 for additive");
    }
}
