//! The error of configuring an overload experiment.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use staggered::ConfigError;

use super::{OverloadPolicy, MAX_DURATION, MAX_OPERATIONS};

/// An overload experiment could not be configured: which parameter is wrong
/// and why. Messages name the parameter as a CLI flag would (`duration`,
/// `arrival-rate`, `service-rate`, `timeout`, `trigger`, `trigger-capacity`,
/// `error-rate`, `policies`, `backoff`, `recovery-threshold`,
/// `recovery-window`), and budgets by their policy.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OverloadError {
    /// `duration` is under 1 s (no whole second to measure) or over
    /// [`MAX_DURATION`].
    Duration(Duration),
    /// `arrival-rate` (first attempts per second) is not a finite number above 0.
    ArrivalRate(f64),
    /// `service-rate` (requests per second) is not a finite number above 0.
    ServiceRate(f64),
    /// `timeout` is zero: no attempt could ever succeed.
    Timeout(Duration),
    /// The trigger does not start before it ends, or ends after `duration`.
    TriggerWindow {
        /// When the trigger starts.
        start: Duration,
        /// When it ends.
        end: Duration,
    },
    /// `trigger-capacity` (the fraction of the service rate left during the
    /// trigger) is not a finite number above 0.
    TriggerCapacity(f64),
    /// `error-rate` is not a probability (0 to 1).
    ErrorRate(f64),
    /// No policy was given.
    NoPolicies,
    /// A policy was given twice.
    DuplicatePolicy(OverloadPolicy),
    /// A policy name is not one of [`OverloadPolicy::name`]'s.
    UnknownPolicy(String),
    /// The backoff has neither `max_attempts` nor a deadline, so an
    /// operation might retry forever.
    UnboundedBackoff,
    /// `recovery-threshold` (the share of the offered load that goodput must
    /// reach) is not a number above 0 and at most 1.
    RecoveryThreshold(f64),
    /// `recovery-window` is not a whole number of seconds, at least 1.
    RecoveryWindow(Duration),
    /// `arrival-rate * duration` is above [`MAX_OPERATIONS`]: the run would take too long.
    TooManyOperations(f64),
    /// The library refused a budget's parameters.
    Budget {
        /// The policy whose budget was refused.
        policy: OverloadPolicy,
        /// The library's reason.
        source: ConfigError,
    },
}

impl fmt::Display for OverloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use OverloadError::*;
        match self {
            Duration(d) => {
                write!(f, "invalid duration {d:?}: must be between 1s and {MAX_DURATION:?}")
            }
            ArrivalRate(v) => {
                write!(f, "invalid arrival-rate {v}: must be a finite number of requests per second above 0")
            }
            ServiceRate(v) => {
                write!(f, "invalid service-rate {v}: must be a finite number of requests per second above 0")
            }
            Timeout(d) => write!(f, "invalid timeout {d:?}: must be above 0"),
            TriggerWindow { start, end } => write!(
                f,
                "invalid trigger {start:?}..{end:?}: must start before it ends, and end within the duration"
            ),
            TriggerCapacity(v) => write!(
                f,
                "invalid trigger-capacity {v}: must be a finite fraction of the service rate above 0"
            ),
            ErrorRate(v) => write!(f, "invalid error-rate {v}: must be a probability between 0 and 1"),
            NoPolicies => f.write_str("invalid policies: give at least one policy"),
            DuplicatePolicy(p) => write!(f, "invalid policies: {p} is given twice"),
            UnknownPolicy(name) => write!(
                f,
                "unknown policy {name:?}: expected one of no-retry, retry, retry+token-bucket, \
                 retry+ratio, retry+throttle"
            ),
            UnboundedBackoff => {
                f.write_str("invalid backoff: set max_attempts or a deadline, so that every operation ends")
            }
            RecoveryThreshold(v) => {
                write!(f, "invalid recovery-threshold {v}: must be above 0 and at most 1")
            }
            RecoveryWindow(d) => {
                write!(f, "invalid recovery-window {d:?}: must be a whole number of seconds, at least 1")
            }
            TooManyOperations(n) => write!(
                f,
                "invalid arrival-rate and duration: {n:.0} operations expected, at most {MAX_OPERATIONS}"
            ),
            Budget { policy, source } => write!(f, "invalid budget for {policy}: {source}"),
        }
    }
}

impl Error for OverloadError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            OverloadError::Budget { source, .. } => Some(source),
            _ => None,
        }
    }
}
