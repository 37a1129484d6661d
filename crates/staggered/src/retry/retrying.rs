//! [`RetryPolicy::retry`]: one operation under a policy, with the types
//! flowing from the operation into the predicate and the hooks.
//!
//! The operation comes first, so by the time a predicate or a hook is
//! written its error type is known, and the closures need no annotation:
//!
//! ```
//! use std::io;
//! use staggered::{Preset, RetryPolicy};
//!
//! let policy = RetryPolicy::new(Preset::Interactive.backoff());
//! let text = policy
//!     .retry(|_| std::fs::read_to_string("Cargo.toml"))
//!     .when(|e| e.kind() != io::ErrorKind::NotFound)
//!     .on_retry(|event| eprintln!("{event}"))
//!     .call()?;
//! # Ok::<(), staggered::RetryError<io::Error>>(())
//! ```
//!
//! A blocking operation returns a `Result` and ends with `.call()`; an
//! async one returns a future and ends with `.call().await`. Between the
//! two: [`when`](Retrying::when) or [`classify`](Retrying::classify) (which
//! errors to retry), [`until`](Retrying::until) (poll until a value is
//! ready), [`on_retry`](Retrying::on_retry) and
//! [`on_give_up`](Retrying::on_give_up) (hooks),
//! [`cancel_on`](Retrying::cancel_on) (stop from outside), and
//! [`with_timer`](Retrying::with_timer) (a sleeper and clock of your own:
//! a mock in tests). [`run`](Retrying::run) instead of `call` also returns
//! the attempts made and the time waited.

// The builder's type records what each call added; nobody writes it out.
#![allow(clippy::type_complexity)]

use core::fmt;
use core::future::{Future, IntoFuture};
use core::marker::PhantomData;
use core::time::Duration;

use crate::classify::{Classifier, Failure, RetryIf};
use crate::retry::event::{GiveUpEvent, Hooks, NoNotify, Notify, OnGiveUp, OnRetry, RetryEvent};
use crate::retry::future::Sending;
pub use crate::retry::judge::{Always, Readiness, Until};
use crate::retry::judge::{Call, Judge};
use crate::retry::timeout::{CanBlock, FromTimedOut, Timeout};
use crate::sleep::{BlockingSleeper, Clock, Sleeper};
use crate::{Retried, RetryError, RetryPolicy, Schedule};

/// What an operation's attempt returns, blocking (`Result<V, E>`) or async
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

impl<V, E> Outcome<Blocking> for Result<V, E> {
    type Value = V;
    type Error = E;
}

impl<Fut, V, E> Outcome<Async> for Fut
where
    Fut: Future<Output = Result<V, E>>,
{
    type Value = V;
    type Error = E;
}

impl<S, C, T> RetryPolicy<S, C, T> {
    /// Retries `op` (given the attempt number, from 1) with this policy:
    /// blocking if it returns a `Result` (`.call()`), async if it returns a
    /// future (`.call().await`). Before that, the call's own options take
    /// closures whose argument types come from `op` (see [`Retrying`]).
    pub fn retry<F, O, M>(&self, op: F) -> Retrying<'_, Self, F, O, M>
    where
        F: FnMut(u32) -> O,
        O: Outcome<M>,
    {
        Retrying {
            policy: self,
            op,
            classifier: Inherit,
            ready: Always,
            hooks: NoNotify,
            cancel: NoCancel,
            timer: DefaultTimer,
            hedging: CallHedging::default(),
            outcome: PhantomData,
        }
    }
}

/// One operation under a [`RetryPolicy`], made by [`RetryPolicy::retry`].
#[must_use = "nothing is called until `.call()` (and, for an async operation, `.await`)"]
pub struct Retrying<'p, P, F, O, M, W = Inherit, U = Always, H = NoNotify, X = NoCancel, Tm = DefaultTimer> {
    policy: &'p P,
    op: F,
    classifier: W,
    ready: U,
    hooks: H,
    cancel: X,
    timer: Tm,
    hedging: CallHedging,
    outcome: PhantomData<fn() -> (O, M)>,
}

