//! [`RetryPolicy::retry`]: one operation under a policy, with the types
//! flowing from the operation into the predicate and the hooks.
//!
//! The operation comes first, so by the time a predicate or a hook is
//! written its error type is known, and the closures need no annotation:
//!
//! ```
//! # use std::time::Duration;
//! use std::io;
//! use staggered::{Preset, RetryPolicy};
//!
//! let policy = RetryPolicy::new(Preset::Interactive.backoff());
//! # let sleeper = |_: Duration| {};
//! # let clock = || Duration::ZERO;
//! let text = policy
//!     .retry(|_| std::fs::read_to_string("Cargo.toml"))
//!     .when(|e| e.kind() != io::ErrorKind::NotFound)
//!     .on_retry(|event| eprintln!("{event}"))
//! #   .run_with(&sleeper, &clock).map(|done| done.value);
//! #   let _ = text;
//! # let text = policy.retry(|_| std::fs::read_to_string("Cargo.toml"))
//!     .call();
//! ```
//!
//! A blocking operation returns a `Result` and ends with `.call()`; an
//! async one returns a future and ends with `.call().await`. Both run the
//! policy's own loop: the call adds only its classifier and hooks.

use core::fmt;
use core::future::Future;
use core::marker::PhantomData;

use crate::budget::Budget;
use crate::classify::{Classifier, Failure, RetryIf};
use crate::retry::event::{GiveUpEvent, Hooks, NoNotify, Notify, OnGiveUp, OnRetry, RetryEvent};
use crate::retry::future::retry_body;
use crate::retry::parts::Parts;
use crate::retry::timeout::{CanBlock, TimeoutFor};
use crate::sleep::{BlockingSleeper, Clock, DefaultRuntime, Runtime, Sleeper};
use crate::{Retried, RetryError, RetryPolicy, Schedule};

/// What an operation's attempt returns, blocking (`Result<R, E>`) or async
/// (a future of one); `M` is [`Blocking`] or [`Async`], and is inferred.
pub trait Outcome<M> {
    /// The value of a success.
    type Value;
    /// The error of a failed attempt.
    type Error;
}

/// An operation that returns its `Result`: ends with `.call()`.
#[derive(Debug)]
pub enum Blocking {}

/// An operation that returns a future of its `Result`: ends with `.call().await`.
#[derive(Debug)]
pub enum Async {}

impl<R, E> Outcome<Blocking> for Result<R, E> {
    type Value = R;
    type Error = E;
}

impl<Fut, R, E> Outcome<Async> for Fut
where
    Fut: Future<Output = Result<R, E>>,
{
    type Value = R;
    type Error = E;
}

impl<S, C, N, B, T> RetryPolicy<S, C, N, B, T> {
    /// Retries `op` (given the attempt number, from 1) with this policy:
    /// blocking if it returns a `Result` (`.call()`), async if it returns a
    /// future (`.call().await`). Before that, [`when`](Retrying::when),
    /// [`classify`](Retrying::classify), [`on_retry`](Retrying::on_retry)
    /// and [`on_give_up`](Retrying::on_give_up) take closures whose
    /// argument types come from `op`.
    pub fn retry<F, O, M>(&self, op: F) -> Retrying<'_, Self, F, O, M>
    where
        F: FnMut(u32) -> O,
        O: Outcome<M>,
    {
        Retrying { policy: self, op, classifier: Inherit, hooks: NoNotify, outcome: PhantomData }
    }
}

/// One operation under a [`RetryPolicy`], made by [`RetryPolicy::retry`].
#[must_use = "nothing is called until `.call()` (and, for an async operation, `.await`)"]
pub struct Retrying<'p, P, F, O, M, W = Inherit, H = NoNotify> {
    policy: &'p P,
    op: F,
    classifier: W,
    hooks: H,
    outcome: PhantomData<fn() -> (O, M)>,
}

impl<P, F, O, M, W, H> fmt::Debug for Retrying<'_, P, F, O, M, W, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Retrying").finish_non_exhaustive()
    }
}

/// The classifier of a [`Retrying`] call: the policy's ([`Inherit`]) or
/// its own ([`Own`]).
pub trait Pick<C> {
    /// The classifier used.
    type Classifier;
    /// The classifier used, given the policy's.
    fn pick<'a>(&'a self, inherited: &'a C) -> &'a Self::Classifier;
}

