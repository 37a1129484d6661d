//! A [`ScheduleReport`] in the common report shape: the schedule's
//! parameters, the table of retries and the notes under it for people; the
//! sampled delays as records (CSV); and a JSON document of the parameters,
//! the retries and the samples, durations in milliseconds exact to the
//! nanosecond (`843.5`).

use std::time::Duration;

use staggered::config::format_duration;
use staggered::{CapMode, Strategy};

use super::{Median, ScheduleReport, ESTIMATE_SEQUENCES, MAX_SHOWN_RETRIES, UNLIMITED_SHOWN_RETRIES};
use crate::view::{self, format_rounded, millis, number, Table, Value};
use crate::Present;

/// The marker of an estimated median.
pub const ESTIMATE_MARK: &str = "≈";

impl Present for ScheduleReport {
    /// The records are the sampled delays (`sample,retry,delay_ms`), and
    /// JSON a document of the parameters, the retries and the samples.
    fn present(&self) -> view::Report {
        present(self)
    }
}

/// [`ScheduleReport::present`].
fn present(report: &ScheduleReport) -> view::Report {
    let mut records = Table::new(None, ["sample", "retry", "delay_ms"]);
    for (sample, delays) in report.samples.iter().flat_map(|s| s.sequences()).enumerate() {
        for (retry, &delay) in delays.iter().enumerate() {
            records.push([(sample + 1).into(), (retry + 1).into(), millis(delay).into()]);
        }
    }
    view::Report {
        parameters: parameters(report),
        tables: vec![table(report)],
        notes: notes(report),
        records,
        document: Some(document(report)),
        chart: super::chart::chart(std::slice::from_ref(report)),
    }
}

/// The schedule's parameters as (name, value) lines.
fn parameters(report: &ScheduleReport) -> Vec<(String, String)> {
    let b = &report.backoff;
    let strategy = b.strategy();
    let mut lines = Vec::new();
    let preset = report.preset.map(|p| format!(" (preset {p})")).unwrap_or_default();
    lines.push(("strategy", format!("{strategy}{preset}")));
    lines.push(("base", format_duration(b.base())));
    let unused = if strategy.uses_multiplier() { String::new() } else { format!(" (unused by {strategy})") };
    lines.push(("multiplier", format!("{}{unused}", number(b.multiplier()))));
    let ceiling = b.delay_ceiling();
    let reach = if ceiling > b.max_delay() {
        format!(" (caps the interval: a delay can reach {})", format_duration(ceiling))
    } else {
        String::new()
    };
    lines.push(("max_delay", format!("{}{reach}", format_duration(b.max_delay()))));
    if strategy.uses_factor() {
        lines.push(("factor", number(b.factor())));
    }
    let mode = match b.cap_mode() {
        CapMode::Interval => "the cap applies to the interval, before randomizing",
        _ => "no delay exceeds max_delay",
    };
    lines.push(("cap mode", format!("{} ({mode})", b.cap_mode())));
    if let Some(step) = b.granularity() {
        lines.push(("granularity", format!("intervals truncated to whole {}", format_duration(step))));
    }
    let attempts = match b.max_attempts() {
        Some(n) => format!("{n} ({} retries)", n - 1),
        None => format!(
            "no limit (showing the first {UNLIMITED_SHOWN_RETRIES} retries; --attempts N sets a limit)"
        ),
    };
    lines.push(("max_attempts", attempts));
    lines.push(("deadline", b.deadline().map_or_else(|| "none".to_owned(), format_duration)));
    if let Some(samples) = &report.samples {
        let origin = if samples.seed_given {
            String::new()
        } else {
            format!(" (from OS entropy; --seed {} repeats it)", samples.seed)
        };
        lines.push(("samples", format!("{} sequences, seed {}{origin}", samples.count(), samples.seed)));
    }
    lines.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
}

