//! Hooks: what the retry loops tell you about each retry and about giving up.

use core::fmt;
use core::marker::PhantomData;
use core::time::Duration;

use crate::budget::BudgetMetrics;
use crate::classify::Failure;
use crate::{StopReason, TimedOut};

/// One retry about to happen, as [`Notify::on_retry`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryEvent<'a, E> {
    /// The attempt that failed (1 is the first call).
    pub attempt: u32,
    /// The total number of calls allowed, if limited.
    pub max_attempts: Option<u32>,
    /// The wait before the next attempt.
    pub delay: Duration,
    /// The error of the failed attempt.
    pub error: &'a E,
    /// How the error was classified, with the server hint if any.
    pub failure: Failure,
    /// Time since attempt 1 started (see [`RetryPolicy`](crate::RetryPolicy)
    /// for when the loop reads the clock).
    pub elapsed: Duration,
    /// The budget's state after this retry was allowed, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// The loop gave up, as [`Notify::on_give_up`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct GiveUpEvent<'a, E> {
    /// Why.
    pub reason: StopReason,
    /// Attempts made.
    pub attempts: u32,
    /// The total number of calls allowed, if limited.
    pub max_attempts: Option<u32>,
    /// The last error an attempt returned; `None` only when the deadline cut
    /// the first attempt of an operation whose error type cannot hold a
    /// [`TimedOut`] (see [`cut`](GiveUpEvent::cut)).
    pub error: Option<&'a E>,
    /// Set when the deadline cut the last attempt and its error type could
    /// not say so: that attempt returned nothing, and `error` is the one
    /// before it.
    pub cut: Option<TimedOut>,
    /// Time since attempt 1 started.
    pub elapsed: Duration,
    /// The budget's state, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// One log line: `attempt 2/5 failed (connection reset); retrying in 200ms`.
impl<E: fmt::Display> fmt::Display for RetryEvent<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attempt {}", self.attempt)?;
        if let Some(max) = self.max_attempts {
            write!(f, "/{max}")?;
        }
        write!(f, " failed ({}); retrying in {:?}", self.error, self.delay)
    }
}

/// One log line: `gave up after 3 attempts (attempts exhausted): connection reset`.
impl<E: fmt::Display> fmt::Display for GiveUpEvent<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.attempts == 1 { "" } else { "s" };
        write!(f, "gave up after {} attempt{plural} ({})", self.attempts, self.reason)?;
        if self.error.is_some() || self.cut.is_some() {
            f.write_str(": ")?;
        }
        describe_last(f, self.attempts, self.error, self.cut)
    }
}

/// The last error, or what the deadline cut, for the give-up messages.
pub(crate) fn describe_last<E: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    attempts: u32,
    error: Option<&E>,
    cut: Option<TimedOut>,
) -> fmt::Result {
    match (cut, error) {
        (None, Some(error)) => error.fmt(f),
        (Some(cut), Some(error)) => {
            write!(f, "attempt {attempts} cut at the deadline after {:?}; last error: {error}", cut.after)
        }
        (Some(cut), None) => write!(f, "attempt {attempts} cut at the deadline after {:?}", cut.after),
        (None, None) => Ok(()),
    }
}

/// Receives the retry loop's events. [`RetryPolicy::on_retry`] and
/// [`RetryPolicy::on_give_up`] take closures; implement this trait for a
/// hook that hears both, or that serves several error types, and add it
/// with [`RetryPolicy::notify`].
///
/// [`RetryPolicy::on_retry`]: crate::RetryPolicy::on_retry
/// [`RetryPolicy::on_give_up`]: crate::RetryPolicy::on_give_up
/// [`RetryPolicy::notify`]: crate::RetryPolicy::notify
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hear the retries of operations failing with `{E}`",
    label = "not a hook for `{E}` errors",
    note = "`on_retry` and `on_give_up` take closures over `&RetryEvent<{E}>` and `&GiveUpEvent<{E}>`; \
            a hook added with `notify` implements `Notify<{E}>`"
)]
pub trait Notify<E> {
    /// Whether this hook reads [`RetryEvent::elapsed`]. The loops read the
    /// clock after a failure only when something needs the time: a
    /// deadline, a per-attempt timeout, the `tracing` feature, or a hook
    /// that says so. [`NoNotify`] says no; every other hook yes by default.
    const WANTS_ELAPSED: bool = true;

    /// A retry is about to happen, after its delay. The default does nothing.
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        let _ = event;
    }

    /// The loop is giving up. The default does nothing.
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        let _ = event;
    }
}

/// No hook.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotify;

impl<E> Notify<E> for NoNotify {
    const WANTS_ELAPSED: bool = false;
}

impl<E, N: Notify<E> + ?Sized> Notify<E> for &N {
    const WANTS_ELAPSED: bool = N::WANTS_ELAPSED;

    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (**self).on_retry(event)
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (**self).on_give_up(event)
    }
}

#[cfg(feature = "std")]
impl<E, N: Notify<E> + ?Sized> Notify<E> for std::sync::Arc<N> {
    const WANTS_ELAPSED: bool = N::WANTS_ELAPSED;

    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (**self).on_retry(event)
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (**self).on_give_up(event)
    }
}

/// A closure called before every retry: what [`RetryPolicy::on_retry`]
/// adds. The error type `E` is part of the type, so the closure's argument
/// needs no annotation: it is inferred where the policy is used.
///
/// [`RetryPolicy::on_retry`]: crate::RetryPolicy::on_retry
pub struct OnRetry<F, E> {
    hook: F,
    error: PhantomData<fn(&E)>,
}

impl<F, E> OnRetry<F, E> {
    /// The hook `hook`.
    pub const fn new(hook: F) -> Self {
        OnRetry { hook, error: PhantomData }
    }
}

impl<E, F: Fn(&RetryEvent<'_, E>)> Notify<E> for OnRetry<F, E> {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (self.hook)(event)
    }
}

/// A closure called once when the loop gives up: what
/// [`RetryPolicy::on_give_up`] adds.
///
/// [`RetryPolicy::on_give_up`]: crate::RetryPolicy::on_give_up
pub struct OnGiveUp<F, E> {
    hook: F,
    error: PhantomData<fn(&E)>,
}

impl<F, E> OnGiveUp<F, E> {
    /// The hook `hook`.
    pub const fn new(hook: F) -> Self {
        OnGiveUp { hook, error: PhantomData }
    }
}

impl<E, F: Fn(&GiveUpEvent<'_, E>)> Notify<E> for OnGiveUp<F, E> {
    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (self.hook)(event)
    }
}

/// Two hooks, both told every event (the first first): each `on_retry`,
/// `on_give_up` and `notify` of a policy adds one this way.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks<A, B>(pub A, pub B);

impl<E, A: Notify<E>, B: Notify<E>> Notify<E> for Hooks<A, B> {
    const WANTS_ELAPSED: bool = A::WANTS_ELAPSED || B::WANTS_ELAPSED;

    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        self.0.on_retry(event);
        self.1.on_retry(event);
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        self.0.on_give_up(event);
        self.1.on_give_up(event);
    }
}

macro_rules! closure_hook_traits {
    ($($name:ident),*) => {$(
        impl<F: Clone, E> Clone for $name<F, E> {
            fn clone(&self) -> Self {
                $name::new(self.hook.clone())
            }
        }

        impl<F: Copy, E> Copy for $name<F, E> {}

        impl<F, E> fmt::Debug for $name<F, E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }
    )*};
}

closure_hook_traits!(OnRetry, OnGiveUp);
