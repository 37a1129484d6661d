//! Drawing sequences of delays from a schedule, reproducibly, and the
//! statistics the report shows about them.
//!
//! Sequence `i` draws from its own generator, seeded with the `i`-th value of
//! [`FastRng::seed`]`(seed)`: the same seed gives the same sequences on every
//! machine, and sequences never share a stream.

use std::time::Duration;

use staggered::{Backoff, Delays, FastRng, Rng};

use crate::view::text::from_nanos;

/// How many sequences the median estimate draws, where the library has no
/// closed form (`decorrelated`; `smooth` after retry 1). Odd, so the median
/// is one of the draws.
pub const ESTIMATE_SEQUENCES: usize = 10_001;

/// The fixed seed of the median estimate, so that a table without
/// `--samples` is the same on every run and every machine.
pub const ESTIMATE_SEED: u64 = 0x5eed_0002;

/// Sequences `0, 1, 2, ...` of `backoff`, each with its own generator derived
/// from `seed`.
pub fn sequences(backoff: &Backoff, seed: u64) -> impl Iterator<Item = Delays> + '_ {
    let mut seeds = FastRng::seed(seed);
    std::iter::repeat_with(move || backoff.delays_seeded(seeds.next_u64()))
}

/// The median delay of retries `1..=retries`, estimated from
/// [`ESTIMATE_SEQUENCES`] sequences drawn from [`ESTIMATE_SEED`].
///
/// The sequences advance together, one retry at a time, so memory holds one
/// retry's draws rather than the whole matrix.
pub fn estimate_medians(backoff: &Backoff, retries: u32) -> Vec<Duration> {
    let mut live: Vec<Delays> = sequences(backoff, ESTIMATE_SEED).take(ESTIMATE_SEQUENCES).collect();
    let mut column = Vec::with_capacity(ESTIMATE_SEQUENCES);
    (0..retries)
        .map_while(|_| {
            column.clear();
            column.extend(live.iter_mut().filter_map(Iterator::next));
            let middle = column.len() / 2;
            (!column.is_empty()).then(|| *column.select_nth_unstable(middle).1)
        })
        .collect()
}

/// `sequences` sequences of the first `retries` delays each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Samples {
    /// The seed the sequences were derived from.
    pub seed: u64,
    /// Whether the seed came from `--seed` (rather than OS entropy).
    pub seed_given: bool,
    /// Delays per sequence.
    retries: usize,
    /// Sequence-major: sequence 0's delays, then sequence 1's, ...
    delays: Vec<Duration>,
    /// The number of sequences (kept apart: with 0 retries `delays` is empty).
    count: usize,
}

impl Samples {
    /// Draws `count` sequences of `backoff`, keeping the first `retries`
    /// delays of each.
    pub fn draw(backoff: &Backoff, seed: u64, seed_given: bool, count: u32, retries: u32) -> Self {
        let (count, retries) = (count as usize, retries as usize);
        let mut delays = Vec::with_capacity(count.saturating_mul(retries));
        for sequence in sequences(backoff, seed).take(count) {
            delays.extend(sequence.take(retries));
        }
        // A schedule shorter than `retries` cannot happen (the config caps
        // the rows at the schedule's length); if it did, keep whole rows.
        let retries = delays.len().checked_div(count).unwrap_or(retries);
        delays.truncate(count * retries);
        Samples { seed, seed_given, retries, delays, count }
    }

    /// Samples made of the given sequences, which must all have the same length.
    #[cfg(test)]
    pub fn from_sequences(seed: u64, seed_given: bool, sequences: &[Vec<Duration>]) -> Self {
        let retries = sequences.first().map_or(0, Vec::len);
        assert!(sequences.iter().all(|s| s.len() == retries), "ragged samples");
        Samples { seed, seed_given, retries, delays: sequences.concat(), count: sequences.len() }
    }

    /// The number of sequences.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Each sequence's delays, in order; item `r - 1` of one is retry `r`.
    pub fn sequences(&self) -> impl Iterator<Item = &[Duration]> {
        (0..self.count).map(|i| &self.delays[i * self.retries..(i + 1) * self.retries])
    }

