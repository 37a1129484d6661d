//! Classifying what an attempt returned, a response or an error: the
//! classifier of the integrations where a response can be a failure too,
//! and of a policy that has none of its own ([`DefaultRules`]).

use core::fmt;

use super::http::ClassifyHttp;
use super::{AlwaysTransient, Classifier, Failure, RetryIf};

/// Classifies the outcome of one attempt: `None` for a success,
/// `Some(failure)` for a failed attempt (a
/// [`Permanent`](crate::ErrorKind::Permanent) one stops at once).
///
/// Every classifier of errors is one: it classifies the errors, and every
/// response is a success. That is any `Fn(&Err) -> Failure`, [`RetryIf`],
/// [`AlwaysTransient`], and any [`Classifier`] in [`Errors`]. [`ClassifyHttp`] judges HTTP responses by their
/// status and hints, [`ByResult`] wraps any
/// `Fn(Result<&Res, &Err>) -> Option<Failure>`, and [`DefaultRules`] (a
/// policy with no classifier set) applies the rules the response type
/// knows. A plain operation ([`RetryPolicy::retry`](crate::RetryPolicy::retry)) has no responses: its
/// classifier is a [`Classifier`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot classify these attempts' outcomes: errors of type `{Err}`, responses of type `{Res}`",
    label = "not a classifier of these outcomes",
    note = "any `Fn(&{Err}) -> Failure` (such as `classify_io` for `std::io::Error`), `RetryIf` and \
            `AlwaysTransient` classify the errors and accept every response (a `Classifier` of your own does \
            in `Errors(..)`); `ClassifyHttp` and `ByResult` judge responses too"
)]
pub trait ClassifyResult<Res, Err> {
    /// Whether this classifier judges responses. A classifier of errors
    /// does not (`false`): it accepts every response, and the reqwest
    /// middleware then applies the HTTP status rules to the responses
    /// itself, so that a 503 is never taken for a success.
    fn judges_responses(&self) -> bool {
        true
    }

    /// Classifies the outcome of one attempt.
    fn classify_result(&self, result: Result<&Res, &Err>) -> Option<Failure>;

    /// The quota the server announced on the outcome of an attempt (a
    /// success as much as a failure), for the policy's rate limiter: the
    /// HTTP rules read the rate-limit headers
    /// ([`classify::quota`](crate::classify::quota)). `None` by default.
    fn quota(&self, result: Result<&Res, &Err>) -> Option<crate::Quota> {
        let _ = result;
        None
    }

    /// Describes a response this classifier called a failure, for hooks and
    /// `tracing` events (`error_message`). The default writes
    /// `unsuccessful response`; the HTTP rules write the status.
    fn describe(response: &Res, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = response;
        f.write_str("unsuccessful response")
    }
}

/// The classifiers of errors are classifiers of results: they classify the
/// errors and accept every response.
macro_rules! errors_only {
    ($(impl<$($param:ident),*> for $ty:ty where [$($bound:tt)*];)*) => {$(
        impl<Res, Err, $($param),*> ClassifyResult<Res, Err> for $ty where $($bound)* {
            fn judges_responses(&self) -> bool {
                false
            }

            #[inline]
            fn classify_result(&self, result: Result<&Res, &Err>) -> Option<Failure> {
                result.err().map(|error| Classifier::classify(self, error))
            }
        }
    )*};
}

errors_only! {
    impl<F> for F where [F: Fn(&Err) -> Failure];
    impl<F> for RetryIf<F> where [F: Fn(&Err) -> bool];
    impl<> for AlwaysTransient where [];
    impl<C> for Errors<C> where [C: Classifier<Err>];
}

/// Any [`Classifier`] as a classifier of results: it classifies the
/// errors, and every response is a success. Closures, functions,
/// [`RetryIf`] and [`AlwaysTransient`] are classifiers of results as they
/// are; a classifier type of your own goes in `Errors` for the
/// integrations.
#[derive(Debug, Clone, Copy, Default)]
pub struct Errors<C>(pub C);

impl<E: ?Sized, C: Classifier<E>> Classifier<E> for Errors<C> {
    #[inline]
    fn classify(&self, error: &E) -> Failure {
        self.0.classify(error)
    }
}

/// A closure over a whole outcome as a classifier: `Fn(Result<&Res, &Err>)
/// -> Option<Failure>`, `None` for a success.
///
/// ```
/// use staggered::classify::{ByResult, ClassifyResult};
/// use staggered::{ErrorKind, Failure};
///
/// let classify = ByResult(|result: Result<&u16, &std::io::Error>| match result {
///     Ok(&status) if status >= 500 => Some(Failure::TRANSIENT),
///     Ok(_) => None,
///     Err(_) => Some(Failure::TRANSIENT),
/// });
/// assert_eq!(classify.classify_result(Ok(&200)), None);
/// assert_eq!(classify.classify_result(Ok(&503)).map(|f| f.kind), Some(ErrorKind::Transient));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ByResult<F>(pub F);