/// One row per retry: interval, min, median, max, and the sampled statistics
/// when there are samples.
fn table(report: &ScheduleReport) -> Table {
    let mut columns = vec!["retry", "interval", "min", "median", "max"];
    if report.samples.is_some() {
        columns.extend(["p50", "p90", "p99", "mean"]);
    }
    let mut table = Table::new(None, columns);
    let show = |d| Value::from(format_rounded(d));
    for row in &report.rows {
        let median = match row.median {
            Median::Exact(d) => show(d),
            Median::Estimated(d) => format!("{ESTIMATE_MARK}{}", format_rounded(d)).into(),
            Median::Unknown => "?".into(),
        };
        let mut cells = vec![row.retry.into(), show(row.interval), show(row.min), median, show(row.max)];
        if let Some(stats) = row.sampled {
            cells.extend([stats.p50, stats.p90, stats.p99, stats.mean].map(show));
        }
        table.push(cells);
    }
    table
}

/// The lines under the table: the worst-case total, then what the marks and
/// columns mean.
fn notes(report: &ScheduleReport) -> Vec<String> {
    let b = &report.backoff;
    let mut notes = Vec::new();
    if report.rows.is_empty() {
        notes.push("max_attempts 1: a single call, no retry.".to_owned());
    }
    if report.is_truncated() {
        let total = report.total_retries.unwrap_or_default();
        notes.push(format!(
            "Showing the first {} of {total} retries (at most {MAX_SHOWN_RETRIES} are shown).",
            report.rows.len()
        ));
    }
    let worst = report.worst_case;
    let total = format_rounded(worst.total);
    if worst.retries == 0 {
        return notes;
    }
    notes.push(match (report.total_retries, worst.exact) {
        (None, _) => {
            let end = match b.deadline() {
                Some(deadline) => format!("the deadline ({}) ends it", format_duration(deadline)),
                None => "with no deadline either, it retries forever".to_owned(),
            };
            format!(
                "Worst-case total wait over the {} retries shown: {total}. The schedule has no attempt limit: {end}.",
                worst.retries
            )
        }
        (Some(_), exact) => {
            let sum = if exact {
                format!("{total} (the largest delay of each of the {} retries)", worst.retries)
            } else {
                format!(
                    "at most {total} over all {} retries (the largest possible delay for each retry past the first million)",
                    worst.retries
                )
            };
            let deadline = match b.deadline() {
                Some(deadline) if worst.total > deadline => {
                    format!("; the deadline ({}) stops retrying before that", format_duration(deadline))
                }
                _ => String::new(),
            };
            format!("Worst-case total wait: {sum}{deadline}.")
        }
    });
    if report.has_estimates() {
        let which = if b.strategy() == Strategy::Smooth { " after retry 1" } else { "" };
        notes.push(format!(
            "{ESTIMATE_MARK} median estimated from {ESTIMATE_SEQUENCES} sequences drawn with a fixed seed: \
             {} has no closed-form median{which}.",
            b.strategy()
        ));
    }
    if let Some(samples) = &report.samples {
        notes.push(format!(
            "p50, p90, p99 (nearest rank) and mean: over {} sampled sequences, seed {}.",
            samples.count(),
            samples.seed
        ));
    }
    notes.push(
        "Retry r is the wait after attempt r fails, before attempt r+1; interval is x(r), and min, median \
         and max give the range of the delay."
            .to_owned(),
    );
    notes
}

/// Milliseconds, computed from whole nanoseconds so that `843.5ms` is `843.5`.
fn ms(d: Duration) -> Value {
    Value::Float(d.as_nanos() as f64 / 1e6)
}

