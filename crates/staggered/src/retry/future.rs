//! The async driver: the same step as the blocking loop, awaiting instead of
//! blocking, on any runtime through [`Sleeper`] and [`Clock`]. Dropping the
//! future cancels cleanly: it owns nothing but the operation's future and a
//! timer, which drop with it.
//!
//! An async attempt can be cut, so the deadline bounds the whole operation:
//! each attempt runs at most until the deadline (or its per-attempt
//! timeout, if that comes first). A cut attempt fails with [`TimedOut`] if
//! the operation's error type can hold it (the policy has a timeout, so
//! `E: From<TimedOut>`); otherwise the retrying ends there, and the
//! [`RetryError`] says so ([`RetryError::cut_at_deadline`]).

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;

use crate::budget::Budget;
use crate::classify::Classifier;
use crate::retry::event::Notify;
use crate::retry::timeout::TimeoutFor;
use crate::sleep::{Clock, DefaultRuntime, Runtime, Sleeper};
use crate::{Retried, RetryError, RetryPolicy, Schedule, TimedOut};

/// How an attempt failed: with its own error, or cut by its time limit.
pub(crate) enum Failed<E> {
    Error(E),
    Cut(TimedOut),
}

/// The async retry loop, as a block to put in an `async move` block, whose
/// `Ok` is `$map` applied to the [`Retried`] `$done`. Every form of
/// operation (a closure returning a future, an async closure borrowing from
/// its surroundings, a [`Retrying`](crate::Retrying) call) expands this one
/// body: they cannot share a generic function, because naming an async
/// closure's borrowing future is not yet stable Rust. Attempt 1 runs before
/// any retry state exists, so a success builds and stores nothing else
/// (measured in `crates/bench`: 89 -> 62 instructions per call over the
/// earlier nested form).
macro_rules! retry_body {
    ($policy:expr, $parts:expr, $op:ident, $sleeper:expr, $clock:expr, $done:ident => $map:expr) => {{
        // Attempt 1 reads the policy alone; the parts the retries need (the
        // classifier, the hooks) are gathered only once it has failed.
        let policy = $policy;
        let timeout = <_ as $crate::TimeoutFor<E>>::timeout(&policy.timeout);
        let start =
            if policy.limits.deadline.is_some() || timeout.is_some() { Some($clock.now()) } else { None };
        policy.budget.record_request();
        // With a rate limiter, attempt 1 waits for its token in the loop,
        // as the retries do: one await for it, and a policy without one
        // keeps the fast path below as it was.
        let mut failed = if policy.limiter.is_set() {
            None
        } else {
            let first = match policy.limits.attempt_limit(timeout, core::time::Duration::ZERO) {
                None => $op(1).await.map_err($crate::retry::future::Failed::Error),
                Some(cut) => $crate::retry::future::timed($op(1), cut, $sleeper).await,
            };
            match first {
                Ok(value) => {
                    policy.budget.deposit(1, None);
                    policy.instruments.first_try_success();
                    let $done = $crate::Retried { value, attempts: 1, waited: core::time::Duration::ZERO };
                    return Ok($map);
                }
                Err(failed) => Some(failed),
            }
        };
        // Re-derived at each use rather than kept across the awaits: the
        // future keeps the closure (the policy's address, and a call's own
        // classifier and hooks) instead of the parts' nine fields. No
        // temporary of it may live across an await, or it is kept too.
        let parts = || $parts;
        // The error type's name, for `tracing`, named where it is used: a
        // constant there, not a field of the future kept across awaits.
        let error_type = || core::any::type_name::<E>();
        let mut stopwatch = parts().stopwatch::<E, _>(start, $clock);
        let mut decision = parts().decision();
        let mut waited = core::time::Duration::ZERO;
        // The last error an attempt returned, for a cut that has none.
        let mut last: Option<E> = None;
        loop {
            // A failure is classified and decided on in a block that ends
            // before the sleep: what only the decision reads is not kept in
            // the future across it.
            let wait = match failed.take() {
                None => None,
                Some(failed) => {
                    let (error, failure) = match failed {
                        $crate::retry::future::Failed::Error(error) => {
                            let failure = parts().classify_error(&error);
                            (error, failure)
                        }
                        $crate::retry::future::Failed::Cut(cut) => {
                            match <_ as $crate::TimeoutFor<E>>::make_error(parts().timeout) {
                                Some(make) => (make(cut), $crate::Failure::timeout()),
                                None => {
                                    parts().limiter.record(false);
                                    let elapsed = stopwatch.elapsed($clock);
                                    let reason =
                                        parts().cut(&mut decision, last.as_ref(), error_type(), cut, elapsed);
                                    return Err($crate::RetryError::cut(
                                        reason,
                                        decision.attempt(),
                                        waited,
                                        last,
                                        cut,
                                    ));
                                }
                            }
                        }
                    };
                    parts().limiter.record(failure.kind == $crate::ErrorKind::Throttled);
                    let stepped = parts().step(
                        &mut decision,
                        &error,
                        error_type(),
                        failure,
                        stopwatch.elapsed($clock),
                        parts().next_delay(),
                    );
                    match stepped {
                        Ok(delay) => {
                            last = Some(error);
                            // Counted before the sleep: a future dropped
                            // during it reports nothing.
                            waited = waited.saturating_add(delay);
                            Some(delay)
                        }
                        Err(reason) => {
                            return Err($crate::RetryError::new(reason, decision.attempt(), waited, error))
                        }
                    }
                }
            };
            if let Some(delay) = wait {
                // Even a zero wait goes to the sleeper: on a runtime it yields.
                $sleeper.sleep(delay).await;
            }
            if parts().limiter.is_set() {
                // Bound first, like the step: the parts end with this statement.
                let acquire = parts().limiter.acquire(parts().limits, stopwatch.start(), $sleeper, $clock);
                match acquire.await {
                    Ok(wait) => waited = waited.saturating_add(wait),
                    Err((reason, wait)) => {
                        let attempts = decision.attempt().saturating_sub(1);
                        let elapsed =
                            stopwatch.start().map_or(core::time::Duration::ZERO, |start| $clock.since(start));
                        let budget = decision.budget().metrics();
                        parts().unsent(reason, attempts, last.as_ref(), error_type(), elapsed, budget);
                        let waited = waited.saturating_add(wait);
                        return Err($crate::RetryError::unsent(reason, attempts, waited, last));
                    }
                }
            }
            // No start read means no deadline and no timeout: nothing to
            // cut the attempt, and no clock to read for it.
            let limit = stopwatch
                .start()
                .and_then(|start| parts().limits.attempt_limit(timeout, $clock.since(start)));
            let outcome = match limit {
                None => $op(decision.attempt()).await.map_err($crate::retry::future::Failed::Error),
                Some(cut) => $crate::retry::future::timed($op(decision.attempt()), cut, $sleeper).await,
            };
            match outcome {
                Ok(value) => {
                    // Read again rather than kept across the attempt's await.
                    let attempt = decision.attempt();
                    parts().limiter.record(false);
                    if attempt == 1 {
                        decision.on_success();
                        parts().instruments.first_try_success();
                    } else {
                        parts().succeeded(&mut decision);
                    }
                    let $done = $crate::Retried { value, attempts: attempt, waited };
                    return Ok($map);
                }
                Err(next) => failed = Some(next),
            }
        }
    }};
}

