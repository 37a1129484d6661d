//! `OverloadResults`: what an overload run measured, as plain data that the
//! exporters, the chart and the reading share.
//!
//! The contention scenario's [`SimulationReport`](crate::simulate::report::SimulationReport)
//! (points on an x axis, one series per strategy, a summary per measure)
//! does not fit: here a policy is a row of different figures (goodput,
//! recovery, amplification in three windows), and the x axis of the chart
//! is seconds. The simulator's own row cannot be built outside it, so the
//! figures are copied into types that tests can build.

use std::time::Duration;

use staggered_sim::{OverloadPolicy, OverloadReport, OverloadRow, Trigger};

use super::configure::OverloadSetup;
use crate::duration;
use crate::simulate::config::show;

/// The results of one overload run, ready to export.
#[derive(Debug, Clone, PartialEq)]
pub struct OverloadResults {
    /// The experiment's parameters, as (name, value) lines for the table's
    /// and Markdown's header.
    pub parameters: Vec<(&'static str, String)>,
    /// What the reading and the chart need of the configuration.
    pub facts: Facts,
    /// One row per policy, in the order given.
    pub rows: Vec<PolicyResult>,
    /// Sentences that read the results, printed under the table.
    pub reading: Vec<String>,
}

/// The configuration, as far as the reading and the chart read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts {
    /// The simulated time during which operations start.
    pub duration: Duration,
    /// Operations started per second.
    pub arrival_rate: f64,
    /// The server's capacity in requests per second, outside the trigger.
    pub capacity: f64,
    /// The capacity drop, if any.
    pub trigger: Option<Trigger>,
    /// The retrying policies' max_attempts.
    pub attempts: u32,
    /// The share of the offered load that goodput must hold to recover.
    pub recovery_threshold: f64,
    /// How long goodput must hold it.
    pub recovery_window: Duration,
}

/// What one policy's run measured (see `staggered_sim::OverloadRow` for the
/// exact definitions).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyResult {
    /// The policy.
    pub policy: OverloadPolicy,
    /// The fraction of operations (first attempts) that succeeded.
    pub goodput: f64,
    /// Whether goodput recovered.
    pub recovered: bool,
    /// The time from the trigger's end (from 0 without one) until goodput
    /// held the threshold for the window; `None` is "never".
    pub recovery_time: Option<Duration>,
    /// Attempts reaching the server / first attempts during the trigger.
    pub amplification_trigger: Option<f64>,
    /// The same from the trigger's end to the end of the run.
    pub amplification_after: Option<f64>,
    /// The same from the budget's first refusal until recovery.
    pub amplification_drained: Option<f64>,
    /// The worst single second of that interval.
    pub peak_amplification_drained: Option<f64>,
    /// The same over the whole run.
    pub amplification: f64,
    /// When the budget first refused a retry, since the run began.
    pub drained_at: Option<Duration>,
    /// Operations started.
    pub operations: u64,
    /// Attempts that reached the server, first ones included.
    pub attempts: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Attempts whose client timed out before the response.
    pub timed_out: u64,
    /// Retries the budget refused.
    pub refused: u64,
    /// The per-second series of the chart.
    pub series: Series,
}

/// One policy's load, second by second: bucket `i` is `[i s, i+1 s)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Series {
    /// First attempts sent.
    pub offered: Vec<u32>,
    /// Attempts that reached the server.
    pub arrivals: Vec<u32>,
    /// Operations that succeeded.
    pub goodput: Vec<u32>,
}

impl PolicyResult {
    /// The simulator's row, copied.
    pub fn of(row: &OverloadRow) -> Self {
        PolicyResult {
            policy: row.policy,
            goodput: row.goodput,
            recovered: row.recovered,
            recovery_time: row.recovery_time,
            amplification_trigger: row.amplification_trigger,
            amplification_after: row.amplification_after,
            amplification_drained: row.amplification_drained,
            peak_amplification_drained: row.peak_amplification_drained,
            amplification: row.amplification,
            drained_at: row.drained_at,
            operations: row.operations,
            attempts: row.attempts,
            succeeded: row.succeeded,
            timed_out: row.timed_out,
            refused: row.refused,
            series: Series {
                offered: row.series.offered.clone(),
                arrivals: row.series.arrivals.clone(),
                goodput: row.series.goodput.clone(),
            },
        }
    }
}

impl OverloadResults {
    /// The simulator's report, with the parameters and the reading.
    pub fn of(setup: &OverloadSetup, report: &OverloadReport) -> Self {
        let config = report.config();
        let facts = Facts {
            duration: config.duration(),
            arrival_rate: config.arrival_rate(),
            capacity: config.service_rate(),
            trigger: config.trigger(),
            attempts: config.backoff().max_attempts().unwrap_or(1),
            recovery_threshold: config.recovery_threshold(),
            recovery_window: config.recovery_window(),
        };
        let rows: Vec<PolicyResult> = report.rows().iter().map(PolicyResult::of).collect();
        let reading = super::reading::reading(&facts, &rows);
        OverloadResults { parameters: parameters(setup), facts, rows, reading }
    }
}

/// `f` as a percentage, as a person writes it: `1%`, `0.25%`, `95%` (the
/// float noise of `100 * f` rounded away).
pub fn percent(f: f64) -> String {
    format!("{}%", show((100.0 * f * 1e9).round() / 1e9))
}

