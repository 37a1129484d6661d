//! What a hedging experiment measured: one row per load level and policy.

use std::time::Duration;

use serde::Serialize;

use staggered::Backoff;

use super::model::Counts;
use super::HedgingParams;
use crate::fleet::Policy;
use crate::plain;
use crate::units::elapsed;

/// What one policy's run at one load level measured.
///
/// An operation's latency runs from its arrival to its success. A failed
/// operation counts as slower than every success, so a percentile that
/// falls among the failures is `None` ("failed").
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HedgingRow {
    /// The offered load, as a fraction of the server's capacity.
    pub load: f64,
    /// The policy.
    pub policy: Policy,
    /// The median latency.
    #[serde(serialize_with = "plain::seconds")]
    pub p50: Option<Duration>,
    /// The 99th percentile of latency.
    #[serde(serialize_with = "plain::seconds")]
    pub p99: Option<Duration>,
    /// The 99.9th percentile of latency.
    #[serde(serialize_with = "plain::seconds")]
    pub p999: Option<Duration>,
    /// Attempts and copies that reached the server per operation: 1 with
    /// neither retries nor hedges, and what is above 1 is the extra load.
    pub attempts_per_operation: f64,
    /// The fraction of operations that succeeded.
    pub goodput: f64,
    /// Operations offered.
    pub operations: u64,
    /// Attempts and copies that reached the server, rejected ones included.
    pub attempts: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Copies sent beyond each operation's first (hedging policies).
    pub hedges: u64,
    /// Operations won by a copy other than the first.
    pub hedge_wins: u64,
    /// Attempts and copies the server rejected, its queue full.
    pub rejected: u64,
    /// Attempts and copies cut by their time limit (`retry`'s timeout, or
    /// the deadline) before their answer.
    pub cut: u64,
    /// Requests the server served for a client that no longer waited for
    /// them (copies that lost, attempts cut): wasted work.
    pub wasted: u64,
    /// Retries or copies the budget refused.
    pub refused: u64,
}

impl HedgingRow {
    pub(crate) fn new(load: f64, policy: Policy, mut counts: Counts) -> Self {
        let ratio = |num: u64, den: u64| if den == 0 { 0.0 } else { num as f64 / den as f64 };
        let latencies = &mut counts.latencies;
        latencies.sort_unstable_by(f64::total_cmp);
        let at = |p: f64| percentile(latencies, p);
        HedgingRow {
            load,
            policy,
            p50: at(0.5),
            p99: at(0.99),
            p999: at(0.999),
            attempts_per_operation: ratio(counts.attempts, counts.operations),
            goodput: ratio(counts.succeeded, counts.operations),
            operations: counts.operations,
            attempts: counts.attempts,
            succeeded: counts.succeeded,
            hedges: counts.hedges,
            hedge_wins: counts.hedge_wins,
            rejected: counts.rejected,
            cut: counts.cut,
            wasted: counts.wasted,
            refused: counts.refused,
        }
    }
}

/// The `p` quantile of `sorted` by the nearest rank: the smallest value at
/// or above a share `p` of them; `None` if that is a failure (infinite) or
/// there are none.
fn percentile(sorted: &[f64], p: f64) -> Option<Duration> {
    let rank = (p * sorted.len() as f64).ceil().max(1.0) as usize;
    let value = *sorted.get(rank - 1)?;
    value.is_finite().then(|| elapsed(value))
}

/// What [`HedgingParams`] ran to: a row per load level and policy, the
/// loads in the parameters' order and, within each, the policies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HedgingReport {
    config: HedgingParams,
    /// The server's capacity, requests per second.
    capacity: f64,
    #[serde(serialize_with = "plain::backoff")]
    backoff: Backoff,
    rows: Vec<HedgingRow>,
}

impl HedgingReport {
    pub(crate) fn new(config: HedgingParams, backoff: Backoff, rows: Vec<HedgingRow>) -> Self {
        HedgingReport { capacity: config.capacity(), config, backoff, rows }
    }

    /// The parameters that produced this report.
    pub const fn config(&self) -> &HedgingParams {
        &self.config
    }

    /// The schedule `retry` walked.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }

    /// Every row: by load level, then by policy, in the parameters' orders.
    pub fn rows(&self) -> &[HedgingRow] {
        &self.rows
    }

    /// The row of `policy` at `load`, if the experiment had it.
    pub fn row(&self, load: f64, policy: Policy) -> Option<&HedgingRow> {
        self.rows.iter().find(|row| row.load == load && row.policy == policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_ranks_and_failures_are_slowest() {
        let sorted: Vec<f64> = (1..=1000).map(f64::from).collect();
        let ms = |n| Some(Duration::from_millis(n));
        assert_eq!(
            (percentile(&sorted, 0.5), percentile(&sorted, 0.99), percentile(&sorted, 0.999)),
            (ms(500), ms(990), ms(999))
        );
        let mut failed = sorted.clone();
        failed[999] = f64::INFINITY;
        failed[998] = f64::INFINITY;
        assert_eq!((percentile(&failed, 0.99), percentile(&failed, 0.999)), (ms(990), None));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[3.0], 0.999), ms(3));
    }
}
