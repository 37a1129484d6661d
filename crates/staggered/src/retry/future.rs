//! The async driver: the same step as the blocking loop, awaiting instead of
//! blocking, on any runtime through [`Sleeper`] and [`Clock`]. Dropping the
//! future cancels cleanly: it owns nothing but the operation's future and a
//! timer, which drop with it.

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;

use crate::budget::Budget;
use crate::classify::{Classifier, Failure};
use crate::retry::event::Notify;
use crate::retry::timeout::{MakeTimeoutError, TimeoutFor};
use crate::sleep::{Clock, DefaultRuntime, Runtime, Sleeper};
use crate::{Retried, RetryError, RetryPolicy, Schedule, TimedOut};

/// The async retry loop, as an `async move` block (not awaited) whose `Ok`
/// is `$map` applied to the [`Retried`] `$done`. Both forms of operation (a
/// closure returning a future, and an async closure borrowing from its
/// surroundings) expand this one body: they cannot share a generic
/// function, because naming an async closure's borrowing future is not yet
/// stable Rust. Attempt 1 runs before any retry state exists, so a success
/// builds and stores nothing else (measured in `crates/bench`: 89 -> 62
/// instructions per call over the earlier nested form).
macro_rules! retry_block {
    ($self:ident, $op:ident, $sleeper:expr, $clock:expr, $done:ident => $map:expr) => {
        async move {
            let limit = $self.timeout.limit();
            let start =
                if $self.limits.deadline.is_some() || limit.is_some() { Some($clock.now()) } else { None };
            $self.budget.record_request();
            let first = match limit {
                None => $op(1).await.map_err(|error| (error, false)),
                Some((timeout, make)) => {
                    let elapsed = start.map_or(Duration::ZERO, |start| $clock.since(start));
                    let cut = $self.limits.attempt_time(timeout, elapsed);
                    timed($op(1), cut, make, $sleeper).await
                }
            };
            let (mut error, mut cut) = match first {
                Ok(value) => {
                    $self.budget.deposit(1, None);
                    let $done = Retried { value, attempts: 1, waited: Duration::ZERO };
                    return Ok($map);
                }
                Err(failed) => failed,
            };
            let mut stopwatch = $self.stopwatch::<E, _>(start, $clock);
            let mut decision = $self.decision();
            let mut waited = Duration::ZERO;
            loop {
                let failure = if cut { Failure::timeout() } else { $self.classify_error(&error) };
                match $self.step(&mut decision, &error, failure, stopwatch.elapsed($clock)) {
                    Ok(delay) => {
                        // Even a zero wait goes to the sleeper: on a runtime it yields.
                        $sleeper.sleep(delay).await;
                        waited = waited.saturating_add(delay);
                    }
                    Err(reason) => return Err(RetryError::new(reason, decision.attempt(), waited, error)),
                }
                let attempt = decision.attempt();
                let outcome = match limit {
                    None => $op(attempt).await.map_err(|error| (error, false)),
                    Some((timeout, make)) => {
                        let elapsed = stopwatch.start().map_or(Duration::ZERO, |start| $clock.since(start));
                        timed($op(attempt), $self.limits.attempt_time(timeout, elapsed), make, $sleeper).await
                    }
                };
                match outcome {
                    Ok(value) => {
                        decision.on_success();
                        let $done = Retried { value, attempts: attempt, waited };
                        return Ok($map);
                    }
                    Err((next, next_cut)) => {
                        error = next;
                        cut = next_cut;
                    }
                }
            }
        }
    };
}

impl<S: Schedule, C, N, B: Budget, T> RetryPolicy<S, C, N, B, T> {
    /// Awaits `op` (given the attempt number, from 1) until it succeeds or the
    /// policy gives up, sleeping on tokio's timer (feature `tokio`). `op` is
    /// a closure returning a future; the retry future is `Send` when they
    /// are, so it can be spawned. For an async closure that borrows mutably
    /// across an await, use [`call_async_mut`](RetryPolicy::call_async_mut).
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
        retry_block!(self, op, &sleeper, &clock, done => done.value)
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
        retry_block!(self, op, &sleeper, &clock, done => done)
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
        retry_block!(self, op, sleeper, clock, done => done).await
    }

    /// Like [`call_async`](RetryPolicy::call_async) for an async closure
    /// that borrows mutably from its surroundings across an await
    /// (`async |attempt| { log.push(attempt); ... }`). Such a future cannot
    /// be proven `Send` by today's compiler, so spawn the other form.
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
        retry_block!(self, op, &sleeper, &clock, done => done.value).await
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
        retry_block!(self, op, sleeper, clock, done => done).await
    }
}

/// One attempt under a time limit: its result, or the error `make` builds
/// when `cut` passes first (flagged `true`).
async fn timed<R, E, W, Z>(
    work: W,
    cut: Duration,
    make: MakeTimeoutError<E>,
    sleeper: &Z,
) -> Result<R, (E, bool)>
where
    W: Future<Output = Result<R, E>>,
    Z: Sleeper + ?Sized,
{
    match race(work, sleeper.sleep(cut)).await {
        Some(result) => result.map_err(|error| (error, false)),
        None => Err((make(TimedOut { after: cut }), true)),
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