/// The JSON document: the parameters (`null` for one the strategy does not
/// read, such as `factor`, and for a missing limit), the worst case, the
/// sampling, a row per retry, and the samples, one array per sequence.
fn document(report: &ScheduleReport) -> Value {
    let b = &report.backoff;
    let key = |key: &str, value: Value| (key.to_owned(), value);
    let mut doc = vec![
        key("strategy", b.strategy().name().into()),
        key("preset", report.preset.map(|p| p.name()).into()),
        key("base_ms", ms(b.base())),
        key("multiplier", b.multiplier().into()),
        key("max_delay_ms", ms(b.max_delay())),
        // The largest delay the schedule can produce (above max_delay only
        // in cap_mode interval).
        key("delay_ceiling_ms", ms(b.delay_ceiling())),
        key("factor", b.strategy().uses_factor().then(|| b.factor()).into()),
        key("cap_mode", b.cap_mode().name().into()),
        key("granularity_ms", b.granularity().map_or(Value::Null, ms)),
        key("max_attempts", b.max_attempts().into()),
        key("deadline_ms", b.deadline().map_or(Value::Null, ms)),
        key("total_retries", report.total_retries.into()),
        key("retries_shown", report.rows.len().into()),
        key("worst_case_total_ms", ms(report.worst_case.total)),
        key("worst_case_exact", report.worst_case.exact.into()),
        key("worst_case_retries", report.worst_case.retries.into()),
    ];
    if let Some(s) = &report.samples {
        let sampling = vec![
            key("sequences", s.count().into()),
            key("seed", s.seed.into()),
            key("seed_given", s.seed_given.into()),
        ];
        doc.push(key("sampling", Value::Map(sampling)));
    }
    let retries = report.rows.iter().map(|row| {
        let mut retry = vec![
            key("retry", row.retry.into()),
            key("interval_ms", ms(row.interval)),
            key("min_ms", ms(row.min)),
            key("median_ms", row.median.value().map_or(Value::Null, ms)),
            key("median_estimated", matches!(row.median, Median::Estimated(_)).into()),
            key("max_ms", ms(row.max)),
        ];
        if let Some(s) = row.sampled {
            let stats = [("p50_ms", s.p50), ("p90_ms", s.p90), ("p99_ms", s.p99), ("mean_ms", s.mean)];
            retry.extend(stats.map(|(name, d)| key(name, ms(d))));
        }
        Value::Map(retry)
    });
    doc.push(key("retries", Value::List(retries.collect())));
    if let Some(s) = &report.samples {
        let sequences = s.sequences().map(|seq| Value::List(seq.iter().copied().map(ms).collect()));
        doc.push(key("samples", Value::List(sequences.collect())));
    }
    Value::Map(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScheduleQuery;
    use serde_json::Value as Json;
    use staggered::{Backoff, Preset};

    fn report(preset: Option<Preset>, backoff: Backoff, sequences: Option<u32>) -> view::Report {
        let query = ScheduleQuery::new(backoff).with_preset(preset);
        let query = match sequences {
            Some(sequences) => query.with_sampling(sequences, Some(1)).unwrap(),
            None => query,
        };
        query.report(0).present()
    }

    /// The `google` preset's first 10 retries.
    fn google() -> view::Report {
        report(Some(Preset::Google), Preset::Google.backoff(), None)
    }

    /// `aws` (full jitter, 1s, 2 retries) with 3 sampled sequences.
    fn aws_sampled() -> view::Report {
        report(Some(Preset::Aws), Preset::Aws.backoff(), Some(3))
    }

    fn decorrelated() -> view::Report {
        let backoff = Backoff::builder(Strategy::Decorrelated)
            .with_base(Duration::from_millis(100))
            .with_max_attempts(3)
            .build()
            .expect("valid");
        report(None, backoff, None)
    }

    /// The parameter named `name`.
    fn parameter<'a>(view: &'a view::Report, name: &str) -> &'a str {
        &view.parameters.iter().find(|(n, _)| n == name).expect("a parameter").1
    }

    fn cells(table: &Table, row: usize) -> Vec<String> {
        table.rows[row].iter().map(Value::to_string).collect()
    }

    #[test]
    fn google_rows_and_parameters() {
        let view = google();
        let table = &view.tables[0];
        assert_eq!(table.rows.len(), 10);
        assert_eq!(cells(table, 0), ["1", "500ms", "250ms", "500ms", "750ms"]);
        // Four significant digits, every column alike (the records keep
        // 2.5305s, 12.807s and 19.2105s).
        assert_eq!(cells(table, 3), ["4", "1.687s", "843.5ms", "1.687s", "2.531s"]);
        assert_eq!(cells(table, 8), ["9", "12.81s", "6.404s", "12.81s", "19.21s"]);
        assert_eq!(parameter(&view, "strategy"), "proportional (preset google)");
        assert_eq!(parameter(&view, "max_delay"), "1m (caps the interval: a delay can reach 1m30s)");
        assert_eq!(parameter(&view, "deadline"), "15m");
        assert!(
            view.notes[0].starts_with("Worst-case total wait over the 10 retries shown: "),
            "{:?}",
            view.notes
        );
        assert!(!view.notes.iter().any(|note| note.contains('≈')));
        assert!(view.records.rows.is_empty(), "no samples, no records");
    }

    #[test]
    fn samples_add_columns_records_and_a_note() {
        let view = aws_sampled();
        assert_eq!(view.tables[0].columns.len(), 9);
        assert_eq!(view.records.rows.len(), 3 * 2);
        assert_eq!(cells(&view.records, 5)[..2], ["3", "2"]);
        assert!(view
            .notes
            .iter()
            .any(|n| n == "p50, p90, p99 (nearest rank) and mean: over 3 sampled sequences, seed 1."));
        assert!(view
            .notes
            .contains(&"Worst-case total wait: 3s (the largest delay of each of the 2 retries).".into()));
    }

    #[test]
    fn estimated_medians_are_marked_and_explained() {
        let view = decorrelated();
        assert!(view.tables[0].rows.iter().all(|row| row[3].to_string().starts_with('≈')));
        assert!(view.notes.iter().any(|n| n.starts_with("≈ median estimated from 10001 sequences")));
        assert_eq!(parameter(&view, "multiplier"), "2 (unused by decorrelated)");
    }

    #[test]
    fn a_huge_multiplier_is_written_as_a_number_to_read() {
        let backoff = Backoff::builder(Strategy::Exponential).with_multiplier(1e308).build().unwrap();
        assert_eq!(parameter(&report(None, backoff, None), "multiplier"), "1e308");
    }

    #[test]
    fn json_is_the_document() {
        let parse = |view: &view::Report| -> Json { serde_json::to_value(view.json()).unwrap() };
        let json = parse(&google());
        assert_eq!(
            (json["strategy"].clone(), json["preset"].clone()),
            ("proportional".into(), "google".into())
        );
        assert_eq!(
            (json["base_ms"].clone(), json["delay_ceiling_ms"].clone()),
            (500.0.into(), 90_000.0.into())
        );
        assert_eq!(
            (json["max_attempts"].clone(), json["deadline_ms"].clone()),
            (Json::Null, 900_000.0.into())
        );
        assert!(json.get("samples").is_none() && json.get("sampling").is_none());
        let fourth = &json["retries"][3];
        assert_eq!((fourth["min_ms"].clone(), fourth["max_ms"].clone()), (843.5.into(), 2530.5.into()));
        assert!(fourth.get("p50_ms").is_none());
        let json = parse(&aws_sampled());
        assert_eq!(json["factor"], Json::Null, "full jitter reads no factor");
        assert_eq!(json["sampling"]["sequences"], 3);
        assert_eq!(json["samples"].as_array().unwrap().len(), 3);
        assert!(
            json["retries"][1]["p99_ms"].as_f64().unwrap() <= json["retries"][1]["max_ms"].as_f64().unwrap()
        );
        let json = parse(&decorrelated());
        assert!(json["retries"].as_array().unwrap().iter().all(|r| r["median_estimated"] == true));
    }
}
