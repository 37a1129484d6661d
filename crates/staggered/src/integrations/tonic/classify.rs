//! gRPC's retry rules for a `tonic::Status` (gRPC's retry design, A6, and
//! grpc-go's `shouldRetry`): which codes retry, which are throttling, which
//! are timeouts, and what the server's pushback says.

use core::fmt;
use core::time::Duration;

use ::tonic::{Code, Status};

use crate::classify::hint::grpc_retry_pushback_all;
use crate::classify::{AlwaysTransient, Classifier, DefaultRules, ErrorKind, Errors, Failure, Hint, RetryIf};
use crate::{RetryError, StopReason, TimedOut};

/// The metadata key of a server's pushback: milliseconds to wait before the
/// retry; a negative or malformed value, or more than one value, means "do
/// not retry".
pub const GRPC_RETRY_PUSHBACK: &str = "grpc-retry-pushback-ms";

/// The codes a [`ClassifyGrpc`] retries, as one bit per code (0 to 16).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct CodeSet(u32);

impl CodeSet {
    const fn bit(code: Code) -> u32 {
        // Every code is 0..=16; `Code::from_i32` maps anything else to Unknown.
        1 << (code as i32 as u32 & 31)
    }

    const fn with(self, code: Code) -> Self {
        CodeSet(self.0 | CodeSet::bit(code))
    }

    const fn without(self, code: Code) -> Self {
        CodeSet(self.0 & !CodeSet::bit(code))
    }

    const fn contains(self, code: Code) -> bool {
        self.0 & CodeSet::bit(code) != 0
    }

    fn iter(self) -> impl Iterator<Item = Code> {
        (0..=16).map(Code::from_i32).filter(move |&code| self.contains(code))
    }
}

/// Classifies a failed gRPC call by its [`Status`], as gRPC's retry design
/// (A6) and grpc-go do.
///
/// | status | failure |
/// |---|---|
/// | a retryable code (default: `UNAVAILABLE` and `RESOURCE_EXHAUSTED`) | retried: `RESOURCE_EXHAUSTED` as [`Throttled`](ErrorKind::Throttled), `DEADLINE_EXCEEDED` (if you make it retryable) as a [timeout](Failure::timeout), any other as [`Transient`](ErrorKind::Transient), with the server's pushback as the hint |
/// | a pushback that says "do not retry" (negative, malformed, or given twice) | stops, whatever the code, and counts against gRPC's retry throttle, as grpc-go counts it |
/// | the client's own time limit (a per-attempt timeout, the deadline, tonic's `Endpoint::timeout`) | a [timeout](Failure::timeout) |
/// | any other code | [`Permanent`](ErrorKind::Permanent): stops at once |
///
/// The retryable codes are A6's `retryableStatusCodes`: set them with
/// [`with_retryable_codes`](ClassifyGrpc::with_retryable_codes), or change
/// one with [`with_retry_code`](ClassifyGrpc::with_retry_code) and
/// [`with_stop_code`](ClassifyGrpc::with_stop_code).
///
/// `RESOURCE_EXHAUSTED` is retried by default, as a throttling error (gRPC's
/// 429): it drains the budgets that charge throttling differently. A
/// service that uses it for limits no retry lifts (a quota for the day, a
/// message too large) can stop it with
/// `with_stop_code(Code::ResourceExhausted)`.
///
/// ```
/// use staggered::tonic::ClassifyGrpc;
/// use staggered::{Classifier, ErrorKind, Hint};
/// use std::time::Duration;
/// use tonic::{Code, Status};
///
/// let classify = ClassifyGrpc::new();
/// assert_eq!(classify.classify(&Status::unavailable("restarting")).kind, ErrorKind::Transient);
/// assert_eq!(classify.classify(&Status::invalid_argument("no name")).kind, ErrorKind::Permanent);
///
/// let mut busy = Status::resource_exhausted("slow down");
/// busy.metadata_mut().insert("grpc-retry-pushback-ms", "1500".parse().unwrap());
/// let failure = classify.classify(&busy);
/// assert_eq!(failure.kind, ErrorKind::Throttled);
/// assert_eq!(failure.hint, Some(Hint::After(Duration::from_millis(1500))));
///
/// let a6 = ClassifyGrpc::with_retryable_codes([Code::Unavailable, Code::DeadlineExceeded]);
/// assert!(a6.classify(&Status::deadline_exceeded("slow")).timed_out);
/// assert_eq!(a6.classify(&busy).kind, ErrorKind::Permanent);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClassifyGrpc {
    retryable: CodeSet,
}

