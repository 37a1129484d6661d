//! The error of configuring an overload experiment.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use staggered::config::format_duration as human;
use staggered::{ConfigError, Field};

use super::{OverloadPolicy, MAX_ATTEMPTS, MAX_DURATION, MAX_OPERATIONS};

/// An overload experiment could not be configured: which parameter is wrong
/// and why. Messages name the parameter as a CLI flag would (`duration`,
/// `arrival-rate`, `service-rate`, `timeout`, `trigger`, `trigger-capacity`,
/// `error-rate`, `policies`, `backoff`, `recovery-threshold`,
/// `recovery-window`), and budgets by their policy;
/// [`parameter`](OverloadError::parameter) names it alone.
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
        /// The run's duration.
        duration: Duration,
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
    /// The operations expected times the backoff's `max_attempts` are above
    /// [`MAX_ATTEMPTS`]: at worst, the run would take too long.
    TooManyAttempts(f64),
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
                write!(f, "invalid duration {}: must be between 1s and {}", human(*d), human(MAX_DURATION))
            }
            ArrivalRate(v) => {
                write!(f, "invalid arrival-rate {v}: must be a finite number of requests per second above 0")
            }
            ServiceRate(v) => {
                write!(f, "invalid service-rate {v}: must be a finite number of requests per second above 0")
            }
            Timeout(d) => write!(f, "invalid timeout {}: must be above 0", human(*d)),
            TriggerWindow { start, end, duration } => {
                write!(f, "invalid trigger {}..{}: ", human(*start), human(*end))?;
                if start >= end {
                    f.write_str("must start before it ends")
                } else {
                    write!(f, "ends after the run's duration, {}", human(*duration))
                }
            }
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
                write!(
                    f,
                    "invalid recovery-window {}: must be a whole number of seconds, at least 1",
                    human(*d)
                )
            }
            TooManyOperations(n) => write!(
                f,
                "invalid arrival-rate and duration: {n:.0} operations expected, at most {MAX_OPERATIONS}"
            ),
            TooManyAttempts(n) => write!(
                f,
                "invalid backoff: the operations expected times max_attempts could be {n:.0} attempts, more \
                 than the limit of {MAX_ATTEMPTS:e}"
            ),
            // The library's reason is the source: the chain shows it once.
            Budget { policy, .. } => write!(f, "invalid budget for {policy}"),
        }
    }
}

impl OverloadError {
    /// The parameter at fault, as the CLI flag spells it (`duration`,
    /// `arrival-rate`, `service-rate`, `timeout`, `trigger`,
    /// `trigger-capacity`, `error-rate`, `policies`, `backoff`,
    /// `recovery-threshold`, `recovery-window`); a budget's by its policy and
    /// field (`ratio-ttl`, `ratio-percent`, `throttle-max-tokens`,
    /// `throttle-token-ratio`), or the policy's name. Too many operations
    /// blame `arrival-rate`, though the duration shares the blame.
    pub fn parameter(&self) -> &'static str {
        use OverloadError::*;
        match self {
            Duration(_) => "duration",
            ArrivalRate(_) | TooManyOperations(_) => "arrival-rate",
            ServiceRate(_) => "service-rate",
            Timeout(_) => "timeout",
            TriggerWindow { .. } => "trigger",
            TriggerCapacity(_) => "trigger-capacity",
            ErrorRate(_) => "error-rate",
            NoPolicies | DuplicatePolicy(_) | UnknownPolicy(_) => "policies",
            UnboundedBackoff | TooManyAttempts(_) => "backoff",
            RecoveryThreshold(_) => "recovery-threshold",
            RecoveryWindow(_) => "recovery-window",
            Budget { policy, source } => match source.field() {
                Field::Ttl => "ratio-ttl",
                Field::RetryPercent => "ratio-percent",
                Field::MaxTokens => "throttle-max-tokens",
                Field::TokenRatio => "throttle-token-ratio",
                _ => policy.name(),
            },
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
