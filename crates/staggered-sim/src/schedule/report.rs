//! `ScheduleReport`: everything a schedule report shows, computed once from
//! the query; its presentation only formats it.

use std::time::Duration;

use staggered::{Backoff, Preset};

use super::sampling::{self, SampledStats, Samples};
use super::ScheduleQuery;

/// Retries whose largest delay the worst-case total adds up one by one. Past
/// it (only `--attempts` in the millions), each further retry counts as the
/// schedule's largest possible delay, and the total is marked as a bound.
pub const EXACT_SUM_RETRIES: u32 = 1_000_000;

/// A schedule's rows, worst case and samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleReport {
    /// The preset the schedule started from, if any.
    pub preset: Option<Preset>,
    /// The schedule.
    pub backoff: Backoff,
    /// The retries in the whole schedule (`max_attempts - 1`); `None` when it
    /// has no attempt limit.
    pub total_retries: Option<u32>,
    /// The retries shown, from retry 1.
    pub rows: Vec<RetryRow>,
    /// The longest the schedule can wait in all.
    pub worst_case: WorstCase,
    /// The sampled sequences, if sampling was asked for.
    pub samples: Option<Samples>,
}

/// One retry: the wait after attempt `retry` failed, before attempt `retry + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryRow {
    /// The retry, from 1.
    pub retry: u32,
    /// The deterministic interval `x(r)`, from the library's bounds.
    pub interval: Duration,
    /// The smallest possible delay.
    pub min: Duration,
    /// The median delay.
    pub median: Median,
    /// The largest possible delay.
    pub max: Duration,
    /// Statistics of the sampled delays, if sampling was asked for.
    pub sampled: Option<SampledStats>,
}

/// A median, exact or estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Median {
    /// The library's closed form.
    Exact(Duration),
    /// Estimated from [`sampling::ESTIMATE_SEQUENCES`] fixed-seed sequences,
    /// where there is no closed form.
    Estimated(Duration),
    /// Not computed: no closed form, and the output does not show medians.
    Unknown,
}

impl Median {
    /// The value, exact or estimated.
    pub const fn value(self) -> Option<Duration> {
        match self {
            Median::Exact(d) | Median::Estimated(d) => Some(d),
            Median::Unknown => None,
        }
    }
}

/// The sum of the largest delay of each retry: the longest the schedule can
/// wait, operation time aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorstCase {
    /// The sum, saturating at `Duration::MAX`.
    pub total: Duration,
    /// How many retries it covers: all of them, or the ones shown when the
    /// schedule has no attempt limit.
    pub retries: u32,
    /// `false` when only an upper bound was computed (past [`EXACT_SUM_RETRIES`]).
    pub exact: bool,
}

impl ScheduleQuery {
    /// Computes the report. `entropy_seed` is the sampling seed when the
    /// query has none (the caller draws it from OS entropy); everything else
    /// follows from the query, so the same inputs give the same report.
    pub fn report(&self, entropy_seed: u64) -> ScheduleReport {
        let backoff = self.backoff;
        let shown = self.retries;
        let total_retries = backoff.max_attempts().map(|attempts| attempts - 1);
        let samples = self.sampling.map(|plan| {
            let seed = plan.seed.unwrap_or(entropy_seed);
            Samples::draw(&backoff, seed, plan.seed.is_some(), plan.sequences, shown)
        });
        let stats = samples.as_ref().map(Samples::stats).unwrap_or_default();
        let bounds: Vec<_> = backoff.bounds().take(shown as usize).collect();
        let estimates = if self.estimate_medians && bounds.iter().any(|b| b.median.is_none()) {
            sampling::estimate_medians(&backoff, shown)
        } else {
            Vec::new()
        };
        let rows = bounds
            .iter()
            .enumerate()
            .map(|(i, b)| RetryRow {
                retry: b.retry,
                interval: b.interval,
                min: b.min,
                median: match (b.median, estimates.get(i)) {
                    (Some(exact), _) => Median::Exact(exact),
                    (None, Some(&estimate)) => Median::Estimated(estimate),
                    (None, None) => Median::Unknown,
                },
                max: b.max,
                sampled: stats.get(i).copied(),
            })
            .collect();
        ScheduleReport {
            preset: self.preset,
            backoff,
            total_retries,
            rows,
            worst_case: worst_case(&backoff, total_retries, shown),
            samples,
        }
    }
}

