//! The report as one JSON object, for programs. Durations are milliseconds
//! as numbers (`843.5`), exact to the nanosecond.

use std::time::Duration;

use serde::Serialize;

use crate::schedule::report::{Median, ScheduleReport};

/// The JSON object. Parameters a strategy does not read are `null`
/// (`factor`), as are missing limits (`max_attempts`, `deadline_ms`).
#[derive(Debug, Serialize)]
struct Report {
    strategy: &'static str,
    preset: Option<&'static str>,
    base_ms: f64,
    multiplier: f64,
    max_delay_ms: f64,
    /// The largest delay the schedule can produce (above `max_delay` only in
    /// `cap_mode` interval).
    delay_ceiling_ms: f64,
    factor: Option<f64>,
    cap_mode: &'static str,
    granularity_ms: Option<f64>,
    max_attempts: Option<u32>,
    deadline_ms: Option<f64>,
    /// `max_attempts - 1`, or `null` with no attempt limit.
    total_retries: Option<u32>,
    retries_shown: usize,
    worst_case_total_ms: f64,
    /// `false` when `worst_case_total_ms` is an upper bound.
    worst_case_exact: bool,
    /// The retries the worst case covers.
    worst_case_retries: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    sampling: Option<Sampling>,
    retries: Vec<Retry>,
    /// One array per sampled sequence, of its delays in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    samples: Option<Vec<Vec<f64>>>,
}

/// How the samples were drawn.
#[derive(Debug, Serialize)]
struct Sampling {
    sequences: usize,
    seed: u64,
    /// `false` when the seed came from OS entropy.
    seed_given: bool,
}

/// One retry's row.
#[derive(Debug, Serialize)]
struct Retry {
    retry: u32,
    interval_ms: f64,
    min_ms: f64,
    median_ms: Option<f64>,
    median_estimated: bool,
    max_ms: f64,
    #[serde(flatten)]
    sampled: Option<Sampled>,
}

/// One retry's sampled statistics.
#[derive(Debug, Serialize)]
struct Sampled {
    p50_ms: f64,
    p90_ms: f64,
    p99_ms: f64,
    mean_ms: f64,
}

/// Milliseconds, computed from whole nanoseconds so that `843.5ms` is `843.5`.
fn ms(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

/// The report as pretty-printed JSON, ending in a newline.
///
/// # Errors
/// If serialization fails, which these plain types do not.
pub fn render(report: &ScheduleReport) -> anyhow::Result<String> {
    let b = &report.backoff;
    let json = Report {
        strategy: b.strategy().name(),
        preset: report.preset.map(|p| p.name()),
        base_ms: ms(b.base()),
        multiplier: b.multiplier(),
        max_delay_ms: ms(b.max_delay()),
        delay_ceiling_ms: ms(b.delay_ceiling()),
        factor: b.strategy().uses_factor().then(|| b.factor()),
        cap_mode: b.cap_mode().name(),
        granularity_ms: b.granularity().map(ms),
        max_attempts: b.max_attempts(),
        deadline_ms: b.deadline().map(ms),
        total_retries: report.total_retries,
        retries_shown: report.rows.len(),
        worst_case_total_ms: ms(report.worst_case.total),
        worst_case_exact: report.worst_case.exact,
        worst_case_retries: report.worst_case.retries,
        sampling: report.samples.as_ref().map(|s| Sampling {
            sequences: s.count(),
            seed: s.seed,
            seed_given: s.seed_given,
        }),
        retries: report
            .rows
            .iter()
            .map(|row| Retry {
                retry: row.retry,
                interval_ms: ms(row.interval),
                min_ms: ms(row.min),
                median_ms: row.median.value().map(ms),
                median_estimated: matches!(row.median, Median::Estimated(_)),
                max_ms: ms(row.max),
                sampled: row.sampled.map(|s| Sampled {
                    p50_ms: ms(s.p50),
                    p90_ms: ms(s.p90),
                    p99_ms: ms(s.p99),
                    mean_ms: ms(s.mean),
                }),
            })
            .collect(),
        samples: report
            .samples
            .as_ref()
            .map(|s| s.sequences().map(|seq| seq.iter().copied().map(ms).collect()).collect()),
    };
    let mut text = serde_json::to_string_pretty(&json)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::fixtures;
    use super::*;

    fn parse(report: &ScheduleReport) -> Value {
        serde_json::from_str(&render(report).unwrap()).unwrap()
    }

    #[test]
    fn google_parameters_and_rows() {
        let json = parse(&fixtures::google());
        assert_eq!(json["strategy"], "proportional");
        assert_eq!(json["preset"], "google");
        assert_eq!(json["base_ms"], 500.0);
        assert_eq!(json["multiplier"], 1.5);
        assert_eq!(json["max_delay_ms"], 60_000.0);
        assert_eq!(json["delay_ceiling_ms"], 90_000.0);
        assert_eq!(json["factor"], 0.5);
        assert_eq!(json["cap_mode"], "interval");
        assert_eq!(json["granularity_ms"], 1.0);
        assert_eq!(json["max_attempts"], Value::Null);
        assert_eq!(json["deadline_ms"], 900_000.0);
        assert_eq!(json["retries_shown"], 10);
        assert!(json.get("samples").is_none() && json.get("sampling").is_none());
        let fourth = &json["retries"][3];
        assert_eq!(fourth["retry"], 4);
        assert_eq!(fourth["interval_ms"], 1687.0);
        assert_eq!(fourth["min_ms"], 843.5);
        assert_eq!(fourth["median_ms"], 1687.0);
        assert_eq!(fourth["median_estimated"], false);
        assert_eq!(fourth["max_ms"], 2530.5);
        assert!(fourth.get("p50_ms").is_none());
    }

    #[test]
    fn samples_and_stats_when_sampling() {
        let json = parse(&fixtures::aws_sampled());
        assert_eq!(json["factor"], Value::Null, "full jitter reads no factor");
        assert_eq!(json["sampling"]["sequences"], 3);
        assert_eq!(json["sampling"]["seed"], 1);
        let samples = json["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 3);
        assert!(samples.iter().all(|s| s.as_array().unwrap().len() == 2));
        for retry in json["retries"].as_array().unwrap() {
            for key in ["p50_ms", "p90_ms", "p99_ms", "mean_ms"] {
                assert!(retry[key].as_f64().unwrap() <= retry["max_ms"].as_f64().unwrap(), "{key}");
            }
        }
    }

    #[test]
    fn estimated_medians_are_flagged() {
        let json = parse(&fixtures::decorrelated());
        assert!(json["retries"].as_array().unwrap().iter().all(|r| r["median_estimated"] == true));
    }
}
