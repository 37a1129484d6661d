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
use crate::event::Notify;
use crate::sleep::{Clock, DefaultRuntime, Runtime, Sleeper};
use crate::timeout::TimeoutFor;
use crate::{Retried, RetryError, RetryPolicy, Schedule, TimedOut};

/// The async retry loop. Both forms of operation (a closure returning a
/// future, and an async closure borrowing from its surroundings) expand this
/// one body: they cannot share a generic function, because naming an async
/// closure's borrowing future is not yet stable Rust.
macro_rules! retry_loop {
    ($self:ident, $op:ident, $sleeper:ident, $clock:ident) => {
        // An async block, so that `return` leaves the loop and not the caller.
        async {
            let limit = $self.timeout.limit();
            let needs_clock = $self.limits.deadline.is_some() || limit.is_some();
            let mut start = if needs_clock { Some($clock.now()) } else { None };
            let mut decision: Option<crate::Decision<S::Delays, &B>> = None;
            let mut waited = Duration::ZERO;
            let mut attempt = 1;
            $self.budget.record_request();
            loop {
                let outcome = match limit {
                    None => $op(attempt).await.map_err(|error| (error, false)),
                    Some((timeout, timed_out)) => {
                        let elapsed = start.map_or(Duration::ZERO, |start| $clock.since(start));
                        let left = $self
                            .limits
                            .deadline
                            .map_or(timeout, |deadline| deadline.saturating_sub(elapsed));
                        let cut = timeout.min(left);
                        match race($op(attempt), $sleeper.sleep(cut)).await {
                            Some(result) => result.map_err(|error| (error, false)),
                            None => Err((timed_out(TimedOut { after: cut }), true)),
                        }
                    }
                };
                let (error, cut) = match outcome {
                    Ok(value) => {
                        match decision.as_mut() {
                            Some(decision) => decision.on_success(),
                            None => $self.budget.deposit(attempt, None),
                        }
                        return Ok(Retried { value, attempts: attempt, waited });
                    }
                    Err(failed) => failed,
                };
                let start = *start.get_or_insert_with(|| $clock.now());
                let decision = decision.get_or_insert_with(|| $self.decision());
                let failure = if cut { Failure::timeout() } else { $self.classify_error(&error) };
                match $self.step(decision, &error, failure, $clock.since(start)) {
                    Ok(delay) => {
                        $sleeper.sleep(delay).await;
                        waited = waited.saturating_add(delay);
                        attempt = decision.attempt();
                    }
                    Err(reason) => return Err(RetryError::new(reason, decision.attempt(), waited, error)),
                }
            }
        }
        .await
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
    pub async fn call_async<R, E, F, Fut>(&self, op: F) -> Result<R, RetryError<E>>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        C: Classifier<E>,
        N: Notify<E>,
        T: TimeoutFor<E>,
        E: core::fmt::Display,
        Runtime<F>: DefaultRuntime,
    {
        self.run_async(op).await.map(|done| done.value)
    }

    /// Like [`call_async`](RetryPolicy::call_async), returning the attempts
    /// made and the time waited with the value.
    ///
    /// # Errors
    /// As [`call_async`](RetryPolicy::call_async).
    pub async fn run_async<R, E, F, Fut>(&self, op: F) -> Result<Retried<R>, RetryError<E>>
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
        self.run_async_with(op, &sleeper, &clock).await
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
        retry_loop!(self, op, sleeper, clock)
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
        let (sleeper, clock) = (&sleeper, &clock);
        let result: Result<Retried<R>, RetryError<E>> = retry_loop!(self, op, sleeper, clock);
        result.map(|done| done.value)
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
        retry_loop!(self, op, sleeper, clock)
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