/// The hedging of an async call, if it hedges (hedging needs `std`).
#[cfg(feature = "std")]
type CallHedging = Option<crate::Hedging>;
#[cfg(not(feature = "std"))]
type CallHedging = ();

/// A blocking call is never hedged ([`CanHedge`]): its hedging, none, ends
/// where the call starts instead of being kept, unread, to its end.
#[inline]
fn never_hedged(_: CallHedging) {}

impl<P, F, O, M, W, U, H, X, Tm> fmt::Debug for Retrying<'_, P, F, O, M, W, U, H, X, Tm> {
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
pub struct Own<K>(K);

impl<C> Pick<C> for Inherit {
    type Classifier = C;
    fn pick<'a>(&'a self, inherited: &'a C) -> &'a C {
        inherited
    }
}

impl<C, K> Pick<C> for Own<K> {
    type Classifier = K;
    fn pick<'a>(&'a self, _: &'a C) -> &'a K {
        &self.0
    }
}

/// No cancel signal: the call runs until it succeeds or gives up.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCancel;

impl IntoFuture for NoCancel {
    type Output = ();
    type IntoFuture = core::future::Pending<()>;
    fn into_future(self) -> Self::IntoFuture {
        core::future::pending()
    }
}

/// What may cancel a blocking call: [`NoCancel`], or a
/// [`&CancelFlag`](crate::CancelFlag). The methods are the blocking loop's.
pub trait BlockingCancel {
    /// Whether the call is cancelled now.
    fn is_cancelled(&self) -> bool;
    /// Sleeps `delay` with `sleeper` unless cancelled first; whether it was.
    fn sleep<Z: BlockingSleeper + ?Sized>(&self, sleeper: &Z, delay: Duration) -> bool;
}

#[cfg(feature = "std")]
impl BlockingCancel for &crate::CancelFlag {
    fn is_cancelled(&self) -> bool {
        crate::CancelFlag::is_cancelled(self)
    }
    fn sleep<Z: BlockingSleeper + ?Sized>(&self, sleeper: &Z, delay: Duration) -> bool {
        sleeper.sleep_unless(delay, self)
    }
}

impl BlockingCancel for NoCancel {
    fn is_cancelled(&self) -> bool {
        false
    }
    fn sleep<Z: BlockingSleeper + ?Sized>(&self, sleeper: &Z, delay: Duration) -> bool {
        sleeper.sleep(delay);
        false
    }
}

/// The default timer: `std::thread::sleep` and `std::time::Instant` for a
/// blocking call, tokio's timer and clock for an async one (feature
/// `tokio`; they honour tokio's paused time).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultTimer;

/// A sleeper and a clock of the caller's: set by
/// [`with_timer`](Retrying::with_timer).
#[derive(Debug)]
pub struct Timer<'t, Z: ?Sized, K: ?Sized> {
    sleeper: &'t Z,
    clock: &'t K,
}

impl<'t, Z: ?Sized, K: ?Sized> Timer<'t, Z, K> {
    pub(crate) fn new(sleeper: &'t Z, clock: &'t K) -> Self {
        Timer { sleeper, clock }
    }
}

/// The sleeper and clock a call of kind `M` ([`Blocking`] or [`Async`]) waits
/// and measures with.
#[diagnostic::on_unimplemented(
    message = "an async retry needs a timer: enable staggered's `tokio` feature, or give the call your \
               runtime's sleeper and clock with `.with_timer(&sleeper, &clock)`",
    label = "no default timer for this call"
)]
pub trait TimerFor<M> {
    /// The sleeper.
    type Sleeper: ?Sized;
    /// The clock.
    type Clock: Clock + ?Sized;
    /// The sleeper.
    fn sleeper(&self) -> &Self::Sleeper;
    /// The clock.
    fn clock(&self) -> &Self::Clock;
}