impl ClassifyGrpc {
    /// Retries `UNAVAILABLE`, and `RESOURCE_EXHAUSTED` as throttling.
    pub const fn new() -> Self {
        ClassifyGrpc { retryable: CodeSet(0).with(Code::Unavailable).with(Code::ResourceExhausted) }
    }

    /// Retries exactly `codes` (A6's `retryableStatusCodes`), and no other.
    pub fn with_retryable_codes(codes: impl IntoIterator<Item = Code>) -> Self {
        ClassifyGrpc { retryable: codes.into_iter().fold(CodeSet(0), CodeSet::with) }
    }

    /// Also retries `code` (say `ABORTED`, for a service that uses it for
    /// "try again").
    pub const fn with_retry_code(mut self, code: Code) -> Self {
        self.retryable = self.retryable.with(code);
        self
    }

    /// Never retries `code`.
    pub const fn with_stop_code(mut self, code: Code) -> Self {
        self.retryable = self.retryable.without(code);
        self
    }

    /// Whether `code` is retried.
    pub const fn retries(&self, code: Code) -> bool {
        self.retryable.contains(code)
    }

    /// The retried codes, in the order of their numbers.
    pub fn retryable_codes(&self) -> impl Iterator<Item = Code> {
        self.retryable.iter()
    }

    /// The kind of failure a status of `code` is, ignoring any pushback.
    pub const fn code_failure(&self, code: Code) -> Failure {
        match code {
            _ if !self.retries(code) => Failure::PERMANENT,
            Code::ResourceExhausted => Failure::THROTTLED,
            Code::DeadlineExceeded => Failure::timeout(),
            _ => Failure::TRANSIENT,
        }
    }
}

impl Default for ClassifyGrpc {
    fn default() -> Self {
        ClassifyGrpc::new()
    }
}

impl fmt::Debug for ClassifyGrpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassifyGrpc")
            .field("retryable", &self.retryable_codes().collect::<Vec<_>>())
            .finish()
    }
}

impl Classifier<Status> for ClassifyGrpc {
    fn classify(&self, status: &Status) -> Failure {
        if is_client_timeout(status) {
            return Failure::timeout();
        }
        let code = self.code_failure(status.code());
        match pushback(status) {
            // grpc-go's shouldRetry: a pushback that says "do not retry" is a
            // failure for the throttle whatever the code, so the failure is
            // a retryable kind that the hint then stops.
            Some(Hint::Never) if code.kind == ErrorKind::Permanent => {
                Failure::TRANSIENT.with_hint(Hint::Never)
            }
            Some(hint) if code.kind != ErrorKind::Permanent => code.with_hint(hint),
            _ => code,
        }
    }
}

/// The server's pushback in `status`'s metadata (`grpc-retry-pushback-ms`):
/// `None` without one, [`Hint::After`] for one non-negative value, and
/// [`Hint::Never`] ("do not retry") for a negative or malformed value or for
/// more than one value, as gRPC's retry design says.
pub fn pushback(status: &Status) -> Option<Hint> {
    grpc_retry_pushback_all(
        status.metadata().get_all(GRPC_RETRY_PUSHBACK).iter().map(|value| value.to_str().ok()),
    )
}