/// The policy's classifier.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inherit;

/// A classifier of the call's own.
#[derive(Debug, Clone, Copy)]
pub struct Own<X>(X);

impl<C> Pick<C> for Inherit {
    type Classifier = C;
    #[inline]
    fn pick<'a>(&'a self, inherited: &'a C) -> &'a C {
        inherited
    }
}

impl<C, X> Pick<C> for Own<X> {
    type Classifier = X;
    #[inline]
    fn pick<'a>(&'a self, _: &'a C) -> &'a X {
        &self.0
    }
}

impl<'p, P, F, O: Outcome<M>, M, W, H> Retrying<'p, P, F, O, M, W, H> {
    /// Retries only the errors for which `predicate` is true; the others are
    /// permanent. Replaces the policy's classifier for this call.
    pub fn when<Pr>(self, predicate: Pr) -> Retrying<'p, P, F, O, M, Own<RetryIf<Pr>>, H>
    where
        Pr: Fn(&O::Error) -> bool,
    {
        self.with_classifier(RetryIf(predicate))
    }

    /// Classifies the errors with `classifier` (a closure, or a function
    /// such as [`classify_io`](crate::classify::io::classify_io)), server
    /// hints included. Replaces the policy's classifier for this call.
    pub fn classify<Cl>(self, classifier: Cl) -> Retrying<'p, P, F, O, M, Own<Cl>, H>
    where
        Cl: Fn(&O::Error) -> Failure,
    {
        self.with_classifier(classifier)
    }

    fn with_classifier<X>(self, classifier: X) -> Retrying<'p, P, F, O, M, Own<X>, H> {
        let Retrying { policy, op, hooks, outcome, .. } = self;
        Retrying { policy, op, classifier: Own(classifier), hooks, outcome }
    }

    // The builder's type records what was added; nobody writes it out.
    #[allow(clippy::type_complexity)]
    /// Adds `hook`, called before every retry of this call (after the
    /// policy's own hooks). A [`RetryEvent`] displays as a log line.
    pub fn on_retry<G>(self, hook: G) -> Retrying<'p, P, F, O, M, W, Hooks<H, OnRetry<G, O::Error>>>
    where
        G: Fn(&RetryEvent<'_, O::Error>),
    {
        self.with_hook(OnRetry::new(hook))
    }

    #[allow(clippy::type_complexity)]
    /// Adds `hook`, called if this call gives up (after the policy's own
    /// hooks). A [`GiveUpEvent`] displays as a log line.
    pub fn on_give_up<G>(self, hook: G) -> Retrying<'p, P, F, O, M, W, Hooks<H, OnGiveUp<G, O::Error>>>
    where
        G: Fn(&GiveUpEvent<'_, O::Error>),
    {
        self.with_hook(OnGiveUp::new(hook))
    }

    fn with_hook<X>(self, hook: X) -> Retrying<'p, P, F, O, M, W, Hooks<H, X>> {
        let Retrying { policy, op, classifier, hooks, outcome } = self;
        Retrying { policy, op, classifier, hooks: Hooks(hooks, hook), outcome }
    }
}

/// The parts of `policy` with `classifier` and `hooks` for one call.
macro_rules! call_parts {
    ($policy:expr, $classifier:expr, $hooks:expr) => {{
        let policy = $policy;
        Parts {
            schedule: &policy.schedule,
            classifier: $classifier.pick(&policy.classifier),
            notify: $hooks,
            budget: &policy.budget,
            timeout: &policy.timeout,
            limits: &policy.limits,
            trace: policy.trace,
            instruments: &policy.instruments,
            limiter: &policy.limiter,
        }
    }};
}

impl<'p, S, C, N, B, T, F, R, E, W, H>
    Retrying<'p, RetryPolicy<S, C, N, B, T>, F, Result<R, E>, Blocking, W, H>