#[cfg(feature = "std")]
impl TimerFor<Blocking> for DefaultTimer {
    type Sleeper = crate::sleep::StdSleeper;
    type Clock = crate::sleep::StdClock;
    fn sleeper(&self) -> &Self::Sleeper {
        &crate::sleep::StdSleeper
    }
    fn clock(&self) -> &Self::Clock {
        &crate::sleep::StdClock
    }
}

#[cfg(feature = "tokio")]
impl TimerFor<Async> for DefaultTimer {
    type Sleeper = crate::sleep::TokioSleeper;
    type Clock = crate::sleep::TokioClock;
    fn sleeper(&self) -> &Self::Sleeper {
        &crate::sleep::TokioSleeper
    }
    fn clock(&self) -> &Self::Clock {
        &crate::sleep::TokioClock
    }
}

impl<M, Z: ?Sized, K: Clock + ?Sized> TimerFor<M> for Timer<'_, Z, K> {
    type Sleeper = Z;
    type Clock = K;
    fn sleeper(&self) -> &Z {
        self.sleeper
    }
    fn clock(&self) -> &K {
        self.clock
    }
}

impl<'p, P, F, O: Outcome<M>, M, W, U, H, X, Tm> Retrying<'p, P, F, O, M, W, U, H, X, Tm> {
    /// Retries only the errors for which `predicate` is true; the others are
    /// permanent. Replaces the policy's classifier for this call.
    pub fn when<Pr>(self, predicate: Pr) -> Retrying<'p, P, F, O, M, Own<RetryIf<Pr>>, U, H, X, Tm>
    where
        Pr: Fn(&O::Error) -> bool,
    {
        self.with_classifier(RetryIf(predicate))
    }

    /// Classifies the errors with `classifier` (a closure, or a function
    /// such as [`classify_io`](crate::classify::io::classify_io)), server
    /// hints included. Replaces the policy's classifier for this call.
    pub fn classify<Cl>(self, classifier: Cl) -> Retrying<'p, P, F, O, M, Own<Cl>, U, H, X, Tm>
    where
        Cl: Fn(&O::Error) -> Failure,
    {
        self.with_classifier(classifier)
    }