impl ScheduleReport {
    /// Whether some retries of a limited schedule are not shown.
    pub fn is_truncated(&self) -> bool {
        self.total_retries.is_some_and(|total| total as usize > self.rows.len())
    }

    /// Whether some median in the rows is an estimate.
    pub fn has_estimates(&self) -> bool {
        self.rows.iter().any(|row| matches!(row.median, Median::Estimated(_)))
    }
}

/// The worst case over all retries (or the shown ones, with no attempt limit).
fn worst_case(backoff: &Backoff, total_retries: Option<u32>, shown: u32) -> WorstCase {
    let retries = total_retries.unwrap_or(shown);
    let summed = retries.min(EXACT_SUM_RETRIES);
    let mut total =
        backoff.bounds().take(summed as usize).fold(Duration::ZERO, |total, b| total.saturating_add(b.max));
    let rest = retries - summed;
    if rest > 0 {
        total = total.saturating_add(backoff.delay_ceiling().saturating_mul(rest));
    }
    WorstCase { total, retries, exact: rest == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::Strategy;

    #[test]
    fn google_rows_are_the_java_client_s() {
        let report = ScheduleQuery::new(Preset::Google.backoff()).report(0);
        let intervals: Vec<u128> = report.rows.iter().map(|r| r.interval.as_millis()).collect();
        assert_eq!(intervals, [500, 750, 1125, 1687, 2530, 3795, 5692, 8538, 12807, 19210]);
        assert_eq!(report.rows[3].min, Duration::from_micros(843_500));
        assert_eq!(report.rows[3].max, Duration::from_micros(2_530_500));
        assert_eq!(report.total_retries, None);
        assert_eq!(report.worst_case.retries, 10);
        assert!(!report.is_truncated() && !report.has_estimates());
    }

    #[test]
    fn worst_case_sums_every_retry() {
        let report = ScheduleQuery::new(Preset::Aws.backoff()).report(0); // full jitter, 1s then 2s
        assert_eq!(report.worst_case, WorstCase { total: Duration::from_secs(3), retries: 2, exact: true });
    }

    #[test]
    fn huge_schedules_bound_the_worst_case_quickly() {
        let backoff = Backoff::builder(Strategy::Exponential).with_max_attempts(u32::MAX).build().unwrap();
        let report = ScheduleQuery::new(backoff).report(0);
        assert!(report.is_truncated());
        assert!(!report.worst_case.exact);
        // 30 s per retry once capped (from retry 6): the bound is within minutes of that.
        let capped = Duration::from_secs(30).saturating_mul(u32::MAX - 1);
        assert!(
            report.worst_case.total <= capped && report.worst_case.total + Duration::from_secs(300) > capped
        );
    }

    #[test]
    fn decorrelated_medians_are_estimated_and_samples_fill_rows() {
        let backoff = Backoff::builder(Strategy::Decorrelated).with_max_attempts(4).build().unwrap();
        let report = ScheduleQuery::new(backoff).with_sampling(50, Some(3)).unwrap().report(0);
        assert!(report.has_estimates());
        for row in &report.rows {
            let median = row.median.value().unwrap();
            assert!(row.min <= median && median <= row.max, "{row:?}");
            let sampled = row.sampled.unwrap();
            assert!(row.min <= sampled.p50 && sampled.p99 <= row.max, "{row:?}");
        }
        let samples = report.samples.unwrap();
        assert_eq!((samples.seed, samples.seed_given, samples.count()), (3, true, 50));
        let unknown = ScheduleQuery::new(backoff).without_median_estimates().report(0);
        assert!(unknown.rows.iter().all(|row| row.median == Median::Unknown));
    }

    #[test]
    fn entropy_seed_is_used_only_without_a_seed() {
        let report = ScheduleQuery::new(Preset::Aws.backoff()).with_sampling(1, None).unwrap().report(42);
        let samples = report.samples.unwrap();
        assert_eq!((samples.seed, samples.seed_given), (42, false));
    }
}
