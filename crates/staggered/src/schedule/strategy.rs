//! The strategies (how each delay is drawn) and the cap modes (where
//! `max_delay` applies).

use core::fmt;
use core::str::FromStr;

/// How the delay before each retry is computed, with `x(r) = min(max_delay, base * multiplier^(r-1))`
/// for retry `r` (the wait after attempt `r` failed) and `U[a, b]` uniform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// `base` every time: the plain fixed-interval retry.
    Constant,
    /// `x(r)` with no jitter. The anti-pattern the AWS Architecture Blog's
    /// "Exponential Backoff And Jitter" (2015) warns about: a fleet
    /// that failed together retries together. Kept for comparison.
    Exponential,
    /// `U[0, x(r)]`: the AWS Architecture Blog's recommendation (2015), least
    /// total work under contention.
    Full,
    /// `x(r)/2 + U[0, x(r)/2]`: always waits at least half the interval
    /// (the AWS Architecture Blog, 2015).
    Equal,
    /// `d(r) = min(max_delay, U[base, 3*d(r-1)])`, `d(0) = base` (the AWS
    /// Architecture Blog, 2015). Once it
    /// saturates about a quarter of all delays are exactly `max_delay` (its
    /// clamp loses the jitter there); [`Strategy::Smooth`] exists to fix that.
    Decorrelated,
    /// `U[x(r)*(1-f), x(r)*(1+f)]` with `f` the randomization factor:
    /// google-http-java-client's `ExponentialBackOff` and gRPC's connection
    /// backoff (f = 0.2).
    Proportional,
    /// `x(r) + U[0, x(r)*f]` with `f` the jitter factor: Google Cloud's
    /// truncated exponential backoff adds its random extra the same way.
    Additive,
    /// Polly's "DecorrelatedJitterBackoffV2": for retry `r`, `t = r-1 + U[0,1)`,
    /// `next = 2^t * tanh(sqrt(4t))`, delay `(next - prev) / 1.4 * base`,
    /// capped. `base` is then about the median first delay and later medians
    /// fall near 2, 4, 8 x base, with no pile-up on a clamp.
    ///
    /// Where Polly clamps every delay to `max_delay` once the formula outgrows
    /// it (losing all jitter there), `smooth` stops growing at the last retry
    /// whose largest delay fits under `max_delay` and keeps drawing from that
    /// retry's distribution, so a saturated fleet stays spread out.
    Smooth,
}

impl Strategy {
    /// Every strategy, in the order of this enum.
    pub const ALL: [Strategy; 8] = [
        Strategy::Constant,
        Strategy::Exponential,
        Strategy::Full,
        Strategy::Equal,
        Strategy::Decorrelated,
        Strategy::Proportional,
        Strategy::Additive,
        Strategy::Smooth,
    ];

    /// The name: `constant`, `exponential`, `full`, `equal`,
    /// `decorrelated`, `proportional`, `additive` or `smooth`.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Constant => "constant",
            Strategy::Exponential => "exponential",
            Strategy::Full => "full",
            Strategy::Equal => "equal",
            Strategy::Decorrelated => "decorrelated",
            Strategy::Proportional => "proportional",
            Strategy::Additive => "additive",
            Strategy::Smooth => "smooth",
        }
    }

    /// Whether the delay is random (all but `constant` and `exponential`).
    pub const fn is_jittered(self) -> bool {
        !matches!(self, Strategy::Constant | Strategy::Exponential)
    }

    /// Whether the strategy reads `multiplier` (`constant`, `decorrelated`
    /// and `smooth` have their own growth, or none).
    pub const fn uses_multiplier(self) -> bool {
        !matches!(self, Strategy::Constant | Strategy::Decorrelated | Strategy::Smooth)
    }

    /// Whether the strategy reads the randomization / jitter factor `f`.
    pub const fn uses_factor(self) -> bool {
        matches!(self, Strategy::Proportional | Strategy::Additive)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown [`Strategy`] or [`CapMode`] name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    what: &'static str,
    expected: &'static str,
}

impl UnknownName {
    pub(crate) const fn new(what: &'static str, expected: &'static str) -> Self {
        UnknownName { what, expected }
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {}: expected one of {}", self.what, self.expected)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownName {}

impl FromStr for Strategy {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL.into_iter().find(|strategy| strategy.name().eq_ignore_ascii_case(s)).ok_or(
            UnknownName::new(
                "strategy",
                "constant, exponential, full, equal, decorrelated, proportional, additive, smooth",
            ),
        )
    }
}

/// Where `max_delay` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CapMode {
    /// The default: no delay ever exceeds `max_delay`. For `proportional` and
    /// `additive` the interval shrinks to `max_delay / (1 + f)` so the whole
    /// random range fits under the cap, instead of piling probability on it.
    #[default]
    Delay,
    /// Compatibility: the cap applies to the interval `x(r)` before
    /// randomizing, as google-http-java-client ("max_interval caps the
    /// retry_interval and not the randomized_interval") and gRPC do. A `proportional` or `additive` delay can then reach
    /// `max_delay * (1 + f)`.
    Interval,
}

impl CapMode {
    /// The name used on the command line and in configuration: `delay` or `interval`.
    pub const fn name(self) -> &'static str {
        match self {
            CapMode::Delay => "delay",
            CapMode::Interval => "interval",
        }
    }
}

impl fmt::Display for CapMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CapMode {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [CapMode::Delay, CapMode::Interval]
            .into_iter()
            .find(|mode| mode.name().eq_ignore_ascii_case(s))
            .ok_or(UnknownName::new("cap mode", "delay, interval"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>(), Ok(strategy));
        }
        assert_eq!("INTERVAL".parse::<CapMode>(), Ok(CapMode::Interval));
        let err = "fibonacci".parse::<Strategy>().unwrap_err();
        assert!(err.to_string().contains("unknown strategy"), "{err}");
    }
}