pub(crate) use retry_body;

impl<S: Schedule, C, N, B: Budget, T> RetryPolicy<S, C, N, B, T> {
    /// Awaits `op` (given the attempt number, from 1) until it succeeds or the
    /// policy gives up, sleeping on tokio's timer (feature `tokio`). `op` is
    /// a closure returning a future; the retry future is `Send` when they
    /// are, so it can be spawned. For an async closure that borrows mutably
    /// across an await, use [`call_async_mut`](RetryPolicy::call_async_mut).
    ///
    /// The deadline bounds the whole operation: an attempt still running
    /// when the time left runs out is cut (see the
    /// [module docs](crate#deadlines)).
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last error.
    pub fn call_async<R, E, F, Fut>(
        &self,
        mut op: F,
    ) -> impl Future<Output = Result<R, RetryError<E>>> + use<'_, R, E, F, Fut, S, C, N, B, T>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        let sleeper = <Runtime<F> as DefaultRuntime>::Sleeper::default();
        let clock = <Runtime<F> as DefaultRuntime>::Clock::default();
        async move { retry_body!(self, self.parts(), op, &sleeper, &clock, done => done.value) }
    }

    /// Like [`call_async`](RetryPolicy::call_async), returning the attempts
    /// made and the time waited with the value.
    ///
    /// # Errors
    /// As [`call_async`](RetryPolicy::call_async).
    pub fn run_async<R, E, F, Fut>(
        &self,
        mut op: F,
    ) -> impl Future<Output = Result<Retried<R>, RetryError<E>>> + use<'_, R, E, F, Fut, S, C, N, B, T>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        let sleeper = <Runtime<F> as DefaultRuntime>::Sleeper::default();
        let clock = <Runtime<F> as DefaultRuntime>::Clock::default();
        async move { retry_body!(self, self.parts(), op, &sleeper, &clock, done => done) }
    }

    /// Like [`run_async`](RetryPolicy::run_async), waiting with `sleeper` and
    /// reading `clock`: any runtime's timer, or a recording sleeper in tests.
    ///
    /// # Errors
    /// As [`call_async`](RetryPolicy::call_async).
    pub async fn run_async_with<R, E, F, Fut, Z, K>(
        &self,
        mut op: F,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Z: Sleeper + ?Sized,
        K: Clock + ?Sized,
    {
        retry_body!(self, self.parts(), op, sleeper, clock, done => done)
    }

    /// Like [`call_async`](RetryPolicy::call_async) for an async closure
    /// that borrows mutably from its surroundings across an await
    /// (`async |attempt| { log.push(attempt); ... }`). Such a future cannot
    /// be proven `Send` by today's compiler, so spawn the other form, with
    /// the state in an `Arc` (see [state across attempts](crate#state-across-attempts)).
    ///
    /// # Errors
    /// As [`call_async`](RetryPolicy::call_async).
    pub async fn call_async_mut<R, E, F>(&self, mut op: F) -> Result<R, RetryError<E>>
    where
        F: AsyncFnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        let sleeper = <Runtime<F> as DefaultRuntime>::Sleeper::default();
        let clock = <Runtime<F> as DefaultRuntime>::Clock::default();
        retry_body!(self, self.parts(), op, &sleeper, &clock, done => done.value)
    }

    /// Like [`call_async_mut`](RetryPolicy::call_async_mut), with the
    /// attempts and time waited, on any runtime's `sleeper` and `clock`.
    ///
    /// # Errors
    /// As [`call_async`](RetryPolicy::call_async).
    pub async fn run_async_mut_with<R, E, F, Z, K>(
        &self,
        mut op: F,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: AsyncFnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Z: Sleeper + ?Sized,
        K: Clock + ?Sized,
    {
        retry_body!(self, self.parts(), op, sleeper, clock, done => done)
    }
}

/// One attempt under a time limit: its result, or [`Failed::Cut`] when
/// `cut` passes first.
pub(crate) async fn timed<R, E, W, Z>(work: W, cut: Duration, sleeper: &Z) -> Result<R, Failed<E>>
where
    W: Future<Output = Result<R, E>>,
    Z: Sleeper + ?Sized,
{
    match race(work, sleeper.cut_after(cut)).await {
        Some(result) => result.map_err(Failed::Error),
        None => Err(Failed::Cut(TimedOut { after: cut })),
    }
}

/// Polls `work` and `timer` together: `Some(output)` if `work` finishes first,
/// `None` if the timer does. Both are dropped on return.
pub(crate) async fn race<W: Future, D: Future<Output = ()>>(work: W, timer: D) -> Option<W::Output> {
    let mut work = pin!(work);
    let mut timer = pin!(timer);
    poll_fn(|cx| {
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await
}
