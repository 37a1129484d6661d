//! Hooks: what the retry loops tell you about each retry and about giving up.

use core::fmt;
use core::marker::PhantomData;
use core::time::Duration;

use crate::budget::BudgetMetrics;
use crate::classify::Failure;
use crate::StopReason;

/// One retry about to happen, as [`Notify::on_retry`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryEvent<'a, E: ?Sized> {
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
pub struct GiveUpEvent<'a, E: ?Sized> {
    /// Why.
    pub reason: StopReason,
    /// Attempts made.
    pub attempts: u32,
    /// The total number of calls allowed, if limited.
    pub max_attempts: Option<u32>,
    /// The last failed attempt's error; `None` when no attempt had failed
    /// yet (the caller cancelled during attempt 1, or the rate limiter had
    /// no token for it before the deadline).
    pub error: Option<&'a E>,
    /// The wait the retry decision chose for the next attempt and then
    /// refused, when it stopped because that wait would reach the deadline
    /// or the budget said no ([`Decision::last_wait`](crate::Decision::last_wait)):
    /// a log can say how long the wait would have been.
    pub wait: Option<Duration>,
    /// Time since attempt 1 started.
    pub elapsed: Duration,
    /// The budget's state, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// One more copy of a hedged call's attempt, sent while the others have
/// not answered yet, as [`Notify::on_hedge`] receives it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HedgeEvent {
    /// The copy sent (1 is the first).
    pub attempt: u32,
    /// The copies running now, this one included.
    pub in_flight: u32,
    /// Time since attempt 1 started.
    pub elapsed: Duration,
    /// The budget's state after this copy was allowed, if there is one.
    pub budget: Option<BudgetMetrics>,
}

/// One log line: `hedging: attempt 2 sent after 10ms, 2 in flight`.
impl fmt::Display for HedgeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hedging: attempt {} sent after {:?}, {} in flight",
            self.attempt, self.elapsed, self.in_flight
        )
    }
}

/// One log line: `attempt 2/5 failed (connection reset); retrying in 200ms`.
impl<E: fmt::Display + ?Sized> fmt::Display for RetryEvent<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attempt {}", self.attempt)?;
        if let Some(max) = self.max_attempts {
            write!(f, "/{max}")?;
        }
        write!(f, " failed ({}); retrying in {:?}", self.error, self.delay)
    }
}

/// One log line: `gave up after 3 attempts (attempts exhausted): connection reset`.
impl<E: fmt::Display + ?Sized> fmt::Display for GiveUpEvent<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.attempts == 1 { "" } else { "s" };
        write!(f, "gave up after {} attempt{plural} ({})", self.attempts, self.reason)?;
        match self.error {
            Some(error) => write!(f, ": {error}"),
            None => Ok(()),
        }
    }
}

#[cfg(feature = "std")]
impl<'a, E: fmt::Display> RetryEvent<'a, E> {
    /// The same event with the error seen only as text, as a policy's own
    /// hooks see it whatever the operation's error type.
    pub(crate) fn as_text(&self) -> RetryEvent<'a, dyn fmt::Display + 'a> {
        let RetryEvent { attempt, max_attempts, delay, error, failure, elapsed, budget } = *self;
        RetryEvent { attempt, max_attempts, delay, error, failure, elapsed, budget }
    }
}

#[cfg(feature = "std")]
impl<'a, E: fmt::Display> GiveUpEvent<'a, E> {
    /// The same event with the error seen only as text (see [`RetryEvent::as_text`]).
    pub(crate) fn as_text(&self) -> GiveUpEvent<'a, dyn fmt::Display + 'a> {
        let GiveUpEvent { reason, attempts, max_attempts, error, wait, elapsed, budget } = *self;
        let error = error.map(|error| error as &dyn fmt::Display);
        GiveUpEvent { reason, attempts, max_attempts, error, wait, elapsed, budget }
    }
}

/// Hears one operation's retries and its give-up, its failed attempts
/// typed `E`: what the `on_retry` and `on_give_up` of a call
/// ([`Retrying`](crate::Retrying)) add. Implement it for a hook type that
/// hears both; a policy's own hooks see the error as text instead
/// ([`RetryPolicy::on_retry`](crate::RetryPolicy::on_retry)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hear the retries of operations failing with `{E}`",
    label = "not a hook for `{E}` errors",
    note = "`on_retry` and `on_give_up` take closures over `&RetryEvent<{E}>` and `&GiveUpEvent<{E}>`"
)]
pub trait Notify<E: ?Sized> {
    /// A retry is about to happen, after its delay. The default does nothing.
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        let _ = event;
    }

    /// The loop is giving up. The default does nothing.
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        let _ = event;
    }

    /// A hedged call sent one more copy. The default does nothing.
    fn on_hedge(&self, event: &HedgeEvent) {
        let _ = event;
    }
}

