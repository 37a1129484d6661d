//! The `rate_limiter` section: an [`AdaptiveLimiter`] with its parameters.

use core::time::Duration;

use serde::{Deserialize, Serialize};

use super::fields::opt_duration;
use super::LoadError;
use crate::limiter::{AdaptiveLimiter, AdaptiveMode};

/// A client-side [`AdaptiveLimiter`] (the AWS SDKs' adaptive retry mode):
/// every parameter left out keeps the published default, and an empty
/// table is the limiter with all of them.
///
/// ```toml
/// [rate_limiter]
/// beta = 0.7              # the fraction of the rate kept after a throttle
/// min_rate = 0.5          # tokens per second, at least
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RateLimiterConfig {
    /// CUBIC's scale constant `C` (0.4); above 0, at most 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_constant: Option<f64>,
    /// The fraction of the rate kept after a throttle (0.7); above 0, below 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// The weight of the latest rate bucket in the measured rate (0.8); above 0, at most 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smoothing: Option<f64>,
    /// The width of the rate meter's buckets (`"500ms"`; 1 ms to 60 s).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_duration")]
    pub rate_bucket: Option<Duration>,
    /// The lowest fill rate, per second (0.5); at least 0.000001 (one token
    /// every 11.6 days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<f64>,
    /// The fill rate never exceeds this times the measured rate (2); 1 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rate_scale: Option<f64>,
    /// How the fill rate follows throttles once on: `"aws"` (the AWS SDKs'
    /// mode, the default) or `"tracking"` (the rate the server admitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AdaptiveMode>,
}

impl RateLimiterConfig {
    /// Builds the limiter on the system clock. Build it once per client and
    /// share it: each call makes a new limiter that knows nothing yet.
    ///
    /// # Errors
    /// A [`LoadError`] naming the parameter, such as
    /// `rate_limiter.beta: invalid beta 1: must be less than 1`.
    pub fn build(&self) -> Result<AdaptiveLimiter, LoadError> {
        let mut builder = AdaptiveLimiter::builder();
        if let Some(scale_constant) = self.scale_constant {
            builder = builder.with_scale_constant(scale_constant);
        }
        if let Some(beta) = self.beta {
            builder = builder.with_beta(beta);
        }
        if let Some(smoothing) = self.smoothing {
            builder = builder.with_smoothing(smoothing);
        }
        if let Some(rate_bucket) = self.rate_bucket {
            builder = builder.with_rate_bucket(rate_bucket);
        }
        if let Some(min_rate) = self.min_rate {
            builder = builder.with_min_rate(min_rate);
        }
        if let Some(max_rate_scale) = self.max_rate_scale {
            builder = builder.with_max_rate_scale(max_rate_scale);
        }
        if let Some(mode) = self.mode {
            builder = builder.with_mode(mode);
        }
        builder.build().map_err(|error| LoadError::invalid_value("rate_limiter", &error))
    }
}