/// Whether `status` is the client's own time limit running out: an attempt
/// cut by the retry driver ([`TimedOut`]), or tonic's `TimeoutExpired` (the
/// channel's timeout, or the `grpc-timeout` it enforces), which tonic
/// reports as `CANCELLED`.
pub(crate) fn is_client_timeout(status: &Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(cause) = source {
        if cause.is::<TimedOut>() || cause.is::<::tonic::TimeoutExpired>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// What the gRPC driver ([`RetryPolicy::retry_grpc`](crate::RetryPolicy::retry_grpc))
/// takes as a policy's classifier: a failed call's [`Status`] to a
/// [`Failure`]. A policy with no classifier set ([`DefaultRules`]) follows
/// gRPC's rules ([`ClassifyGrpc::new`]); any classifier of `Status` errors
/// works too: a [`ClassifyGrpc`] of your own, a closure
/// `Fn(&Status) -> Failure`, a [`RetryIf`] predicate, [`AlwaysTransient`],
/// or a [`Classifier`] type in [`Errors`].
///
/// Only statuses are classified: in gRPC the status says whether a call
/// failed, so every response is a success.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot classify the `tonic::Status` of a failed gRPC call",
    label = "not a classifier of `tonic::Status`",
    note = "leave the policy's classifier unset for gRPC's rules, or use `ClassifyGrpc`, any \
            `Fn(&tonic::Status) -> Failure`, a `RetryIf` predicate on `&tonic::Status`, or a \
            `Classifier<tonic::Status>` in `Errors(..)`"
)]
pub trait ClassifyStatus {
    /// Classifies the status of a failed call.
    fn classify_status(&self, status: &Status) -> Failure;
}

impl ClassifyStatus for ClassifyGrpc {
    #[inline]
    fn classify_status(&self, status: &Status) -> Failure {
        self.classify(status)
    }
}

/// gRPC's rules: [`ClassifyGrpc::new`].
impl ClassifyStatus for DefaultRules {
    #[inline]
    fn classify_status(&self, status: &Status) -> Failure {
        ClassifyGrpc::new().classify(status)
    }
}

impl<F: Fn(&Status) -> Failure> ClassifyStatus for F {
    #[inline]
    fn classify_status(&self, status: &Status) -> Failure {
        self(status)
    }
}

impl<F: Fn(&Status) -> bool> ClassifyStatus for RetryIf<F> {
    #[inline]
    fn classify_status(&self, status: &Status) -> Failure {
        self.classify(status)
    }
}

impl ClassifyStatus for AlwaysTransient {
    #[inline]
    fn classify_status(&self, _: &Status) -> Failure {
        Failure::TRANSIENT
    }
}

impl<C: Classifier<Status>> ClassifyStatus for Errors<C> {
    #[inline]
    fn classify_status(&self, status: &Status) -> Failure {
        self.0.classify(status)
    }
}

/// An attempt cut by its time limit, as a gRPC client reports a deadline
/// that passed: `DEADLINE_EXCEEDED`, with the [`TimedOut`] as its source
/// (so [`ClassifyGrpc`] reads it as a timeout whatever the retryable codes).
impl From<TimedOut> for Status {
    fn from(cut: TimedOut) -> Self {
        let mut status = Status::deadline_exceeded(cut.to_string());
        status.set_source(std::sync::Arc::new(cut));
        status
    }
}

/// The last attempt's status, for a handler that answers with it (`?` in a
/// tonic service): its code, message and metadata as the server sent them
/// (`DEADLINE_EXCEEDED` for an attempt cut at its time limit). When no
/// attempt ended with a status, the stop: `DEADLINE_EXCEEDED` for the
/// deadline, `CANCELLED` for a cancel, `UNAVAILABLE` for a polled response
/// that was never ready. The stop reason and the attempts made are not
/// carried over; log them first.
impl<V> From<RetryError<Status, V>> for Status {
    fn from(error: RetryError<Status, V>) -> Self {
        let reason = error.reason();
        if let Some(status) = error.into_error() {
            return status;
        }
        match reason {
            StopReason::Cancelled => Status::cancelled(reason.to_string()),
            StopReason::Deadline => Status::from(TimedOut { after: Duration::ZERO }),
            _ => Status::unavailable(format!("{reason}: the response was not ready")),
        }
    }
}

/// A [`ClassifyStatus`] as the classifier of a call's errors.
pub(crate) struct Statuses<'a, C>(pub(crate) &'a C);