    /// Statistics of each retry's delay across the sequences.
    pub fn stats(&self) -> Vec<SampledStats> {
        let mut column = Vec::with_capacity(self.count);
        (0..self.retries)
            .filter_map(|r| {
                column.clear();
                column.extend(self.delays.iter().skip(r).step_by(self.retries));
                SampledStats::of(&mut column)
            })
            .collect()
    }
}

/// Percentiles and mean of one retry's sampled delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledStats {
    /// The median (nearest rank).
    pub p50: Duration,
    /// The 90th percentile (nearest rank).
    pub p90: Duration,
    /// The 99th percentile (nearest rank).
    pub p99: Duration,
    /// The arithmetic mean, to the nanosecond.
    pub mean: Duration,
}

impl SampledStats {
    /// The statistics of `values` (which it sorts), or `None` if empty.
    pub fn of(values: &mut [Duration]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        let sum: u128 = values.iter().map(Duration::as_nanos).sum();
        let mean = sum / values.len() as u128;
        Some(SampledStats {
            p50: percentile(values, 50),
            p90: percentile(values, 90),
            p99: percentile(values, 99),
            // The mean of Durations is at most the largest one, so it fits.
            mean: from_nanos(mean).unwrap_or(Duration::MAX),
        })
    }
}

/// The nearest-rank `pct`-th percentile of sorted, non-empty `values`: the
/// smallest value with at least `pct`% of the values at or below it.
fn percentile(sorted: &[Duration], pct: usize) -> Duration {
    let rank = (sorted.len() * pct).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::{Preset, Strategy};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn nearest_rank_percentiles_and_mean() {
        let mut values: Vec<Duration> = (1..=100).rev().map(ms).collect();
        let stats = SampledStats::of(&mut values).unwrap();
        assert_eq!(
            stats,
            SampledStats { p50: ms(50), p90: ms(90), p99: ms(99), mean: Duration::from_micros(50_500) }
        );
        let one = SampledStats::of(&mut [ms(7)]).unwrap();
        assert_eq!((one.p50, one.p99, one.mean), (ms(7), ms(7), ms(7)));
        assert_eq!(SampledStats::of(&mut []), None);
    }

    #[test]
    fn same_seed_same_samples_and_seeds_differ() {
        let backoff = Preset::Standard.backoff();
        let a = Samples::draw(&backoff, 7, true, 3, 4);
        assert_eq!(a, Samples::draw(&backoff, 7, true, 3, 4));
        assert_ne!(a.delays, Samples::draw(&backoff, 8, true, 3, 4).delays);
        assert_eq!(a.count(), 3);
        assert!(a.sequences().all(|s| s.len() == 4));
        let first: Vec<Duration> = backoff.delays_seeded(FastRng::seed(7).next_u64()).collect();
        assert_eq!(a.sequences().next().unwrap(), first.as_slice());
    }

    #[test]
    fn zero_retries_keep_the_sequences() {
        let backoff = Backoff::builder(Strategy::Full).with_max_attempts(1).build().unwrap();
        let samples = Samples::draw(&backoff, 1, false, 2, 0);
        assert_eq!(samples.sequences().count(), 2);
        assert!(samples.stats().is_empty());
    }

    #[test]
    fn stats_follow_columns() {
        let samples = Samples::from_sequences(0, true, &[vec![ms(1), ms(10)], vec![ms(3), ms(30)]]);
        let stats = samples.stats();
        assert_eq!(stats.len(), 2);
        assert_eq!((stats[0].p50, stats[0].mean), (ms(1), ms(2)));
        assert_eq!((stats[1].p99, stats[1].mean), (ms(30), ms(20)));
    }

    #[test]
    fn decorrelated_median_estimate_is_inside_the_range() {
        let backoff = Backoff::builder(Strategy::Decorrelated)
            .with_base(ms(100))
            .with_max_delay(Duration::from_secs(10))
            .build()
            .unwrap();
        let medians = estimate_medians(&backoff, 4);
        assert_eq!(medians.len(), 4);
        // Retry 1 is U[base, 3 base]: its median is 2 base, within sampling error.
        let first = medians[0].as_secs_f64();
        assert!((first - 0.2).abs() < 0.01, "{first}");
        assert_eq!(medians, estimate_medians(&backoff, 4), "the estimate is reproducible");
    }
}