/// The experiment's parameters, as the header of the table: one line per
/// budget among the policies.
fn parameters(setup: &OverloadSetup) -> Vec<(&'static str, String)> {
    let config = &setup.config;
    let names: Vec<&str> = config.policies().iter().map(|p| p.name()).collect();
    let trigger = match config.trigger() {
        Some(t) => format!(
            "capacity {}x ({}/s) from {} to {}",
            show(t.capacity()),
            show(t.capacity() * config.service_rate()),
            duration::format(t.start()),
            duration::format(t.end())
        ),
        None => "none".to_owned(),
    };
    let backoff = config.backoff();
    let mut lines = vec![
        ("scenario", "overload (SPEC section 7): clients retry while the server loses capacity".to_owned()),
        ("policies", names.join(", ")),
        (
            "load",
            format!(
                "{} operations/s (Poisson) for {}, seed {}; each attempt times out after {}",
                show(config.arrival_rate()),
                duration::format(config.duration()),
                config.seed(),
                duration::format(config.timeout())
            ),
        ),
        (
            "server",
            format!(
                "capacity {}/s (one worker, FIFO, exponential service times); errors {}",
                show(config.service_rate()),
                percent(config.error_rate())
            ),
        ),
        ("trigger", trigger),
        (
            "backoff",
            format!(
                "strategy {}, base {}, cap (max_delay) {}, max_attempts {}",
                backoff.strategy(),
                duration::format(backoff.base()),
                duration::format(backoff.max_delay()),
                backoff.max_attempts().unwrap_or(1)
            ),
        ),
    ];
    let has = |policy| config.policies().contains(&policy);
    if has(OverloadPolicy::TokenBucket) {
        let b = setup.token_bucket;
        lines.push((
            "token bucket",
            format!(
                "{} tokens; a retry costs {} ({} after a timeout); a first-try success refunds {}",
                b.capacity, b.retry_cost, b.timeout_cost, b.success_refund
            ),
        ));
    }
    if has(OverloadPolicy::Ratio) {
        let r = setup.ratio_budget;
        lines.push((
            "ratio budget",
            format!(
                "retries up to {} of requests + {}/s, over {}",
                percent(r.retry_percent),
                r.min_per_sec,
                duration::format(r.ttl)
            ),
        ));
    }
    if has(OverloadPolicy::Throttle) {
        let (max_tokens, token_ratio) = config.retry_throttle();
        lines.push((
            "retry throttle",
            format!("{max_tokens} tokens, token_ratio {}; no retry at or below half", show(token_ratio)),
        ));
    }
    lines.push((
        "recovery",
        format!(
            "goodput >= {} of the offered load in every second of {}, from the trigger's end",
            percent(config.recovery_threshold()),
            duration::format(config.recovery_window())
        ),
    ));
    lines
}

/// Results shared by the exporters', the reading's and the chart's tests:
/// the default run's figures, rounded, over a 20 s run.
#[cfg(test)]
pub mod fixtures {
    use super::*;

    /// A policy's row with these figures and flat series.
    #[allow(clippy::too_many_arguments)]
    pub fn row(
        policy: OverloadPolicy,
        goodput: f64,
        recovery: Option<u64>,
        trigger: f64,
        after: f64,
        drained: Option<(f64, f64)>,
        refused: u64,
    ) -> PolicyResult {
        let offered = vec![700; 20];
        let arrivals = offered.iter().map(|&n| (f64::from(n) * after) as u32).collect();
        let goodput_series = offered.iter().map(|&n| (f64::from(n) * goodput) as u32).collect();
        PolicyResult {
            policy,
            goodput,
            recovered: recovery.is_some(),
            recovery_time: recovery.map(Duration::from_secs),
            amplification_trigger: Some(trigger),
            amplification_after: Some(after),
            amplification_drained: drained.map(|d| d.0),
            peak_amplification_drained: drained.map(|d| d.1),
            amplification: (trigger + after) / 2.0,
            drained_at: drained.map(|_| Duration::from_millis(10_400)),
            operations: 14_000,
            attempts: (14_000.0 * (trigger + after) / 2.0) as u64,
            succeeded: (14_000.0 * goodput) as u64,
            timed_out: 100,
            refused,
            series: Series { offered, arrivals, goodput: goodput_series },
        }
    }

    /// Every policy, as the default run reads.
    pub fn results() -> OverloadResults {
        let facts = Facts {
            duration: Duration::from_secs(20),
            arrival_rate: 700.0,
            capacity: 1000.0,
            trigger: Some(Trigger::new(Duration::from_secs(5), Duration::from_secs(10), 0.5)),
            attempts: 3,
            recovery_threshold: 0.95,
            recovery_window: Duration::from_secs(5),
        };
        let rows = vec![
            row(OverloadPolicy::NoRetry, 0.8633, Some(4), 1.0, 1.0, None, 0),
            row(OverloadPolicy::Retry, 0.1686, None, 2.808, 3.0, None, 0),
            row(OverloadPolicy::TokenBucket, 0.8622, Some(4), 1.014, 1.0, Some((1.0, 1.0)), 5798),
            row(OverloadPolicy::Ratio, 0.7010, Some(14), 1.418, 1.048, Some((1.127, 2.213)), 11311),
            row(OverloadPolicy::Throttle, 0.8633, Some(4), 1.001, 1.0, Some((1.0, 1.0)), 5754),
        ];
        OverloadResults {
            parameters: vec![("scenario", "test".to_owned()), ("seed", "1".to_owned())],
            facts,
            reading: vec!["retry never recovered.".to_owned()],
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_drop_trailing_zeros() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.01), "1%");
        assert_eq!(percent(0.07), "7%");
        assert_eq!(percent(0.0025), "0.25%");
        assert_eq!(percent(0.00001), "0.001%");
        assert_eq!(percent(0.95), "95%");
    }
}