/// No hook.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotify;

impl<E: ?Sized> Notify<E> for NoNotify {}

impl<E: ?Sized, N: Notify<E> + ?Sized> Notify<E> for &N {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (**self).on_retry(event)
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (**self).on_give_up(event)
    }

    fn on_hedge(&self, event: &HedgeEvent) {
        (**self).on_hedge(event)
    }
}

#[cfg(feature = "std")]
impl<E: ?Sized, N: Notify<E> + ?Sized> Notify<E> for std::sync::Arc<N> {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (**self).on_retry(event)
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (**self).on_give_up(event)
    }

    fn on_hedge(&self, event: &HedgeEvent) {
        (**self).on_hedge(event)
    }
}

/// A closure called before every retry of a call: what
/// [`Retrying::on_retry`](crate::Retrying::on_retry) adds. The error type
/// `E` is part of the type, so the closure's argument needs no annotation.
pub struct OnRetry<F, E: ?Sized> {
    hook: F,
    error: PhantomData<fn(&E)>,
}

impl<F, E: ?Sized> OnRetry<F, E> {
    /// The hook `hook`.
    pub const fn new(hook: F) -> Self {
        OnRetry { hook, error: PhantomData }
    }
}

impl<E: ?Sized, F: Fn(&RetryEvent<'_, E>)> Notify<E> for OnRetry<F, E> {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        (self.hook)(event)
    }
}

/// A closure called once when a call gives up: what
/// [`Retrying::on_give_up`](crate::Retrying::on_give_up) adds.
pub struct OnGiveUp<F, E: ?Sized> {
    hook: F,
    error: PhantomData<fn(&E)>,
}

impl<F, E: ?Sized> OnGiveUp<F, E> {
    /// The hook `hook`.
    pub const fn new(hook: F) -> Self {
        OnGiveUp { hook, error: PhantomData }
    }
}

impl<E: ?Sized, F: Fn(&GiveUpEvent<'_, E>)> Notify<E> for OnGiveUp<F, E> {
    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        (self.hook)(event)
    }
}

/// Two hooks, both told every event (the first first): each `on_retry`
/// and `on_give_up` of a call adds one this way.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks<A, B>(pub A, pub B);

impl<E: ?Sized, A: Notify<E>, B: Notify<E>> Notify<E> for Hooks<A, B> {
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

    fn on_hedge(&self, event: &HedgeEvent) {
        self.0.on_hedge(event);
        self.1.on_hedge(event);
    }
}

macro_rules! closure_hook_traits {
    ($($name:ident),*) => {$(
        impl<F: Clone, E: ?Sized> Clone for $name<F, E> {
            fn clone(&self) -> Self {
                $name::new(self.hook.clone())
            }
        }

        impl<F: Copy, E: ?Sized> Copy for $name<F, E> {}

        impl<F, E: ?Sized> fmt::Debug for $name<F, E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }
    )*};
}

closure_hook_traits!(OnRetry, OnGiveUp);

/// A hook of a policy, for every operation it runs whatever their error
/// type: it sees each failed attempt as text.
#[cfg(feature = "std")]
pub(crate) type PolicyRetryHook =
    std::sync::Arc<dyn Fn(&RetryEvent<'_, dyn fmt::Display + '_>) + Send + Sync>;

/// A give-up hook of a policy (see [`PolicyRetryHook`]).
#[cfg(feature = "std")]
pub(crate) type PolicyGiveUpHook =
    std::sync::Arc<dyn Fn(&GiveUpEvent<'_, dyn fmt::Display + '_>) + Send + Sync>;

/// A policy's own hooks, shared by its clones: closures that see each
/// failed attempt as text, so that the policy's type does not depend on
/// them and one policy serves operations of any error type.
#[derive(Clone, Default)]
pub(crate) struct PolicyHooks {
    #[cfg(feature = "std")]
    pub(crate) retry: std::vec::Vec<PolicyRetryHook>,
    #[cfg(feature = "std")]
    pub(crate) give_up: std::vec::Vec<PolicyGiveUpHook>,
}

impl fmt::Debug for PolicyHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_struct("PolicyHooks");
        #[cfg(feature = "std")]
        list.field("retry", &self.retry.len()).field("give_up", &self.give_up.len());
        list.finish()
    }
}

impl<E: fmt::Display> Notify<E> for PolicyHooks {
    fn on_retry(&self, event: &RetryEvent<'_, E>) {
        #[cfg(feature = "std")]
        for hook in &self.retry {
            hook(&event.as_text());
        }
        #[cfg(not(feature = "std"))]
        let _ = event;
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_, E>) {
        #[cfg(feature = "std")]
        for hook in &self.give_up {
            hook(&event.as_text());
        }
        #[cfg(not(feature = "std"))]
        let _ = event;
    }
}
