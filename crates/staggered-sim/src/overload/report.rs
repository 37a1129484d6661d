//! What an overload experiment measured: one row per policy, each with its
//! per-second series.

use std::time::Duration;

use serde::Serialize;

use staggered::Backoff;

use super::model::Counts;
use super::OverloadParams;
use crate::fleet::{Policy, Series};
use crate::plain;
use crate::units::{elapsed, SECOND};

/// What one policy's run measured. The first six fields of the records
/// (`policy`, `recovered`, `recovery_time`, `amplification_trigger`,
/// `amplification_after`, `goodput`) say whether and how fast the policy
/// recovered; the rest say how.
///
/// Load amplification over a window is attempts that reached the server in
/// it divided by first attempts sent in it: 1 without retries, up to
/// `max_attempts` when every attempt fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct OverloadRow {
    /// The policy.
    pub policy: Policy,
    /// Operations started: first attempts sent in `[0, duration)`.
    pub operations: u64,
    /// Attempts that reached the server, first ones included (an operation
    /// still running at the end is followed to its outcome, so its last
    /// retries may arrive after `duration`).
    pub attempts: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Attempts whose client timed out before the response; the server still
    /// served each one (wasted work).
    pub timed_out: u64,
    /// Retries the budget refused (0 without a budget).
    pub refused: u64,
    /// The fraction of operations (first attempts) that succeeded.
    pub goodput: f64,
    /// Amplification over the whole run: `attempts / operations`.
    pub amplification: f64,
    /// Amplification during the trigger, `[start, end)`; `None` without one.
    pub amplification_trigger: Option<f64>,
    /// Amplification after the trigger, `[end, duration)`; `None` without one.
    pub amplification_after: Option<f64>,
    /// When the budget first refused a retry, since the run began: from then
    /// on the budget has drained. `None` if it never refused.
    #[serde(serialize_with = "plain::seconds")]
    pub drained_at: Option<Duration>,
    /// Amplification once the budget has drained, while the overload lasts:
    /// over the whole seconds from the first one starting at or after
    /// [`drained_at`](Self::drained_at) until the recovery window opens (to
    /// the end of the run if goodput never recovers). This is the load a
    /// budget lets through when most attempts fail. `None` if the budget
    /// never refused, or refused only once goodput had recovered.
    pub amplification_drained: Option<f64>,
    /// The highest amplification of any single second of that same
    /// interval: how far a burst of retries goes once the budget has drained.
    pub peak_amplification_drained: Option<f64>,
    /// Whether goodput recovered (see [`recovery_time`](Self::recovery_time)).
    pub recovered: bool,
    /// The recovery time, counted from the trigger's end (from 0 without a
    /// trigger): the time to the first whole second `t` such that in every
    /// second of `[t, t + recovery_window)` goodput is at least
    /// `recovery_threshold` times the offered load (by default 95% for 5 s).
    /// `None` ("never") if no such window fits in the run.
    #[serde(serialize_with = "plain::seconds")]
    pub recovery_time: Option<Duration>,
    /// The per-second series: the offered load (first attempts sent),
    /// attempts that reached the server and goodput (operations that
    /// succeeded, each counted once, in the second its successful response
    /// arrived).
    pub series: Series,
    /// The mean time from arrival at the server to departure of the
    /// attempts arriving in each second, whether or not their client still
    /// waited: the queue's delay. Zero for a second with no arrival.
    #[serde(serialize_with = "plain::seconds_each")]
    pub response_time: Vec<Duration>,
}

impl OverloadRow {
    /// [`recovery_time`](Self::recovery_time) in seconds, as the JSON field
    /// carries it (`None` is `null`).
    pub fn recovery_time_secs(&self) -> Option<f64> {
        self.recovery_time.map(|t| t.as_secs_f64())
    }

