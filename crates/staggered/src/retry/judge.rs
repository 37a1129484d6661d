//! How the machine judges what an attempt returned: a success, or a failed
//! attempt with its classification. One judge per kind of call: an
//! operation's errors ([`Errors`]), an operation polled until its value is
//! ready ([`Until`]), and a service's whole outcome ([`Outcomes`]).

use core::fmt;

use crate::classify::{Classifier, Failure};
use crate::retry::failed::FailedAttempt;

/// Judges the outcome of an attempt, `Ok(V)` or `Err(E)`.
pub(crate) trait Judge<V, E> {
    /// What a success gives the caller: the value, or a service's outcome
    /// as it came (a classifier may let an error end the retrying).
    type Success;
    /// A failed attempt, as the hooks see it and as a stop keeps it.
    type Failed: fmt::Display;
    /// What a stop gives back of a value that was not a success
    /// (`Infallible` where every value is one).
    type Unready;

    /// The success, if the attempt succeeded; else the failed attempt and
    /// its classification.
    fn judge(&self, outcome: Result<V, E>) -> Result<Self::Success, (Self::Failed, Failure)>;

    /// A failed attempt of `error` (an attempt cut at its time limit).
    fn failed(error: E) -> Self::Failed;

    /// The quota the server announced on this outcome, if the judge reads
    /// one (an HTTP response's rate-limit headers): `None` by default.
    fn quota(&self, outcome: Result<&V, &E>) -> Option<crate::Quota> {
        let _ = outcome;
        None
    }

    /// The type's name for `tracing`'s `error_type`.
    fn type_name(failed: &Self::Failed) -> &'static str;

    /// What the attempt returned, for the caller.
    fn last(failed: Self::Failed) -> Result<Self::Unready, E>;
}

/// A call of [`RetryPolicy::retry`](crate::RetryPolicy::retry): its
/// errors by a classifier of errors, its values by its [`Readiness`].
pub(crate) struct Call<'a, C, U> {
    pub(crate) classifier: &'a C,
    pub(crate) ready: &'a U,
}

impl<V, E, C: Classifier<E>, U: Readiness<V, E>> Judge<V, E> for Call<'_, C, U> {
    type Success = V;
    type Failed = U::Failed;
    type Unready = U::Unready;

    #[inline]
    fn judge(&self, outcome: Result<V, E>) -> Result<V, (Self::Failed, Failure)> {
        self.ready.judge(self.classifier, outcome)
    }

    fn failed(error: E) -> Self::Failed {
        U::failed(error)
    }

    fn type_name(failed: &Self::Failed) -> &'static str {
        U::type_name(failed)
    }

    fn last(failed: Self::Failed) -> Result<U::Unready, E> {
        U::last(failed)
    }
}

/// Whether a call polls until its value is ready: [`Always`] (every value
/// succeeds; the call's hooks see its errors, typed `E`) or [`Until`] (a
/// value that is not ready is retried; the hooks see a
/// [`FailedAttempt`], an error or a value not ready). The methods are the
/// retry loop's; nothing outside the crate calls them.
pub trait Readiness<V, E> {
    /// A failed attempt, as the call's hooks see it.
    type Failed: fmt::Display;
    /// The last value a [`RetryError`](crate::RetryError) can give back:
    /// `V` when polling, `Infallible` otherwise.
    type Unready;

    /// The value, or the failed attempt with its classification.
    #[doc(hidden)]
    fn judge<C: Classifier<E>>(
        &self,
        classifier: &C,
        outcome: Result<V, E>,
    ) -> Result<V, (Self::Failed, Failure)>;

    /// A failed attempt of `error`.
    #[doc(hidden)]
    fn failed(error: E) -> Self::Failed;

    /// What the attempt returned.
    #[doc(hidden)]
    fn last(failed: Self::Failed) -> Result<Self::Unready, E>;

    /// The type's name, for `tracing`.
    #[doc(hidden)]
    fn type_name(failed: &Self::Failed) -> &'static str;
}

impl<V, E: fmt::Display> Readiness<V, E> for Always {
    type Failed = E;
    type Unready = core::convert::Infallible;

