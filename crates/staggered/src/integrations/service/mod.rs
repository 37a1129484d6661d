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

use core::convert::Infallible;
use core::future::Future;

pub use crate::classify::{ByResult, ClassifyResult};
pub use crate::retry::judge::{Always, Ready};
pub use crate::retry::retrying::NoCancel;
use crate::Cancelled;
pub use crate::FailedAttempt;

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

/// A request's cancel signal, for the service drivers (the tower layer, the
/// reqwest middleware), which make one per request: [`NoCancel`] (never),
/// or any `Fn() -> impl Future<Output = ()>`, such as
/// `move || token.clone().cancelled_owned()` for `tokio_util`'s
/// `CancellationToken`. When it fires, the request stops at once with the
/// last failed attempt's outcome, or, when none had ended, with
/// `E::from(Cancelled)`.
pub trait CancelSignal<E> {
    /// What the signal completes with.
    type Fired: CancelError<E>;
    /// The signal of one request.
    type Signal: Future<Output = Self::Fired>;
    /// The signal of a new request.
    fn signal(&self) -> Self::Signal;
}

/// The error a fired cancel signal gives a request that has no outcome of
/// its own: [`Cancelled`], in the service's error type.
pub trait CancelError<E> {
    /// The error.
    fn into_error(self) -> E;
}

impl<E> CancelError<E> for Infallible {
    fn into_error(self) -> E {
        match self {}
    }
}

impl<E: From<Cancelled>> CancelError<E> for () {
    fn into_error(self) -> E {
        E::from(Cancelled)
    }
}

impl<E> CancelSignal<E> for NoCancel {
    type Fired = Infallible;
    type Signal = core::future::Pending<Infallible>;
    fn signal(&self) -> Self::Signal {
        core::future::pending()
    }
}

impl<E: From<Cancelled>, F: Fn() -> Fut, Fut: Future<Output = ()>> CancelSignal<E> for F {
    type Fired = ();
    type Signal = Fut;
    fn signal(&self) -> Fut {
        self()
    }
}

/// What a service driver gives its caller when the retrying stops: the last
/// failed attempt's outcome as it came; when no attempt had ended, the
/// error `fired` by the cancel signal, or else a [`TimedOut`](crate::TimedOut)
/// after no time at all: the rate limiter had no token for attempt 1
/// before the deadline.
#[cfg(any(feature = "tower", feature = "reqwest"))]
pub(crate) fn give_back<Res, Err: From<crate::TimedOut>>(
    stopped: crate::retry::operation::Stopped<FailedAttempt<Res, Err>>,
    fired: Option<Err>,
) -> Result<Res, Err> {
    match (stopped.last, fired) {
        (Some(failed), _) => failed.into_result(),
        (None, Some(error)) => Err(error),
        (None, None) => Err(Err::from(crate::TimedOut { after: core::time::Duration::ZERO })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_cloned_by_clone() {
        assert_eq!(ByClone.clone_request(&5), Some(5));
    }
}