    pub(crate) fn new(config: &OverloadParams, policy: Policy, counts: Counts) -> Self {
        let ratio = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
        let recovery_time = recovery_time(config, &counts);
        // The overload lasts until the recovery window opens, a whole second.
        let whole = config.duration.0.as_secs() as usize;
        let overload_end = recovery_time.map_or(whole, |t| (recovery_from(config) + t).as_secs() as usize);
        let drained = counts
            .first_refusal
            .map(|at| (at / SECOND).ceil() as usize)
            .filter(|&from| from < overload_end)
            .map(|from| from..overload_end);
        let sum = |v: &[u32]| v.iter().map(|&n| u64::from(n)).sum::<u64>();
        let amplification_drained = drained.clone().and_then(|range| {
            ratio(sum(&counts.series.arrivals[range.clone()]), sum(&counts.series.offered[range]))
        });
        let peak_amplification_drained = drained.and_then(|range| {
            let s = &counts.series;
            range.filter_map(|i| ratio(s.arrivals[i].into(), s.offered[i].into())).reduce(f64::max)
        });
        let has_trigger = config.trigger().is_some();
        let response_time = counts
            .response_time
            .iter()
            .zip(&counts.series.arrivals)
            .map(|(&sum, &n)| if n == 0 { Duration::ZERO } else { elapsed(sum / f64::from(n)) })
            .collect();
        OverloadRow {
            policy,
            operations: counts.operations,
            attempts: counts.attempts,
            succeeded: counts.succeeded,
            timed_out: counts.timed_out,
            refused: counts.refused,
            goodput: ratio(counts.succeeded, counts.operations).unwrap_or(0.0),
            amplification: ratio(counts.attempts, counts.operations).unwrap_or(0.0),
            amplification_trigger: has_trigger.then(|| ratio(counts.trigger.1, counts.trigger.0)).flatten(),
            amplification_after: has_trigger.then(|| ratio(counts.after.1, counts.after.0)).flatten(),
            drained_at: counts.first_refusal.map(elapsed),
            amplification_drained,
            peak_amplification_drained,
            recovered: recovery_time.is_some(),
            recovery_time,
            series: counts.series,
            response_time,
        }
    }
}

/// Where recovery is counted from: the trigger's end, or 0 without one.
fn recovery_from(config: &OverloadParams) -> Duration {
    config.trigger().map_or(Duration::ZERO, |(_, end, _)| end)
}

/// The first whole second `t` at or after the trigger's end (0 without one)
/// that opens a recovery window, as a time since the trigger's end. Only
/// whole seconds count: a shorter last bucket would be judged on a fraction
/// of a second.
fn recovery_time(config: &OverloadParams, counts: &Counts) -> Option<Duration> {
    let from = recovery_from(config);
    let first = crate::units::seconds_up(from);
    let window = config.recovery_window.0.as_secs() as usize;
    let whole = config.duration.0.as_secs() as usize;
    let threshold = config.recovery_threshold.0;
    let s = &counts.series;
    let good = |i: usize| f64::from(s.goodput[i]) >= threshold * f64::from(s.offered[i]);
    // `run` counts the good seconds ending at `i`; the first window that fills wins.
    let mut run = 0;
    for i in first..whole {
        run = if good(i) { run + 1 } else { 0 };
        if run == window {
            let start = Duration::from_secs((i + 1 - window) as u64);
            return Some(start - from);
        }
    }
    None
}

/// What [`OverloadParams`] ran to: one row per policy, in the parameters'
/// order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverloadReport {
    config: OverloadParams,
    #[serde(serialize_with = "plain::backoff")]
    backoff: Backoff,
    rows: Vec<OverloadRow>,
}

impl OverloadReport {
    pub(crate) fn new(config: OverloadParams, backoff: Backoff, rows: Vec<OverloadRow>) -> Self {
        OverloadReport { config, backoff, rows }
    }

    /// The parameters that produced this report.
    pub const fn config(&self) -> &OverloadParams {
        &self.config
    }

    /// The schedule the retrying policies walked.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// Every row, in the configuration's policy order.
    pub fn rows(&self) -> &[OverloadRow] {
        &self.rows
    }