    #[inline]
    fn judge<C: Classifier<E>>(&self, classifier: &C, outcome: Result<V, E>) -> Result<V, (E, Failure)> {
        outcome.map_err(|error| {
            let failure = classifier.classify(&error);
            (error, failure)
        })
    }

    fn failed(error: E) -> E {
        error
    }

    fn last(failed: E) -> Result<core::convert::Infallible, E> {
        Err(failed)
    }

    fn type_name(_: &E) -> &'static str {
        core::any::type_name::<E>()
    }
}

/// Polls until `ready` says the value is: what
/// [`Retrying::until`](crate::Retrying::until) sets. A value that is not
/// ready is a transient failure, retried on the schedule like an error.
#[derive(Debug, Clone, Copy)]
pub struct Until<P>(pub(crate) P);

impl<V, E: fmt::Display, P: Fn(&V) -> bool> Readiness<V, E> for Until<P> {
    type Failed = FailedAttempt<V, E>;
    type Unready = V;

    fn judge<C: Classifier<E>>(
        &self,
        classifier: &C,
        outcome: Result<V, E>,
    ) -> Result<V, (Self::Failed, Failure)> {
        match outcome {
            Ok(value) if (self.0)(&value) => Ok(value),
            Ok(value) => Err((FailedAttempt::not_ready(value), Failure::TRANSIENT)),
            Err(error) => {
                let failure = classifier.classify(&error);
                Err((FailedAttempt::failed_with(error), failure))
            }
        }
    }

    fn failed(error: E) -> Self::Failed {
        FailedAttempt::failed_with(error)
    }

    fn last(failed: Self::Failed) -> Result<V, E> {
        failed.into_result()
    }

    fn type_name(failed: &Self::Failed) -> &'static str {
        failed.type_name()
    }
}

#[cfg(any(feature = "tower", feature = "reqwest"))]
/// A service's whole outcome, by a classifier of results (a response can
/// be a failure too), and a response `ready` says is not ready. A success
/// is the outcome as it came: a classifier may let an error through.
pub(crate) struct Outcomes<'a, C, P> {
    pub(crate) classifier: &'a C,
    pub(crate) ready: &'a P,
}

#[cfg(any(feature = "tower", feature = "reqwest"))]
impl<V, E: fmt::Display, C, P: Ready<V>> Judge<V, E> for Outcomes<'_, C, P>
where
    C: crate::ClassifyResult<V, E>,
{
    type Success = Result<V, E>;
    type Failed = FailedAttempt<V, E>;
    type Unready = V;

    fn quota(&self, outcome: Result<&V, &E>) -> Option<crate::Quota> {
        self.classifier.quota(outcome)
    }

    fn judge(&self, outcome: Result<V, E>) -> Result<Result<V, E>, (Self::Failed, Failure)> {
        match self.classifier.classify_result(outcome.as_ref()) {
            Some(failure) => Err((FailedAttempt::new::<C>(outcome), failure)),
            None => match outcome {
                Ok(value) if !self.ready.is_ready(&value) => {
                    Err((FailedAttempt::not_ready(value), Failure::TRANSIENT))
                }
                outcome => Ok(outcome),
            },
        }
    }

    fn failed(error: E) -> Self::Failed {
        FailedAttempt::new::<C>(Err(error))
    }

    fn type_name(failed: &Self::Failed) -> &'static str {
        failed.type_name()
    }

    fn last(failed: Self::Failed) -> Result<V, E> {
        failed.into_result()
    }
}

/// Whether a service's response is ready: [`Always`], or a predicate.
#[cfg(feature = "std")]
pub trait Ready<V> {
    /// Whether `value` is ready; a value that is not is retried.
    fn is_ready(&self, value: &V) -> bool;
}

/// Every value is ready: no polling.
#[derive(Debug, Clone, Copy, Default)]
pub struct Always;

#[cfg(feature = "std")]
impl<V> Ready<V> for Always {
    fn is_ready(&self, _: &V) -> bool {
        true
    }
}

#[cfg(feature = "std")]
impl<V, P: Fn(&V) -> bool> Ready<V> for P {
    fn is_ready(&self, value: &V) -> bool {
        self(value)
    }
}
