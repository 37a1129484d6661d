//! The error of configuring a throttling experiment.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use staggered::config::format_duration as human;
use staggered::ConfigError;

use super::{ThrottlingPolicy, MAX_THROTTLING_CLIENTS, MAX_THROTTLING_HOP, MAX_THROTTLING_OPERATIONS};
use crate::{MAX_ATTEMPTS, MAX_DURATION};

/// A throttling experiment could not be configured: which parameter is
/// wrong and why. Messages name the parameter as a CLI flag would
/// (`duration`, `clients`, `arrival-rate`, `rate-limit`, `hop`, `policies`,
/// `backoff`, `limiter`); [`parameter`](ThrottlingError::parameter) names it
/// alone.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ThrottlingError {
    /// `duration` is under 1 s or over [`MAX_DURATION`].
    Duration(Duration),
    /// `clients` is 0 or above [`MAX_THROTTLING_CLIENTS`].
    Clients(u32),
    /// `arrival-rate` (operations per second, all clients together) is not
    /// a finite number above 0.
    ArrivalRate(f64),
    /// `rate-limit` (requests per second the server admits) is not a finite
    /// number above 0.
    RateLimit(f64),
    /// `hop` (one network hop) is above [`MAX_THROTTLING_HOP`].
    Hop(Duration),
    /// No policy was given.
    NoPolicies,
    /// A policy was given twice.
    DuplicatePolicy(ThrottlingPolicy),
    /// A policy name is not one of [`ThrottlingPolicy::name`]'s.
    UnknownPolicy(String),
    /// The backoff has neither `max_attempts` nor a deadline, so an
    /// operation might retry forever.
    UnboundedBackoff,
    /// `arrival-rate * duration` is above [`MAX_THROTTLING_OPERATIONS`].
    TooManyOperations(f64),
    /// The operations expected times the backoff's `max_attempts` are above
    /// [`MAX_ATTEMPTS`].
    TooManyAttempts(f64),
    /// The library refused the adaptive limiter's parameters.
    Limiter(ConfigError),
}

impl fmt::Display for ThrottlingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ThrottlingError::*;
        match self {
            Duration(d) => {
                write!(f, "invalid duration {}: must be between 1s and {}", human(*d), human(MAX_DURATION))
            }
            Clients(n) => write!(f, "invalid clients {n}: must be from 1 to {MAX_THROTTLING_CLIENTS}"),
            ArrivalRate(v) => write!(
                f,
                "invalid arrival-rate {v}: must be a finite number of operations per second above 0"
            ),
            RateLimit(v) => {
                write!(f, "invalid rate-limit {v}: must be a finite number of requests per second above 0")
            }
            Hop(d) => write!(f, "invalid hop {}: must be at most {}", human(*d), human(MAX_THROTTLING_HOP)),
            NoPolicies => f.write_str("invalid policies: give at least one policy"),
            DuplicatePolicy(p) => write!(f, "invalid policies: {p} is given twice"),
            UnknownPolicy(name) => write!(
                f,
                "unknown policy {name:?}: expected one of no-retry, retry, retry+token-bucket, adaptive"
            ),
            UnboundedBackoff => {
                f.write_str("invalid backoff: set max_attempts or a deadline, so that every operation ends")
            }
            TooManyOperations(n) => write!(
                f,
                "invalid arrival-rate and duration: {n:.0} operations expected, at most \
                 {MAX_THROTTLING_OPERATIONS} (the clients' queues are held in memory)"
            ),
            TooManyAttempts(n) => write!(
                f,
                "invalid backoff: the operations expected times max_attempts could be {n:.0} attempts, more \
                 than the limit of {MAX_ATTEMPTS:e}"
            ),
            // The library's reason is the source: the chain shows it once.
            Limiter(_) => f.write_str("invalid limiter for adaptive"),
        }
    }
}

impl ThrottlingError {
    /// The parameter at fault, as the CLI flag spells it (`duration`,
    /// `clients`, `arrival-rate`, `rate-limit`, `hop`, `policies`,
    /// `backoff`, `limiter`). Too many operations blame `arrival-rate`,
    /// though the duration shares the blame.
    pub fn parameter(&self) -> &'static str {
        use ThrottlingError::*;
        match self {
            Duration(_) => "duration",
            Clients(_) => "clients",
            ArrivalRate(_) | TooManyOperations(_) => "arrival-rate",
            RateLimit(_) => "rate-limit",
            Hop(_) => "hop",
            NoPolicies | DuplicatePolicy(_) | UnknownPolicy(_) => "policies",
            UnboundedBackoff | TooManyAttempts(_) => "backoff",
            Limiter(_) => "limiter",
        }
    }
}

impl Error for ThrottlingError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ThrottlingError::Limiter(source) => Some(source),
            _ => None,
        }
    }
}
