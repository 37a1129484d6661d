//! The `hedging` section: a [`Hedging`] with its parameters.

use core::time::Duration;

use serde::{Deserialize, Serialize};

use super::fields::opt_duration;
use super::{LoadError, LoadErrorKind};
use crate::Hedging;

/// How to hedge async calls (see [`Hedging`]): a fixed `delay` or a
/// learned `percentile`, exactly one of the two.
///
/// ```toml
/// [hedging]
/// percentile = 0.95       # hedge after the 95th percentile of recent latencies
/// max_attempts = 3        # copies in all, the first included (2 to 5)
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct HedgingConfig {
    /// Hedge after this long without an answer (`"10ms"`; `"0s"` sends
    /// every copy at once).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub delay: Option<Duration>,
    /// Hedge after this percentile of the latencies seen (0.5 to 0.999).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile: Option<f64>,
    /// The most copies in all, the first included (2 to 5; 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// With a percentile: the latencies seen before the first hedge (100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_samples: Option<u32>,
    /// With a percentile: the latencies per window (10 to 1,000,000; 1,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
}

impl HedgingConfig {
    /// Builds the hedging. Build it once per client and share it (clones
    /// share a learned delay's latencies): [`RetryConfig::hedging`](super::RetryConfig::hedging) does.
    ///
    /// # Errors
    /// A [`LoadError`] naming the field, such as `hedging.percentile:
    /// invalid percentile 0.2: must be between 0.5 and 0.999`, or
    /// `hedging` when neither `delay` nor `percentile` is set, and
    /// `hedging.percentile` when both are.
    pub fn build(&self) -> Result<Hedging, LoadError> {
        let invalid = |error: &crate::ConfigError| LoadError::invalid_value("hedging", error);
        let hedging = match (self.delay, self.percentile) {
            (Some(delay), None) => Hedging::after(delay),
            (None, Some(percentile)) => Hedging::at_percentile(percentile).map_err(|e| invalid(&e))?,
            (Some(_), Some(_)) => {
                return Err(LoadError::new(
                    LoadErrorKind::Invalid,
                    "hedging.percentile",
                    "set a fixed delay or a percentile, not both",
                ))
            }
            (None, None) => {
                return Err(LoadError::new(
                    LoadErrorKind::Invalid,
                    "hedging",
                    "set a fixed delay (delay = \"10ms\") or a learned one (percentile = 0.95)",
                ))
            }
        };
        let hedging = match self.max_attempts {
            Some(max_attempts) => hedging.with_max_attempts(max_attempts).map_err(|e| invalid(&e))?,
            None => hedging,
        };
        let hedging = match self.min_samples {
            Some(min_samples) => hedging.with_min_samples(min_samples),
            None => hedging,
        };
        match self.window {
            Some(window) => hedging.with_window(window).map_err(|e| invalid(&e)),
            None => Ok(hedging),
        }
    }
}
