//! What a throttling experiment measured: one row per policy, each with its
//! per-second series.

use serde::Serialize;

use staggered::Backoff;

use super::model::Counts;
use super::ThrottlingParams;
use crate::fleet::{Policy, Series};
use crate::plain;
use crate::units::SECOND;

/// What one policy's run measured.
///
/// The run ends at the configuration's duration: an operation still
/// waiting (for a token or a retry) or with an attempt in flight then is
/// unfinished, and counts among the operations offered but not among those
/// that succeeded. Each operation's caller gives up at the configuration's
/// `timeout`: an operation that succeeds later is `late` and no goodput,
/// and one whose attempt would wait for a token past its bound is `shed`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ThrottlingRow {
    /// The policy.
    pub policy: Policy,
    /// Throttled attempts / attempts that reached the server.
    pub throttled_fraction: f64,
    /// Operations that succeeded within the caller's timeout / operations offered.
    pub goodput: f64,
    /// Attempts that reached the server / operations offered.
    pub attempts_per_operation: f64,
    /// The median, over every operation, of the seconds it waited on the
    /// client side: for the limiter's tokens and between attempts. A shed
    /// operation counts what it waited until shed, an unfinished one what
    /// it waited up to the end.
    pub wait_p50: f64,
    /// The 99th percentile of the same waits, in seconds.
    pub wait_p99: f64,
    /// Attempts reaching the server per second over the last half of the
    /// run: where the sending settled.
    pub send_rate: f64,
    /// Operations offered (started).
    pub operations: u64,
    /// Attempts that reached the server, first ones included.
    pub attempts: u64,
    /// Attempts the server throttled.
    pub throttled: u64,
    /// Operations that succeeded within the caller's timeout.
    pub succeeded: u64,
    /// Retries the retry quota refused (0 without one).
    pub refused: u64,
    /// Operations not finished at the end of the run.
    pub unfinished: u64,
    /// Operations shed: their attempt would have waited for a token past
    /// `max_token_wait` or the caller's timeout.
    pub shed: u64,
    /// Operations that succeeded after the caller's timeout, counted in no
    /// goodput.
    pub late: u64,
    /// The per-second series: operations started, attempts that reached
    /// the server and operations that succeeded.
    pub series: Series,
}

/// The `q` quantile of `values` by nearest rank (the smallest value with at
/// least `q` of them at or below it); 0 for no values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl ThrottlingRow {
    pub(crate) fn new(config: &ThrottlingParams, policy: Policy, mut counts: Counts) -> Self {
        let ratio = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
        counts.waits.sort_unstable_by(f64::total_cmp);
        let seconds = |units: f64| units / SECOND;
        let half = config.duration.0.as_secs_f64() / 2.0;
        ThrottlingRow {
            policy,
            throttled_fraction: ratio(counts.throttled, counts.attempts),
            goodput: ratio(counts.succeeded, counts.operations),
            attempts_per_operation: ratio(counts.attempts, counts.operations),
            wait_p50: seconds(quantile(&counts.waits, 0.5)),
            wait_p99: seconds(quantile(&counts.waits, 0.99)),
            send_rate: counts.late_attempts as f64 / half,
            operations: counts.operations,
            attempts: counts.attempts,
            throttled: counts.throttled,
            succeeded: counts.succeeded,
            refused: counts.refused,
            unfinished: counts.unfinished,
            shed: counts.shed,
            late: counts.late,
            series: counts.series,
        }
    }
}

/// What [`ThrottlingParams`] ran to: one row per policy, in the
/// parameters' order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThrottlingReport {
    config: ThrottlingParams,
    #[serde(serialize_with = "plain::backoff")]
    backoff: Backoff,
    rows: Vec<ThrottlingRow>,
}

impl ThrottlingReport {
    pub(crate) fn new(config: ThrottlingParams, backoff: Backoff, rows: Vec<ThrottlingRow>) -> Self {
        ThrottlingReport { config, backoff, rows }
    }

    /// The parameters that produced this report.
    pub const fn config(&self) -> &ThrottlingParams {
        &self.config
    }

    /// The schedule the retrying policies walked.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// Every row, in the configuration's policy order.
    pub fn rows(&self) -> &[ThrottlingRow] {
        &self.rows
    }

    /// The row of one policy, if the experiment had it.
    pub fn row(&self, policy: Policy) -> Option<&ThrottlingRow> {
        self.rows.iter().find(|row| row.policy == policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_by_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!((quantile(&values, 0.5), quantile(&values, 0.99)), (50.0, 99.0));
        assert_eq!(quantile(&[3.0], 0.99), 3.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