impl<Res, Err, F> ClassifyResult<Res, Err> for ByResult<F>
where
    F: Fn(Result<&Res, &Err>) -> Option<Failure>,
{
    #[inline]
    fn classify_result(&self, result: Result<&Res, &Err>) -> Option<Failure> {
        (self.0)(result)
    }
}

/// The classifier of a policy that has none set: the rules of what is
/// retried.
///
/// - A plain operation: every error is transient.
/// - A service whose responses have rules of their own
///   ([`ResponseRules`]): those. `http` and reqwest responses follow
///   [`ClassifyHttp`]'s (408, 429 and 5xx retry, with their server hints;
///   other 4xx stop; throttling codes and rate limits make a failure
///   throttled), with the status lists and throttling settings set here
///   ([`with_http`](DefaultRules::with_http), as a configuration file's
///   `[classification]` does); reqwest's errors are classified by kind.
/// - Any other service: a compile error asking for a classifier, since
///   nothing says which of its responses are failures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DefaultRules {
    http: ClassifyHttp,
}

impl DefaultRules {
    /// The rules above, with the standard HTTP status rules.
    pub const fn new() -> Self {
        DefaultRules { http: ClassifyHttp::new() }
    }

    /// The same rules with `http`'s status lists and throttling settings
    /// for HTTP responses.
    pub fn with_http(mut self, http: ClassifyHttp) -> Self {
        self.http = http;
        self
    }

    /// The rules for HTTP responses.
    pub const fn http(&self) -> &ClassifyHttp {
        &self.http
    }
}

/// Every error of a plain operation is transient.
impl<E: ?Sized> Classifier<E> for DefaultRules {
    #[inline]
    fn classify(&self, _: &E) -> Failure {
        Failure::TRANSIENT
    }
}

impl<Res: ResponseRules<Err>, Err> ClassifyResult<Res, Err> for DefaultRules {
    #[inline]
    fn classify_result(&self, result: Result<&Res, &Err>) -> Option<Failure> {
        Res::classify_default(self, result)
    }

    fn quota(&self, result: Result<&Res, &Err>) -> Option<crate::Quota> {
        result.ok().and_then(Res::quota)
    }

    fn describe(response: &Res, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        response.describe(f)
    }
}

/// A response type whose failures [`DefaultRules`] knows without a
/// classifier: `http::Response` (feature `http`) and `reqwest::Response`
/// (feature `reqwest`), by the HTTP rules.
#[diagnostic::on_unimplemented(
    message = "a retry policy with no classifier does not know which `{Self}` responses are failures",
    label = "no default rules for `{Self}`",
    note = "choose a classifier with `RetryPolicy::classify`: `AlwaysTransient` (or any `Fn(&{Err}) -> Failure`) \
            retries errors and accepts every response; `ByResult` judges responses too"
)]
pub trait ResponseRules<Err> {
    /// Classifies `result` by these rules, adjusted by `rules`.
    fn classify_default(rules: &DefaultRules, result: Result<&Self, &Err>) -> Option<Failure>;

    /// The quota the server announced on this response, if these rules
    /// read one (the HTTP rules read the rate-limit headers); `None` by default.
    fn quota(&self) -> Option<crate::Quota> {
        None
    }

    /// Describes a response the rules called a failure (`HTTP 503 Service
    /// Unavailable`); the default writes `unsuccessful response`.
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unsuccessful response")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn every_classifier_of_errors_classifies_results() {
        let ok: Result<&u8, &&str> = Ok(&1);
        let err: Result<&u8, &&str> = Err(&"boom");
        assert_eq!(AlwaysTransient.classify_result(ok), None);
        assert_eq!(AlwaysTransient.classify_result(err), Some(Failure::TRANSIENT));
        let only_boom = RetryIf(|e: &&str| *e == "boom");
        assert_eq!(only_boom.classify_result(ok), None);
        assert_eq!(only_boom.classify_result(err).map(|f| f.kind), Some(ErrorKind::Transient));
        assert_eq!(
            only_boom.classify_result(Err::<&u8, _>(&"other")).map(|f| f.kind),
            Some(ErrorKind::Permanent)
        );
        assert!(!ClassifyResult::<u8, &str>::judges_responses(&AlwaysTransient));
        let by_result = ByResult(|_: Result<&u8, &&str>| None);
        assert!(by_result.judges_responses());
    }

    #[test]
    fn default_rules_call_every_error_of_a_plain_operation_transient() {
        assert_eq!(DefaultRules::new().classify(&"boom"), Failure::TRANSIENT);
        assert_eq!(Errors(AlwaysTransient).classify_result(Err::<&u8, _>(&"boom")), Some(Failure::TRANSIENT));
    }
}
