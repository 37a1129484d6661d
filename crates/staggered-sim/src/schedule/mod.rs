//! A report on one schedule, as `stagger schedule` shows it: each retry's
//! interval and the range and median of its delay, the worst-case total
//! wait, and, when asked, sampled sequences with their percentiles.
//!
//! ```
//! use staggered::Preset;
//! use staggered_sim::{Present, ScheduleQuery};
//!
//! let query = ScheduleQuery::new(Preset::Aws.backoff()).with_sampling(100, Some(7))?;
//! let report = query.report(0);
//! assert_eq!(report.rows.len(), 2); // aws: 3 attempts, so 2 retries
//! assert_eq!(report.present().records.rows.len(), 100 * 2); // a record per sampled delay
//! # Ok::<(), staggered_sim::SamplingError>(())
//! ```

mod chart;
mod compare;
mod report;
mod sampling;
mod view;

use std::fmt;

use staggered::{Backoff, Preset};

pub use compare::ScheduleComparison;
pub use report::{Median, RetryRow, ScheduleReport, WorstCase, EXACT_SUM_RETRIES};
pub use sampling::{SampledStats, Samples, ESTIMATE_SEED, ESTIMATE_SEQUENCES};

/// Retries shown for a schedule with no attempt limit (the `google` preset),
/// which would otherwise never end.
pub const UNLIMITED_SHOWN_RETRIES: u32 = 10;

/// The most retries a report shows. A longer schedule (4294967295 attempts)
/// is cut there with a note: past a few dozen retries every row is the same
/// capped delay, and nobody reads a billion of them.
pub const MAX_SHOWN_RETRIES: u32 = 1000;

/// The most delays sampling may draw (sequences times the retries shown),
/// so memory stays under about 64 MB.
pub const MAX_SAMPLED_DELAYS: u64 = 4_000_000;

/// What a schedule report covers: the schedule, the retries shown, what to
/// sample, and whether to estimate the medians that have no closed form.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleQuery {
    preset: Option<Preset>,
    backoff: Backoff,
    retries: u32,
    sampling: Option<Sampling>,
    estimate_medians: bool,
}

/// How many sequences to draw, and from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    /// The number of sequences, at least 1.
    pub sequences: u32,
    /// The seed; `None` means the one [`ScheduleQuery::report`] is given.
    pub seed: Option<u64>,
}

impl ScheduleQuery {
    /// A report on `backoff`'s retries: every one up to
    /// [`MAX_SHOWN_RETRIES`], or the first [`UNLIMITED_SHOWN_RETRIES`]
    /// without an attempt limit; nothing sampled; medians estimated.
    pub fn new(backoff: Backoff) -> Self {
        let retries = match backoff.max_attempts() {
            Some(attempts) => (attempts - 1).min(MAX_SHOWN_RETRIES),
            None => UNLIMITED_SHOWN_RETRIES,
        };
        ScheduleQuery { preset: None, backoff, retries, sampling: None, estimate_medians: true }
    }

    /// Names the preset the schedule started from.
    #[must_use]
    pub fn with_preset(mut self, preset: Option<Preset>) -> Self {
        self.preset = preset;
        self
    }

    /// Samples `sequences` sequences from `seed`.
    ///
    /// # Errors
    /// When they would draw more than [`MAX_SAMPLED_DELAYS`] delays.
    pub fn with_sampling(mut self, sequences: u32, seed: Option<u64>) -> Result<Self, SamplingError> {
        let delays = u64::from(sequences) * u64::from(self.retries);
        if delays > MAX_SAMPLED_DELAYS {
            return Err(SamplingError { sequences, retries: self.retries });
        }
        self.sampling = Some(Sampling { sequences, seed });
        Ok(self)
    }

    /// Leaves the medians without a closed form unknown (a CSV of samples
    /// shows no medians, so it skips the estimate's 10,001 sequences).
    #[must_use]
    pub fn without_median_estimates(mut self) -> Self {
        self.estimate_medians = false;
        self
    }

    /// The schedule.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }
    /// How many retries the report shows, from retry 1.
    pub const fn retries(&self) -> u32 {
        self.retries
    }
    /// What to sample, if anything.
    pub const fn sampling(&self) -> Option<Sampling> {
        self.sampling
    }
}

/// Sampling would draw more than [`MAX_SAMPLED_DELAYS`] delays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingError {
    /// The sequences asked for.
    pub sequences: u32,
    /// The retries of each.
    pub retries: u32,
}

impl fmt::Display for SamplingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} sequences of {} retries are {} delays, more than the limit of {MAX_SAMPLED_DELAYS}; sample fewer \
             sequences or fewer attempts",
            self.sequences,
            self.retries,
            u64::from(self.sequences) * u64::from(self.retries)
        )
    }
}

impl std::error::Error for SamplingError {}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::Strategy;

    #[test]
    fn retries_shown_are_limited_and_samples_too() {
        let query = |attempts: Option<u32>| {
            let builder = Backoff::builder(Strategy::Full);
            let builder = match attempts {
                Some(n) => builder.with_max_attempts(n),
                None => builder.without_max_attempts(),
            };
            ScheduleQuery::new(builder.build().unwrap())
        };
        assert_eq!(query(None).retries(), UNLIMITED_SHOWN_RETRIES);
        assert_eq!(query(Some(4)).retries(), 3);
        assert_eq!(query(Some(u32::MAX)).retries(), MAX_SHOWN_RETRIES);
        assert_eq!(query(Some(1)).retries(), 0);
        let err = query(Some(1001)).with_sampling(1_000_000, None).unwrap_err();
        assert!(
            err.to_string().starts_with("1000000 sequences of 1000 retries are 1000000000 delays"),
            "{err}"
        );
        assert!(query(Some(5)).with_sampling(1_000_000, None).is_ok());
    }
}