    fn with_classifier<K>(self, classifier: K) -> Retrying<'p, P, F, O, M, Own<K>, U, H, X, Tm> {
        let Retrying { policy, op, ready, hooks, cancel, timer, hedging, outcome, .. } = self;
        Retrying { policy, op, classifier: Own(classifier), ready, hooks, cancel, timer, hedging, outcome }
    }

    /// Adds `hook`, called before every retry of this call (after the
    /// policy's own hooks), with the failed attempt typed: the error, or
    /// after [`until`](Retrying::until) a [`FailedAttempt`](crate::FailedAttempt).
    /// A [`RetryEvent`] displays as a log line.
    pub fn on_retry<G>(
        self,
        hook: G,
    ) -> Retrying<'p, P, F, O, M, W, U, Hooks<H, OnRetry<G, U::Failed>>, X, Tm>
    where
        U: Readiness<O::Value, O::Error>,
        G: Fn(&RetryEvent<'_, U::Failed>),
    {
        self.with_hook(OnRetry::new(hook))
    }

    /// Adds `hook`, called if this call gives up (after the policy's own
    /// hooks). A [`GiveUpEvent`] displays as a log line.
    pub fn on_give_up<G>(
        self,
        hook: G,
    ) -> Retrying<'p, P, F, O, M, W, U, Hooks<H, OnGiveUp<G, U::Failed>>, X, Tm>
    where
        U: Readiness<O::Value, O::Error>,
        G: Fn(&GiveUpEvent<'_, U::Failed>),
    {
        self.with_hook(OnGiveUp::new(hook))
    }

    /// Adds `hook`, a [`Notify`] type that hears both the retries and the
    /// give-up of this call, typed as for [`on_retry`](Retrying::on_retry).
    pub fn notify<K>(self, hook: K) -> Retrying<'p, P, F, O, M, W, U, Hooks<H, K>, X, Tm>
    where
        U: Readiness<O::Value, O::Error>,
        K: Notify<U::Failed>,
    {
        self.with_hook(hook)
    }

    fn with_hook<K>(self, hook: K) -> Retrying<'p, P, F, O, M, W, U, Hooks<H, K>, X, Tm> {
        let Retrying { policy, op, classifier, ready, hooks, cancel, timer, hedging, outcome } = self;
        Retrying { policy, op, classifier, ready, hooks: Hooks(hooks, hook), cancel, timer, hedging, outcome }
    }

    /// Stops the retrying with [`StopReason::Cancelled`](crate::StopReason::Cancelled)
    /// when `signal` fires: for an async call, any future (such as
    /// `tokio_util`'s `token.cancelled()`), which ends a wait or the
    /// attempt in flight (dropping it) at once; for a blocking call, a
    /// [`&CancelFlag`](crate::CancelFlag), checked before each attempt and
    /// ending a wait at once. Nothing is taken from the budget or the rate
    /// limiter after the cancel, and a retry the budget paid for but that
    /// was not sent is given back.
    pub fn cancel_on<X2>(self, signal: X2) -> Retrying<'p, P, F, O, M, W, U, H, X2, Tm> {
        let Retrying { policy, op, classifier, ready, hooks, timer, hedging, outcome, .. } = self;
        Retrying { policy, op, classifier, ready, hooks, cancel: signal, timer, hedging, outcome }
    }

    /// Waits with `sleeper` and reads `clock` instead of the default timer:
    /// a mock clock and a recording sleeper in tests
    /// (`test_util`, feature `test-util`), another runtime's timer in
    /// production (any `Fn(Duration) -> impl Future`).
    pub fn with_timer<'t, Z: ?Sized, K: ?Sized>(
        self,
        sleeper: &'t Z,
        clock: &'t K,
    ) -> Retrying<'p, P, F, O, M, W, U, H, X, Timer<'t, Z, K>> {
        let Retrying { policy, op, classifier, ready, hooks, cancel, hedging, outcome, .. } = self;
        Retrying {
            policy,
            op,
            classifier,
            ready,
            hooks,
            cancel,
            timer: Timer::new(sleeper, clock),
            hedging,
            outcome,
        }
    }

    /// Hedges the call: while no copy has answered, sends another after
    /// the [`Hedging`](crate::Hedging) delay, and takes the first success
    /// (see [`Hedging`](crate::Hedging) for the rules). Async calls only:
    /// a blocking call cannot have two attempts in flight. Every copy but
    /// the first costs what a retry does from the policy's budget and
    /// takes a token from its rate limiter; the deadline cuts them all. The
    /// hedging's `max_attempts` replaces the policy's, and the schedule's
    /// delays are not used.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use staggered::{Hedging, Preset, RetryPolicy};
    ///
    /// let policy = RetryPolicy::new(Preset::Interactive.backoff());
    /// let hedging = Hedging::after(Duration::from_millis(10)).with_max_attempts(3)?;
    /// let done = policy
    ///     .retry(|copy| async move {
    ///         // The first copy stalls; the second answers in 5 ms.
    ///         let latency = if copy == 1 { 1_000 } else { 5 };
    ///         tokio::time::sleep(Duration::from_millis(latency)).await;
    ///         Ok::<_, staggered::TimedOut>(copy)
    ///     })
    ///     .hedge(hedging)
    ///     .run()
    ///     .await?;
    /// // Copy 2 went at 10 ms and answered at 15 ms, before copy 3 was due.
    /// assert_eq!((done.value, done.winner, done.attempts), (2, 2, 2));
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "std")]
    pub fn hedge(mut self, hedging: crate::Hedging) -> Self
    where
        M: CanHedge,
    {
        self.hedging = Some(hedging);
        self
    }
}

