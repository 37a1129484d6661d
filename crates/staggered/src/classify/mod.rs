//! Error classification: is a failed attempt worth retrying?
//!
//! Every failure is [`ErrorKind::Transient`] (retry), [`ErrorKind::Throttled`]
//! (retry, the server asked us to slow down) or [`ErrorKind::Permanent`]
//! (stop), optionally with a server [`Hint`].
//!
//! # One vocabulary
//! - A [`Classifier<E>`] classifies an operation's errors: any
//!   `Fn(&E) -> Failure` is one ([`io::classify_io`] for I/O errors),
//!   [`RetryIf`] turns a predicate into one, [`AlwaysTransient`] retries
//!   every error.
//! - A [`ClassifyResult<Res, Err>`] classifies what an attempt returned, a
//!   response or an error, for the integrations where a response can be a
//!   failure too (an HTTP 503). **Every classifier of errors is one**: it
//!   classifies the errors and accepts every response. That holds as they
//!   are for closures, functions, [`RetryIf`] and [`AlwaysTransient`], and
//!   in [`Errors`] for a [`Classifier`] type of your own.
//!   [`ClassifyHttp`](http::ClassifyHttp) and [`ByResult`] judge responses
//!   as well.
//! - A policy with no classifier set has [`DefaultRules`]: every error of a
//!   plain operation is transient, and a service's responses follow the
//!   rules their type knows ([`ResponseRules`]: the HTTP rules for `http`
//!   and reqwest responses). For any other service it does not compile
//!   until you choose a classifier, so no response is taken for a success
//!   by accident.
//!
//! [`http`], [`io`] and [`message`] hold ready-made rules; [`quota`] reads
//! what a server announces of its rate limit, and [`throttling`] the
//! throttling a response says in words (AWS error codes, GitHub's
//! secondary rate limit).

pub mod hint;
pub mod http;
#[cfg(feature = "std")]
pub mod io;
pub mod message;
pub mod quota;
mod result;
pub mod throttling;

pub use result::{ByResult, ClassifyResult, DefaultRules, Errors, ResponseRules};

use core::time::Duration;

/// What kind of failure an attempt ended in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Worth retrying: a reset connection, a timeout, a 5xx.
    Transient,
    /// Worth retrying, and the server said it is overloaded (a 429, a
    /// throttling error). Budgets may charge it differently.
    Throttled,
    /// Retrying cannot help: a 4xx, a validation error. Stops at once.
    Permanent,
}

impl ErrorKind {
    /// The name used in logs: `transient`, `throttled` or `permanent`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Transient => "transient",
            ErrorKind::Throttled => "throttled",
            ErrorKind::Permanent => "permanent",
        }
    }
}

/// What a server said about when to come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hint {
    /// Come back after at least this long (`Retry-After`, `x-amz-retry-after`,
    /// `grpc-retry-pushback-ms`).
    After(Duration),
    /// Do not come back (a negative `grpc-retry-pushback-ms`).
    Never,
}

/// The classification of one failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Failure {
    /// Transient, throttled or permanent.
    pub kind: ErrorKind,
    /// The server's hint, if it gave one.
    pub hint: Option<Hint>,
    /// Whether the attempt was cut by the per-attempt timeout. AWS's token
    /// bucket charges these more.
    pub timed_out: bool,
}

impl Failure {
    /// A transient failure with no hint.
    pub const TRANSIENT: Failure = Failure::new(ErrorKind::Transient);
    /// A throttled failure with no hint.
    pub const THROTTLED: Failure = Failure::new(ErrorKind::Throttled);
    /// A permanent failure.
    pub const PERMANENT: Failure = Failure::new(ErrorKind::Permanent);

    /// A failure of `kind` with no hint.
    pub const fn new(kind: ErrorKind) -> Self {
        Failure { kind, hint: None, timed_out: false }
    }

    /// The same failure with a server hint.
    pub const fn with_hint(mut self, hint: Hint) -> Self {
        self.hint = Some(hint);
        self
    }

    /// The same failure with an optional server hint.
    pub const fn with_optional_hint(mut self, hint: Option<Hint>) -> Self {
        self.hint = hint;
        self
    }

    /// A transient failure marking an attempt cut by its timeout.
    pub const fn timeout() -> Self {
        Failure { kind: ErrorKind::Transient, hint: None, timed_out: true }
    }

    /// Whether the failure may be retried.
    pub const fn is_retryable(&self) -> bool {
        !matches!(self.kind, ErrorKind::Permanent)
    }
}

/// Decides what kind of failure an error is. Any `Fn(&E) -> Failure` is one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot classify errors of type `{E}`",
    label = "not a classifier of `{E}`",
    note = "a classifier is any `Fn(&{E}) -> Failure` (such as `classify_io` for `std::io::Error`), \
            a `RetryIf` predicate, `AlwaysTransient`, or a type implementing `Classifier<{E}>`"
)]
pub trait Classifier<E: ?Sized> {
    /// Classifies `error`.
    fn classify(&self, error: &E) -> Failure;
}

/// The default: every error is transient.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlwaysTransient;

impl<E: ?Sized> Classifier<E> for AlwaysTransient {
    #[inline]
    fn classify(&self, _: &E) -> Failure {
        Failure::TRANSIENT
    }
}

/// A predicate as a classifier: `true` is transient, `false` permanent.
#[derive(Debug, Clone, Copy)]
pub struct RetryIf<F>(pub F);

impl<E: ?Sized, F: Fn(&E) -> bool> Classifier<E> for RetryIf<F> {
    #[inline]
    fn classify(&self, error: &E) -> Failure {
        if (self.0)(error) {
            Failure::TRANSIENT
        } else {
            Failure::PERMANENT
        }
    }
}

impl<E: ?Sized, F: Fn(&E) -> Failure> Classifier<E> for F {
    #[inline]
    fn classify(&self, error: &E) -> Failure {
        self(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_and_closures_classify() {
        assert_eq!(AlwaysTransient.classify("x"), Failure::TRANSIENT);
        let only_even = RetryIf(|n: &u32| n % 2 == 0);
        assert_eq!(only_even.classify(&2), Failure::TRANSIENT);
        assert_eq!(only_even.classify(&3), Failure::PERMANENT);
        let closure = |code: &u16| http::classify_status(*code);
        assert_eq!(Classifier::classify(&closure, &429).kind, ErrorKind::Throttled);
    }
}
