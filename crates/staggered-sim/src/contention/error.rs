//! The error of configuring a contention experiment.

use std::error::Error;
use std::fmt;

use staggered::ConfigError;

use super::ContentionStrategy;

/// A contention experiment could not be configured: which parameter is wrong
/// and why. Messages name the parameter as the CLI flag does (`clients`,
/// `runs`, `strategies`, `base`, `cap`, `hop-mean`, `hop-sd`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentionError {
    /// No client count was given.
    NoClients,
    /// A client count is 0 or above [`MAX_CLIENTS`](super::MAX_CLIENTS).
    Clients(u32),
    /// A client count was given twice.
    DuplicateClients(u32),
    /// `runs` is 0: a point is the mean of at least one run.
    ZeroRuns,
    /// No strategy was given.
    NoStrategies,
    /// A strategy was given twice.
    DuplicateStrategy(ContentionStrategy),
    /// A strategy name is not one of SPEC's (or `none`).
    UnknownStrategy(String),
    /// `base` is negative, NaN, infinite or too large for a `Duration`.
    Base(f64),
    /// `cap` is negative, NaN, infinite or too large for a `Duration`.
    Cap(f64),
    /// The mean hop delay is negative, NaN or infinite.
    HopMean(f64),
    /// The hop delay's standard deviation is negative, NaN or infinite.
    HopSd(f64),
    /// The library refused the schedule built for `strategy` from `base` and
    /// `cap` (for example a cap below the first delay).
    Schedule {
        /// The strategy whose schedule was refused.
        strategy: ContentionStrategy,
        /// The library's reason; its values are in milliseconds, one per time unit.
        source: ConfigError,
    },
}

impl fmt::Display for ContentionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ContentionError::*;
        match self {
            NoClients => f.write_str("invalid clients: give at least one client count"),
            Clients(n) => {
                write!(f, "invalid clients {n}: must be between 1 and {}", super::MAX_CLIENTS)
            }
            DuplicateClients(n) => write!(f, "invalid clients: {n} is given twice"),
            ZeroRuns => f.write_str("invalid runs 0: must be at least 1"),
            NoStrategies => f.write_str("invalid strategies: give at least one strategy"),
            DuplicateStrategy(s) => write!(f, "invalid strategies: {s} is given twice"),
            UnknownStrategy(name) => write!(
                f,
                "unknown strategy {name:?}: expected one of none, constant, exponential, full, \
                 equal, decorrelated, proportional, additive, smooth"
            ),
            Base(v) => write!(f, "invalid base {v}: must be a finite number of time units, at least 0"),
            Cap(v) => write!(f, "invalid cap {v}: must be a finite number of time units, at least 0"),
            HopMean(v) => write!(f, "invalid hop-mean {v}: must be a finite number, at least 0"),
            HopSd(v) => write!(f, "invalid hop-sd {v}: must be a finite number, at least 0"),
            Schedule { strategy, source } => {
                write!(f, "invalid schedule for {strategy} (1 time unit = 1ms): {source}")
            }
        }
    }
}

impl Error for ContentionError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ContentionError::Schedule { source, .. } => Some(source),
            _ => None,
        }
    }
}
