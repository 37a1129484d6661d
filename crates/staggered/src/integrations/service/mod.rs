//! What the request/response integrations share: how a result is classified,
//! how a request is cloned for a retry, and what the hooks see of a failed
//! attempt.
//!
//! A service call ends in a response or an error, and a response can be a
//! failure too (an HTTP 503). So the integrations classify the whole
//! `Result` with a [`ClassifyResult`]: `None` is a success, `Some(failure)`
//! a failed attempt, decided on by the same [`Decision`](crate::Decision) as
//! every other driver. Every classifier of errors is one (it accepts every
//! response); [`ByResult`] wraps a closure over the whole `Result`. A
//! request is retried only if it can be cloned before it is sent
//! ([`CloneRequest`], like tower's `Policy::clone_request`); one that cannot
//! is sent once.
//!
//! ```
//! use staggered::service::{ByResult, ClassifyResult, CloneRequest};
//! use staggered::classify::io::classify_io;
//! use staggered::{ErrorKind, Failure};
//!
//! // A classifier of errors classifies results: every response succeeds ...
//! let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
//! assert_eq!(classify_io.classify_result(Err::<&u16, _>(&refused)), Some(Failure::TRANSIENT));
//! assert_eq!(classify_io.classify_result(Ok::<_, &std::io::Error>(&503)), None);
//!
//! // ... and `ByResult` judges the responses too.
//! let classify = ByResult(|result: Result<&u16, &std::io::Error>| match result {
//!     Ok(&status) if status >= 500 => Some(Failure::TRANSIENT),
//!     Ok(_) => None,
//!     Err(_) => Some(Failure::TRANSIENT),
//! });
//! assert_eq!(classify.classify_result(Ok(&503)).map(|f| f.kind), Some(ErrorKind::Transient));
//!
//! // Any closure from `&Request` to `Option<Request>` clones requests.
//! let only_short = |request: &String| (request.len() < 10).then(|| request.clone());
//! assert_eq!(only_short.clone_request(&"GET /".to_owned()), Some("GET /".to_owned()));
//! ```

#[cfg(any(feature = "tower", feature = "reqwest", feature = "tonic"))]
pub(crate) mod attempts;

use core::fmt;

pub use crate::classify::{ByResult, ClassifyResult};

/// Makes the copy of a request that a retry sends; `None` means the request
/// cannot be repeated, so it is sent once and never retried.
///
/// [`ByClone`] (the default) uses `Clone`; any `Fn(&Req) -> Option<Req>` is
/// one too (`|r: &reqwest::Request| r.try_clone()`), and
/// `http::IdempotentOnly` (feature `http`) clones
/// only the HTTP requests that are safe to repeat.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot copy `{Req}` requests for a retry",
    label = "not a request cloner for `{Req}`",
    note = "the default, `ByClone`, needs `{Req}: Clone`; any `Fn(&{Req}) -> Option<{Req}>` clones requests, \
            `None` sending one once (`RetryLayer::clone_requests_with`)"
)]
pub trait CloneRequest<Req> {
    /// A copy of `request` to send on a later attempt, if it can be repeated.
    fn clone_request(&self, request: &Req) -> Option<Req>;
}

/// Clones every request with `Clone`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByClone;

impl<Req: Clone> CloneRequest<Req> for ByClone {
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        Some(request.clone())
    }
}

impl<Req, F: Fn(&Req) -> Option<Req>> CloneRequest<Req> for F {
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        self(request)
    }
}

/// A failed attempt, as the hooks ([`RetryEvent::error`](crate::RetryEvent))
/// and the `tracing` events see it: the response the classifier called a
/// failure, or the error.
///
/// It displays as the error, or as the classifier's
/// [`describe`](ClassifyResult::describe) of the response
/// (`HTTP 503 Service Unavailable` for the HTTP classifier).
pub struct FailedAttempt<Res, Err> {
    result: Result<Res, Err>,
    describe: fn(&Res, &mut fmt::Formatter<'_>) -> fmt::Result,
}

impl<Res, Err> FailedAttempt<Res, Err> {
    /// A failed attempt whose responses `C` describes.
    pub fn new<C: ClassifyResult<Res, Err>>(result: Result<Res, Err>) -> Self {
        FailedAttempt { result, describe: C::describe }
    }

    /// The name of the type of what failed, the response's or the error's,
    /// for the `tracing` events' `error_type`.
    pub fn type_name(&self) -> &'static str {
        match self.result {
            Ok(_) => core::any::type_name::<Res>(),
            Err(_) => core::any::type_name::<Err>(),
        }
    }

    /// The response, if the attempt ended in one.
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
        assert_eq!(ByClone.clone_request(&5), Some(5));
    }
}