impl<C: ClassifyStatus> Classifier<Status> for Statuses<'_, C> {
    fn classify(&self, status: &Status) -> Failure {
        self.0.classify_status(status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::tonic::metadata::MetadataValue;

    fn with_pushback(mut status: Status, values: &[&str]) -> Status {
        for value in values {
            let value: MetadataValue<_> = value.parse().unwrap();
            status.metadata_mut().append(GRPC_RETRY_PUSHBACK, value);
        }
        status
    }

    #[test]
    fn codes_by_default_and_as_configured() {
        let classify = ClassifyGrpc::new();
        assert_eq!(
            classify.retryable_codes().collect::<Vec<_>>(),
            [Code::ResourceExhausted, Code::Unavailable]
        );
        assert_eq!(classify.classify(&Status::unavailable("")), Failure::TRANSIENT);
        assert_eq!(classify.classify(&Status::resource_exhausted("")), Failure::THROTTLED);
        for code in
            [Code::InvalidArgument, Code::DeadlineExceeded, Code::Cancelled, Code::Internal, Code::Unknown]
        {
            assert_eq!(classify.classify(&Status::new(code, "")), Failure::PERMANENT, "{code:?}");
        }
        let a6 = ClassifyGrpc::with_retryable_codes([Code::DeadlineExceeded, Code::Aborted]);
        assert_eq!(a6.classify(&Status::deadline_exceeded("")), Failure::timeout());
        assert_eq!(a6.classify(&Status::aborted("")), Failure::TRANSIENT);
        assert_eq!(a6.classify(&Status::unavailable("")), Failure::PERMANENT);
        let changed = classify.with_stop_code(Code::ResourceExhausted).with_retry_code(Code::Internal);
        assert!(!changed.retries(Code::ResourceExhausted) && changed.retries(Code::Internal));
        assert_eq!(format!("{changed:?}"), "ClassifyGrpc { retryable: [Internal, Unavailable] }");
        assert_eq!(ClassifyGrpc::default(), ClassifyGrpc::new());
    }

    #[test]
    fn the_pushback_as_grpc_go_reads_it() {
        let classify = ClassifyGrpc::new();
        let ms = |n| Some(Hint::After(Duration::from_millis(n)));
        let busy = with_pushback(Status::resource_exhausted(""), &["1000"]);
        assert_eq!((classify.classify(&busy).kind, pushback(&busy)), (ErrorKind::Throttled, ms(1000)));
        assert_eq!(classify.classify(&busy).hint, ms(1000));
        for values in [&["-1"][..], &["soon"], &["100", "10"], &["1.5"]] {
            let down = with_pushback(Status::unavailable(""), values);
            assert_eq!(classify.classify(&down), Failure::TRANSIENT.with_hint(Hint::Never), "{values:?}");
            // A "do not retry" on a code that is not retried: still a failure
            // for the throttle (a retryable kind), and still a stop.
            let bad = with_pushback(Status::invalid_argument(""), values);
            assert_eq!(classify.classify(&bad), Failure::TRANSIENT.with_hint(Hint::Never), "{values:?}");
        }
        // A pushback to wait does not make a code retryable.
        let bad = with_pushback(Status::invalid_argument(""), &["10"]);
        assert_eq!(classify.classify(&bad), Failure::PERMANENT);
        assert_eq!(pushback(&Status::unavailable("")), None);
    }

    #[test]
    fn the_clients_own_time_limit_is_a_timeout() {
        let classify = ClassifyGrpc::new();
        let cut = Status::from(TimedOut { after: Duration::from_millis(150) });
        assert_eq!(cut.code(), Code::DeadlineExceeded);
        assert!(cut.message().contains("150ms"), "{}", cut.message());
        assert_eq!(classify.classify(&cut), Failure::timeout());
        let expired = Status::from_error(Box::new(::tonic::TimeoutExpired(())));
        assert_eq!(expired.code(), Code::Cancelled);
        assert_eq!(classify.classify(&expired), Failure::timeout());
        assert_eq!(classify.classify(&Status::cancelled("Timeout expired")), Failure::PERMANENT);
    }

    #[test]
    fn every_classifier_of_statuses_classifies_for_the_driver() {
        let down = Status::unavailable("");
        assert_eq!(DefaultRules::new().classify_status(&Status::invalid_argument("")), Failure::PERMANENT);
        assert_eq!(DefaultRules::new().classify_status(&down), Failure::TRANSIENT);
        assert_eq!(AlwaysTransient.classify_status(&Status::invalid_argument("")), Failure::TRANSIENT);
        let aborted = RetryIf(|status: &Status| status.code() == Code::Aborted);
        assert_eq!(aborted.classify_status(&down), Failure::PERMANENT);
        assert_eq!((|_: &Status| Failure::THROTTLED).classify_status(&down), Failure::THROTTLED);
        assert_eq!(Errors(ClassifyGrpc::new()).classify_status(&down), Failure::TRANSIENT);
    }
}
