//! The error of configuring a frontier.

use std::error::Error;
use std::fmt;

use staggered::ConfigError;

use super::Family;
use crate::view::number;
use crate::ContentionError;

/// A frontier could not be configured: which parameter is wrong and why.
/// Messages name the parameter as the CLI flag does (`families`, `scales`,
/// `multipliers`, `floors`, `margin`, and the contention experiment's
/// `clients`, `runs`, `references`, `base`, `cap`), and
/// [`parameter`](FrontierError::parameter) names it alone.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FrontierError {
    /// No family was given.
    NoFamilies,
    /// A family was given twice.
    DuplicateFamily(Family),
    /// A family name is not one of [`Family::ALL`].
    UnknownFamily(String),
    /// A list of parameter values is empty: the one named.
    NoValues(&'static str),
    /// A value was given twice in the list of the parameter named.
    DuplicateValue(&'static str, f64),
    /// A scale is not a positive finite number, or too large for a `Duration`.
    Scale(f64),
    /// A multiplier is below 1, NaN or infinite.
    Multiplier(f64),
    /// A floor is outside `[0, 1]`.
    Floor(f64),
    /// The margin is negative, NaN or infinite.
    Margin(f64),
    /// The cap is too large for a `Duration`.
    Cap(f64),
    /// A candidate's first interval, `first` time units, is above the cap.
    FirstDelay {
        /// The candidate's name.
        candidate: String,
        /// The cap, in time units.
        cap: f64,
        /// The first interval's upper end, in time units.
        first: f64,
    },
    /// More candidates than [`MAX_CANDIDATES`](super::MAX_CANDIDATES).
    TooManyCandidates(usize),
    /// The library refused a candidate's schedule.
    Schedule {
        /// The candidate's name.
        candidate: String,
        /// The library's reason; its values are in milliseconds, one per time unit.
        source: ConfigError,
    },
    /// The contention experiment underneath refused a parameter it shares:
    /// client counts, runs, references (its strategies), base, cap or
    /// network, or the size of the whole frontier.
    Contention(ContentionError),
}

impl fmt::Display for FrontierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FrontierError::*;
        match self {
            NoFamilies => f.write_str("invalid families: give at least one family"),
            DuplicateFamily(family) => write!(f, "invalid families: {family} is given twice"),
            UnknownFamily(name) => write!(
                f,
                "unknown family {name:?}: expected one of {}",
                Family::ALL.map(Family::name).join(", ")
            ),
            NoValues(parameter) => write!(f, "invalid {parameter}: give at least one value"),
            DuplicateValue(parameter, value) => {
                write!(f, "invalid {parameter}: {} is given twice", number(*value))
            }
            Scale(v) => write!(f, "invalid scale {}: must be a positive number", number(*v)),
            Multiplier(v) => {
                write!(f, "invalid multiplier {}: must be a finite number, at least 1", number(*v))
            }
            Floor(v) => write!(f, "invalid floor {}: must be between 0 and 1", number(*v)),
            Margin(v) => write!(f, "invalid margin {}: must be a finite fraction, at least 0", number(*v)),
            Cap(v) => write!(f, "invalid cap {}: too large for a duration", number(*v)),
            FirstDelay { candidate, cap, first } => write!(
                f,
                "invalid scale for {candidate}: its first interval, {} time units, is above the cap, {}",
                number(*first),
                number(*cap)
            ),
            TooManyCandidates(n) => write!(
                f,
                "invalid families, scales, multipliers and floors: {n} candidates, more than the limit of {}",
                super::MAX_CANDIDATES
            ),
            // The library's reason is the source: the chain shows it once.
            Schedule { candidate, .. } => write!(f, "invalid schedule for {candidate}"),
            Contention(err) => err.fmt(f),
        }
    }
}

impl FrontierError {
    /// The parameter at fault, as the CLI flag spells it: `families`,
    /// `scales`, `multipliers`, `floors`, `margin`, or the contention
    /// experiment's (`references` for its strategies).
    pub fn parameter(&self) -> &'static str {
        use FrontierError::*;
        match self {
            NoFamilies | DuplicateFamily(_) | UnknownFamily(_) | TooManyCandidates(_) => "families",
            NoValues(parameter) | DuplicateValue(parameter, _) => parameter,
            Scale(_) | FirstDelay { .. } | Schedule { .. } => "scales",
            Multiplier(_) => "multipliers",
            Floor(_) => "floors",
            Margin(_) => "margin",
            Cap(_) => "cap",
            Contention(err) => match err.parameter() {
                "strategies" => "references",
                parameter => parameter,
            },
        }
    }
}

impl Error for FrontierError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            FrontierError::Schedule { source, .. } => Some(source),
            FrontierError::Contention(err) => err.source(),
            _ => None,
        }
    }
}

impl From<ContentionError> for FrontierError {
    fn from(err: ContentionError) -> Self {
        FrontierError::Contention(err)
    }
}