    /// The row of one policy, if the experiment had it.
    pub fn row(&self, policy: Policy) -> Option<&OverloadRow> {
        self.rows.iter().find(|row| row.policy == policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(offered: &[u32], goodput: &[u32]) -> Counts {
        let mut counts = Counts::new(offered.len());
        counts.series.offered = offered.to_vec();
        counts.series.arrivals = offered.to_vec();
        counts.series.goodput = goodput.to_vec();
        counts
    }

    fn config_with_window(secs: u64, trigger_end_ms: u64, window: u64) -> OverloadParams {
        let trigger =
            crate::values::Window::Between(Duration::from_secs(1), Duration::from_millis(trigger_end_ms));
        let span = |d| crate::values::Span(d);
        let config = OverloadParams {
            duration: span(Duration::from_secs(secs)),
            trigger,
            recovery_window: span(Duration::from_secs(window)),
            ..OverloadParams::default()
        };
        crate::Experiment::validate(&config).unwrap();
        config
    }

    fn config(secs: u64, trigger_end_ms: u64) -> OverloadParams {
        config_with_window(secs, trigger_end_ms, 3)
    }

    #[test]
    fn recovery_needs_a_full_window_of_good_seconds() {
        let offered = [100; 10];
        // Good from second 4 on, but second 5 dips: the window opens at 6.
        let goodput = [100, 0, 0, 0, 95, 94, 100, 100, 100, 100];
        assert_eq!(
            recovery_time(&config(10, 3000), &counts(&offered, &goodput)),
            Some(Duration::from_secs(3))
        );
        // From a trigger ending mid-second, the count starts at the next whole second.
        let goodput = [100; 10];
        assert_eq!(
            recovery_time(&config(10, 3500), &counts(&offered, &goodput)),
            Some(Duration::from_millis(500))
        );
        // A window that does not fit before the end is "never".
        let goodput = [100, 0, 0, 0, 0, 0, 0, 0, 100, 100];
        assert_eq!(recovery_time(&config(10, 3000), &counts(&offered, &goodput)), None);
    }

    #[test]
    fn amplification_once_drained_runs_from_the_next_whole_second_to_recovery() {
        // Never recovered (goodput 0 after the trigger): to the end of the run.
        let config = config(4, 2000);
        let mut c = counts(&[100, 100, 100, 100], &[100, 100, 0, 0]);
        c.series.arrivals = vec![300, 300, 120, 110];
        c.first_refusal = Some(1200.0);
        c.operations = 400;
        let row = OverloadRow::new(&config, Policy::TokenBucket, c);
        assert_eq!(row.drained_at, Some(Duration::from_millis(1200)));
        assert_eq!(row.recovery_time, None);
        assert_eq!(row.amplification_drained, Some(230.0 / 200.0));
        assert_eq!(row.peak_amplification_drained, Some(1.2));
        // Recovered from second 5 on: the seconds of the recovery window do not count.
        let config = config_with_window(10, 3000, 3);
        let mut c = counts(&[100; 10], &[100, 100, 0, 0, 0, 100, 100, 100, 100, 100]);
        c.series.arrivals = vec![100, 100, 300, 150, 130, 200, 200, 200, 200, 200];
        c.first_refusal = Some(2500.0);
        let row = OverloadRow::new(&config, Policy::Ratio, c);
        assert_eq!(row.recovery_time, Some(Duration::from_secs(2)));
        assert_eq!(row.amplification_drained, Some(1.4));
        assert_eq!(row.peak_amplification_drained, Some(1.5));
        // A first refusal after recovery is not a drain during the overload.
        let mut c = counts(&[100; 10], &[100; 10]);
        c.first_refusal = Some(7000.0);
        assert_eq!(OverloadRow::new(&config, Policy::Ratio, c).amplification_drained, None);
        let none = OverloadRow::new(&config, Policy::Retry, counts(&[1; 10], &[1; 10]));
        assert_eq!((none.amplification_drained, none.peak_amplification_drained), (None, None));
    }
}
