//! [`AdaptiveMode`]: how an [`AdaptiveLimiter`](super::AdaptiveLimiter)
//! sets its fill rate once throttled.

use core::fmt;
use core::str::FromStr;

/// How an [`AdaptiveLimiter`](super::AdaptiveLimiter) sets its fill rate
/// once a throttle has turned it on. Both modes stay off until the first
/// throttle, take a token for every attempt once on, and keep the fill
/// rate between `min_rate` and `max_rate_scale` times what the client is
/// seen sending.
///
/// Which to choose, from the throttling simulation (the guide's chapter
/// "When the server throttles" has the figures): `Aws` does what the AWS
/// SDKs do, throttles least with many clients each sending a share of a
/// modest limit, and is the one to keep for parity with them; `Tracking`
/// holds the limit where `Aws` falls below it (a few clients each sending a
/// large share of the limit), at the price of a few more throttles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum AdaptiveMode {
    /// The AWS SDKs' adaptive retry mode, number for number: a throttle
    /// cuts the rate to `beta` (0.7) times the rate it happened at, and the
    /// rate grows back along TCP CUBIC's curve; the rate is measured in
    /// half-second buckets, smoothed.
    #[default]
    Aws,
    /// The rate follows what the server admitted: every window of at
    /// least a second and 20 responses (or 4 throttles) measures what the
    /// client sent and the share throttled; a window with throttles sets
    /// the rate to 0.95 times what was admitted, one without raises it:
    /// by 5%, doubling with each clean window in a row up to 80%, back to
    /// what the server last admitted, and by 2% past that. The CUBIC parameters (`scale_constant`, `beta`,
    /// `smoothing`, `rate_bucket`) play no part once on.
    Tracking,
}

impl AdaptiveMode {
    /// Its name in configuration files and on the command line: `aws` or
    /// `tracking`.
    pub const fn name(self) -> &'static str {
        match self {
            AdaptiveMode::Aws => "aws",
            AdaptiveMode::Tracking => "tracking",
        }
    }
}

impl fmt::Display for AdaptiveMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown mode name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMode(String);

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown adaptive mode {:?}: expected aws or tracking", self.0)
    }
}

impl std::error::Error for UnknownMode {}

impl FromStr for AdaptiveMode {
    type Err = UnknownMode;

    fn from_str(name: &str) -> Result<Self, UnknownMode> {
        match name {
            "aws" => Ok(AdaptiveMode::Aws),
            "tracking" => Ok(AdaptiveMode::Tracking),
            _ => Err(UnknownMode(name.chars().take(40).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_named() {
        for mode in [AdaptiveMode::Aws, AdaptiveMode::Tracking] {
            assert_eq!(mode.name().parse::<AdaptiveMode>(), Ok(mode));
        }
        let err = "cubic".parse::<AdaptiveMode>().unwrap_err();
        assert_eq!(err.to_string(), "unknown adaptive mode \"cubic\": expected aws or tracking");
    }
}