where
    S: Schedule,
    B: Budget,
    F: FnMut(u32) -> Result<R, E>,
    W: Pick<C>,
    W::Classifier: Classifier<E>,
    N: Notify<E>,
    H: Notify<E>,
    E: fmt::Display,
{
    /// Calls the operation until it succeeds or the policy gives up,
    /// sleeping with `std::thread::sleep`, as
    /// [`RetryPolicy::call`] does.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last error.
    #[cfg(feature = "std")]
    pub fn call(self) -> Result<R, RetryError<E>>
    where
        T: CanBlock,
    {
        self.run_with(&crate::sleep::StdSleeper, &crate::sleep::StdClock).map(|done| done.value)
    }

    /// Like [`call`](Retrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    #[cfg(feature = "std")]
    pub fn run(self) -> Result<Retried<R>, RetryError<E>>
    where
        T: CanBlock,
    {
        self.run_with(&crate::sleep::StdSleeper, &crate::sleep::StdClock)
    }

    /// Like [`run`](Retrying::run), waiting with `sleeper` and reading `clock`.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    pub fn run_with<Z, K>(self, sleeper: &Z, clock: &K) -> Result<Retried<R>, RetryError<E>>
    where
        T: CanBlock,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let hooks = Hooks(&self.policy.notify, &self.hooks);
        if self.policy.limiter.is_set() {
            return call_parts!(self.policy, self.classifier, &hooks)
                .run_blocking_limited(self.op, sleeper, clock);
        }
        call_parts!(self.policy, self.classifier, &hooks).run_blocking(self.op, sleeper, clock)
    }
}

impl<'p, S, C, N, B, T, F, Fut, W, H> Retrying<'p, RetryPolicy<S, C, N, B, T>, F, Fut, Async, W, H>
where
    S: Schedule,
    B: Budget,
    F: FnMut(u32) -> Fut,
    Fut: Future,
    W: Pick<C>,
{
    /// The retrying, as a future to await: until the operation succeeds or
    /// the policy gives up, on tokio's timer, as
    /// [`RetryPolicy::call_async`] does (the deadline cuts a running
    /// attempt). `Send` when the operation, its future and the closures are.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last error.
    pub fn call<R, E>(
        self,
    ) -> impl Future<Output = Result<R, RetryError<E>>> + use<'p, S, C, N, B, T, F, Fut, W, H, R, E>
    where
        Fut: Future<Output = Result<R, E>>,
        W::Classifier: Classifier<E>,
        N: Notify<E>,
        H: Notify<E>,
        T: TimeoutFor<E>,
        E: fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        let Retrying { policy, mut op, classifier, hooks, .. } = self;
        let sleeper = <Runtime<F> as DefaultRuntime>::Sleeper::default();
        let clock = <Runtime<F> as DefaultRuntime>::Clock::default();
        async move {
            let hooks = Hooks(&policy.notify, &hooks);
            retry_body!(policy, call_parts!(policy, classifier, &hooks), op, &sleeper, &clock, done => done.value)
        }
    }

    /// Like [`call`](Retrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    pub fn run<R, E>(
        self,
    ) -> impl Future<Output = Result<Retried<R>, RetryError<E>>> + use<'p, S, C, N, B, T, F, Fut, W, H, R, E>
    where
        Fut: Future<Output = Result<R, E>>,
        W::Classifier: Classifier<E>,
        N: Notify<E>,
        H: Notify<E>,
        T: TimeoutFor<E>,
        E: fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        let Retrying { policy, mut op, classifier, hooks, .. } = self;
        let sleeper = <Runtime<F> as DefaultRuntime>::Sleeper::default();
        let clock = <Runtime<F> as DefaultRuntime>::Clock::default();
        async move {
            let hooks = Hooks(&policy.notify, &hooks);
            retry_body!(policy, call_parts!(policy, classifier, &hooks), op, &sleeper, &clock, done => done)
        }
    }

    /// Like [`run`](Retrying::run), waiting with `sleeper` and reading
    /// `clock`: any runtime's timer, or a recording sleeper in tests.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    pub async fn run_with<R, E, Z, K>(self, sleeper: &Z, clock: &K) -> Result<Retried<R>, RetryError<E>>
    where
        Fut: Future<Output = Result<R, E>>,
        W::Classifier: Classifier<E>,
        N: Notify<E>,
        H: Notify<E>,
        T: TimeoutFor<E>,
        E: fmt::Display,
        Z: Sleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let Retrying { policy, mut op, classifier, hooks, .. } = self;
        let hooks = Hooks(&policy.notify, &hooks);
        retry_body!(policy, call_parts!(policy, classifier, &hooks), op, sleeper, clock, done => done)
    }
}
