//! A failed attempt that may not be an error: a response a classifier
//! called a failure (an HTTP 503), or a value not ready yet
//! ([`Retrying::until`](crate::Retrying::until)).

use core::fmt;

use crate::classify::ClassifyResult;

/// A failed attempt, as the hooks ([`RetryEvent::error`](crate::RetryEvent))
/// and the `tracing` events see it: the response or value judged a
/// failure, or the error.
///
/// It displays as the error, or as a description of the value (for the
/// HTTP classifier, the status: `HTTP 503 Service Unavailable`; for a value
/// that was not ready, `not ready`).
pub struct FailedAttempt<Res, Err> {
    result: Result<Res, Err>,
    describe: fn(&Res, &mut fmt::Formatter<'_>) -> fmt::Result,
}

impl<Res, Err> FailedAttempt<Res, Err> {
    /// A failed attempt whose responses `C` describes.
    pub fn new<C: ClassifyResult<Res, Err>>(result: Result<Res, Err>) -> Self {
        FailedAttempt { result, describe: C::describe }
    }

    /// An attempt whose value was not ready.
    pub(crate) fn not_ready(value: Res) -> Self {
        FailedAttempt { result: Ok(value), describe: |_, f| f.write_str("not ready") }
    }

    /// An attempt that failed with `error`.
    pub(crate) fn failed_with(error: Err) -> Self {
        FailedAttempt { result: Err(error), describe: |_, f| f.write_str("unsuccessful response") }
    }

    /// The name of the type of what failed, the response's or the error's,
    /// for the `tracing` events' `error_type`.
    pub fn type_name(&self) -> &'static str {
        match self.result {
            Ok(_) => core::any::type_name::<Res>(),
            Err(_) => core::any::type_name::<Err>(),
        }
    }

    /// The response or value, if the attempt returned one.
    pub fn response(&self) -> Option<&Res> {
        self.result.as_ref().ok()
    }

    /// The error, if the attempt ended in one.
    pub fn error(&self) -> Option<&Err> {
        self.result.as_ref().err()
    }

    /// The outcome, by reference.
    pub fn as_result(&self) -> Result<&Res, &Err> {
        self.result.as_ref()
    }

    /// The outcome, by value: what the caller gets when retrying stops.
    pub fn into_result(self) -> Result<Res, Err> {
        self.result
    }
}

impl<Res, Err: fmt::Display> fmt::Display for FailedAttempt<Res, Err> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.result {
            Ok(response) => (self.describe)(response, f),
            Err(error) => error.fmt(f),
        }
    }
}

impl<Res, Err: fmt::Debug> fmt::Debug for FailedAttempt<Res, Err> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.result {
            Ok(response) => {
                f.write_str("FailedAttempt::Response(")?;
                (self.describe)(response, f)?;
                f.write_str(")")
            }
            Err(error) => f.debug_tuple("FailedAttempt::Error").field(error).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AlwaysTransient;

    #[test]
    fn failed_attempts_display_the_error_or_the_description() {
        let failed = FailedAttempt::<u8, &str>::new::<AlwaysTransient>(Err("refused"));
        assert_eq!(failed.to_string(), "refused");
        assert_eq!(format!("{failed:?}"), "FailedAttempt::Error(\"refused\")");
        let failed = FailedAttempt::<u8, &str>::new::<AlwaysTransient>(Ok(7));
        assert_eq!(failed.to_string(), "unsuccessful response");
        assert_eq!(failed.response(), Some(&7));
        assert_eq!(failed.into_result(), Ok(7));
        assert_eq!(FailedAttempt::<u8, &str>::not_ready(3).to_string(), "not ready");
    }
}
