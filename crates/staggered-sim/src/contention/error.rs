//! The error of configuring a contention experiment.

use std::error::Error;
use std::fmt;

use staggered::ConfigError;

use super::ContentionStrategy;
use crate::view::number;

/// A contention experiment could not be configured: which parameter is wrong
/// and why. Messages name the parameter as the CLI flag does (`clients`,
/// `runs`, `strategies`, `base`, `cap`, `hop-mean`, `hop-sd`), and
/// [`parameter`](ContentionError::parameter) names it alone.
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
    /// A strategy name is not one of the library's (or `none`).
    UnknownStrategy(String),
    /// `base` is negative, NaN, infinite or too large for a `Duration`.
    Base(f64),
    /// `cap` is negative, NaN, infinite or too large for a `Duration`.
    Cap(f64),
    /// The mean hop delay is negative, NaN or infinite.
    HopMean(f64),
    /// The hop delay's standard deviation is negative, NaN or infinite.
    HopSd(f64),
    /// `cap` is below `strategy`'s first delay, `first` time units (twice
    /// the base for the exponential family, the base for decorrelated).
    FirstDelay {
        /// The strategy whose first delay the cap is below.
        strategy: ContentionStrategy,
        /// The cap, in time units.
        cap: f64,
        /// The first delay, in time units.
        first: f64,
    },
    /// The experiment holds more than [`MAX_TOTAL_RUNS`](super::MAX_TOTAL_RUNS)
    /// runs (client counts x strategies x runs).
    TooManyRuns(f64),
    /// The experiment is more than [`MAX_CLIENT_PAIRS`](super::MAX_CLIENT_PAIRS)
    /// client pairs of work.
    TooMuchWork(f64),
    /// The library refused the schedule built for `strategy` from `base` and
    /// `cap`, for a reason other than those above.
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
            FirstDelay { strategy, cap, first } => write!(
                f,
                "invalid cap {}: below {strategy}'s first delay, {} time units; the cap must be at least \
                 that",
                number(*cap),
                number(*first)
            ),
            TooManyRuns(runs) => write!(
                f,
                "invalid clients, strategies and runs: {} runs in all (client counts x strategies x runs), \
                 more than the limit of {}",
                number(*runs),
                super::MAX_TOTAL_RUNS
            ),
            TooMuchWork(pairs) => write!(
                f,
                "invalid clients, strategies and runs: {:.3e} client pairs of work (clients^2 summed over every \
                 client count, strategy and run), more than the limit of {:e}; a run of N clients may make \
                 N^2/6 calls",
                pairs,
                super::MAX_CLIENT_PAIRS
            ),
            // The library's reason is the source: the chain shows it once.
            Schedule { strategy, .. } => write!(f, "invalid schedule for {strategy}"),
        }
    }
}

impl ContentionError {
    /// The parameter at fault, as the CLI flag spells it: `clients`, `runs`,
    /// `strategies`, `base`, `cap`, `hop-mean` or `hop-sd`. For a whole
    /// experiment that is too large, `runs`, the usual one to lower.
    pub fn parameter(&self) -> &'static str {
        use ContentionError::*;
        match self {
            NoClients | Clients(_) | DuplicateClients(_) => "clients",
            ZeroRuns | TooManyRuns(_) | TooMuchWork(_) => "runs",
            NoStrategies | DuplicateStrategy(_) | UnknownStrategy(_) => "strategies",
            Base(_) => "base",
            Cap(_) | FirstDelay { .. } | Schedule { .. } => "cap",
            HopMean(_) => "hop-mean",
            HopSd(_) => "hop-sd",
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