/// Which calls can be hedged: async ones, whose attempts can run side by
/// side and be dropped. A blocking call does not compile with a hedge:
///
/// ```compile_fail,E0277
/// use std::time::Duration;
/// use staggered::{Hedging, Preset, RetryPolicy};
///
/// let policy = RetryPolicy::new(Preset::Interactive.backoff());
/// let hedging = Hedging::after(Duration::from_millis(10));
/// let _ = policy.retry(|_| Ok::<_, std::io::Error>(1)).hedge(hedging).call();
/// ```
#[diagnostic::on_unimplemented(
    message = "a blocking call cannot be hedged: two attempts cannot be in flight at once",
    label = "this call is blocking",
    note = "make the operation async (return a future) to hedge it"
)]
pub trait CanHedge {}

impl CanHedge for Async {}

impl<'p, P, F, O: Outcome<M>, M, W, X, Tm> Retrying<'p, P, F, O, M, W, Always, NoNotify, X, Tm> {
    /// Polls: a value for which `ready` is false is not a success but a
    /// transient failure, retried on the schedule under every limit like an
    /// error (a job still `Pending`, a resource not yet created). When the
    /// retrying stops on such a value, the [`RetryError`] gives it back
    /// ([`RetryError::value`]). Set it before the hooks: they see a
    /// [`FailedAttempt`](crate::FailedAttempt), an error or a value not ready.
    ///
    /// ```
    /// use staggered::{Preset, RetryPolicy, StopReason};
    /// # use std::time::Duration;
    ///
    /// let policy = RetryPolicy::new(Preset::Interactive.backoff()); // 3 attempts
    /// let status = policy
    ///     .retry(|attempt| Ok::<_, std::io::Error>(if attempt < 3 { "pending" } else { "done" }))
    ///     .until(|status| *status == "done")
    /// #   .with_timer(&|_| {}, &|| Duration::ZERO)
    ///     .call()?;
    /// assert_eq!(status, "done");
    ///
    /// let stuck = policy
    ///     .retry(|_| Ok::<_, std::io::Error>("pending"))
    ///     .until(|status| *status == "done")
    /// #   .with_timer(&|_| {}, &|| Duration::ZERO)
    ///     .call()
    ///     .unwrap_err();
    /// assert_eq!((stuck.reason(), stuck.value()), (StopReason::AttemptsExhausted, Some(&"pending")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn until<R>(self, ready: R) -> Retrying<'p, P, F, O, M, W, Until<R>, NoNotify, X, Tm>
    where
        R: Fn(&O::Value) -> bool,
    {
        let Retrying { policy, op, classifier, hooks, cancel, timer, hedging, outcome, .. } = self;
        Retrying { policy, op, classifier, ready: Until(ready), hooks, cancel, timer, hedging, outcome }
    }
}

impl<'p, S, C, T, F, V, E, W, U, H, X, Tm>
    Retrying<'p, RetryPolicy<S, C, T>, F, Result<V, E>, Blocking, W, U, H, X, Tm>
where
    S: Schedule,
    T: Timeout,
    F: FnMut(u32) -> Result<V, E>,
    W: Pick<C>,
    W::Classifier: Classifier<E>,
    U: Readiness<V, E>,
    H: Notify<U::Failed>,
    X: BlockingCancel,
    Tm: TimerFor<Blocking>,
    Tm::Sleeper: BlockingSleeper,
{
    /// Calls the operation until it succeeds or the policy gives up,
    /// sleeping with `std::thread::sleep` unless [given a
    /// timer](Retrying::with_timer). A running call cannot be cut: the
    /// deadline is kept by never starting an attempt the wait before which
    /// would reach it.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and what
    /// the last attempt left.
    // `T: CanBlock` on each method, not on the impl: so a policy with a
    // per-attempt timeout gets `CanBlock`'s own message, which says what
    // to do instead, rather than "the method exists but...".
    pub fn call(self) -> Result<V, RetryError<E, U::Unready>>
    where
        T: CanBlock,
    {
        self.run().map(|done| done.value)
    }

    /// Like [`call`](Retrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    #[inline]
    pub fn run(self) -> Result<Retried<V>, RetryError<E, U::Unready>>
    where
        T: CanBlock,
    {
        let Retrying { policy, op, classifier, ready, hooks, cancel, timer, hedging, .. } = self;
        never_hedged(hedging);
        let judge = Call { classifier: classifier.pick(&policy.classifier), ready: &ready };
        let (sleeper, clock) = (timer.sleeper(), timer.clock());
        crate::retry::blocking::drive(policy, &policy.limits, op, &judge, &hooks, sleeper, clock, cancel)
            .map_err(|stopped| stopped.into_error(<Call<'_, W::Classifier, U> as Judge<V, E>>::last))
    }
}

impl<'p, S, C, T, F, Fut, V, E, W, U, H, X, Tm>
    Retrying<'p, RetryPolicy<S, C, T>, F, Fut, Async, W, U, H, X, Tm>
where
    S: Schedule,
    T: Timeout,
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<V, E>>,
    E: FromTimedOut,
    W: Pick<C>,
    W::Classifier: Classifier<E>,
    U: Readiness<V, E>,
    H: Notify<U::Failed>,
    X: IntoFuture<Output = ()>,
    Tm: TimerFor<Async>,
    Tm::Sleeper: Sleeper,
{
    /// The retrying, as a future to await: until the operation succeeds or
    /// the policy gives up, on tokio's timer unless [given
    /// one](Retrying::with_timer). The deadline bounds the whole operation:
    /// an attempt still running when the time left runs out is cut, and
    /// fails with [`TimedOut`](crate::TimedOut) (so the error type must
    /// hold one: `E: From<TimedOut>`). `Send` when the operation, its
    /// future, the closures and the policy's parts are.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and what
    /// the last attempt left.
    //
    // Not an `async fn` awaiting `run`, which would wrap the retrying in one
    // more future to build, poll through and drop on every call: `call` and
    // `run` both return `retry_then`'s future itself.
    pub fn call(
        self,
    ) -> impl Future<Output = Result<V, RetryError<E, U::Unready>>> + use<'p, S, C, T, F, Fut, V, E, W, U, H, X, Tm>
    {
        self.retry_then(|done| done.value)
    }

    /// Like [`call`](Retrying::call), with the attempts made and the time waited.
    ///
    /// # Errors
    /// As [`call`](Retrying::call).
    pub fn run(
        self,
    ) -> impl Future<Output = Result<Retried<V>, RetryError<E, U::Unready>>>
           + use<'p, S, C, T, F, Fut, V, E, W, U, H, X, Tm> {
        self.retry_then(|done| done)
    }

    /// The retrying, its success given to the caller as `finish` makes it.
    async fn retry_then<R>(
        self,
        finish: impl FnOnce(Retried<V>) -> R,
    ) -> Result<R, RetryError<E, U::Unready>> {
        let Retrying { policy, mut op, classifier, ready, hooks, cancel, timer, hedging, .. } = self;
        let judge = Call { classifier: classifier.pick(&policy.classifier), ready: &ready };
        let (sleeper, clock) = (timer.sleeper(), timer.clock());
        let send = |attempt, _| Sending { future: op(attempt), repeatable: true };
        let (limits, cancel) = (&policy.limits, cancel.into_future());
        #[cfg(feature = "std")]
        let outcome = match &hedging {
            Some(hedging) => {
                crate::retry::hedge::drive(
                    policy, limits, hedging, send, &judge, &hooks, sleeper, clock, cancel,
                )
                .await
            }
            None => {
                crate::retry::future::drive(policy, limits, send, &judge, &hooks, sleeper, clock, cancel)
                    .await
            }
        };
        #[cfg(not(feature = "std"))]
        let ((), outcome) = (
            hedging,
            crate::retry::future::drive(policy, limits, send, &judge, &hooks, sleeper, clock, cancel).await,
        );
        outcome
            .map(finish)
            .map_err(|stopped| stopped.into_error(<Call<'_, W::Classifier, U> as Judge<V, E>>::last))
    }
}
