//! The blocking driver: a plain loop around [`Parts::step`].
//!
//! A blocking call cannot be cut: the loop never starts an attempt once the
//! wait before it would reach the deadline, but an attempt that runs past
//! the deadline runs to its end. So a policy with a per-attempt timeout has
//! no blocking driver ([`CanBlock`]).

use core::time::Duration;

use crate::budget::Budget;
use crate::classify::{Classifier, ErrorKind};
use crate::retry::event::Notify;
use crate::retry::parts::Parts;
use crate::retry::timeout::CanBlock;
use crate::sleep::{BlockingSleeper, Clock};
use crate::{Retried, RetryError, RetryPolicy, Schedule, StopReason};

impl<S: Schedule, C, N, B: Budget, T> RetryPolicy<S, C, N, B, T> {
    /// Calls `op` (given the attempt number, from 1) until it succeeds or the
    /// policy gives up, sleeping with `std::thread::sleep`.
    ///
    /// A running call cannot be cut: the deadline is kept by never starting
    /// an attempt the wait before which would reach it.
    ///
    /// # Errors
    /// A [`RetryError`] with the stop reason, the attempts made and the last error.
    #[cfg(feature = "std")]
    #[inline]
    pub fn call<R, E, F>(&self, op: F) -> Result<R, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        T: CanBlock,
        E: core::fmt::Display,
    {
        self.run_with(op, &crate::sleep::StdSleeper, &crate::sleep::StdClock).map(|done| done.value)
    }

    /// Like [`call`](RetryPolicy::call), returning the attempts made and the
    /// time waited with the value.
    ///
    /// # Errors
    /// As [`call`](RetryPolicy::call).
    #[cfg(feature = "std")]
    #[inline]
    pub fn run<R, E, F>(&self, op: F) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        T: CanBlock,
        E: core::fmt::Display,
    {
        self.run_with(op, &crate::sleep::StdSleeper, &crate::sleep::StdClock)
    }

    /// Like [`run`](RetryPolicy::run), waiting with `sleeper` and reading
    /// `clock`: a mock clock and a recording sleeper in tests, anything
    /// else in production.
    ///
    /// # Errors
    /// As [`call`](RetryPolicy::call).
    #[inline]
    pub fn run_with<R, E, F, Z, K>(&self, op: F, sleeper: &Z, clock: &K) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        T: CanBlock,
        E: core::fmt::Display,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        if self.limiter.is_set() {
            return self.parts().run_blocking_limited(op, sleeper, clock);
        }
        self.parts().run_blocking(op, sleeper, clock)
    }
}

impl<S: Schedule, C, N, B: Budget, T> Parts<'_, S, C, N, B, T> {
    /// The blocking loop, for the policy's methods and for
    /// [`Retrying`](crate::Retrying).
    #[inline]
    pub(crate) fn run_blocking<R, E, F, Z, K>(
        self,
        op: F,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        E: core::fmt::Display,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        self.first_blocking::<_, _, _, _, _, false>(op, sleeper, clock)
    }

    /// [`run_blocking`](Parts::run_blocking) for a policy with a rate
    /// limiter, which takes a token before attempt 1 too. The callers choose
    /// before they gather the parts, so that a policy without a limiter
    /// pays one branch for it, and this loop stays out of line.
    #[inline(never)]
    pub(crate) fn run_blocking_limited<R, E, F, Z, K>(
        self,
        op: F,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        E: core::fmt::Display,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        self.first_blocking::<_, _, _, _, _, true>(op, sleeper, clock)
    }

    /// Attempt 1, then the retries if it failed. `LIMITED`: whether the
    /// policy has a rate limiter, so that a policy without one has none of
    /// its steps compiled in.
    #[inline]
    fn first_blocking<R, E, F, Z, K, const LIMITED: bool>(
        self,
        mut op: F,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        E: core::fmt::Display,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let start = self.limits.deadline.map(|_| clock.now());
        self.budget.record_request();
        let mut waited = Duration::ZERO;
        if LIMITED {
            match self.limiter.acquire_blocking(self.limits, start, sleeper, clock) {
                Ok(wait) => waited = wait,
                Err((reason, wait)) => return Err(self.unsent_blocking(reason, 0, wait, None, start, clock)),
            }
        }
        match op(1) {
            Ok(value) => {
                if LIMITED {
                    self.limiter.record(false);
                }
                self.budget.deposit(1, None);
                self.instruments.first_try_success();
                Ok(Retried { value, attempts: 1, waited })
            }
            Err(error) => {
                self.retry_blocking::<_, _, _, _, _, LIMITED>(op, error, start, waited, sleeper, clock)
            }
        }
    }

    /// No token before the deadline for the attempt after `attempts`.
    #[cold]
    fn unsent_blocking<E, K>(
        self,
        reason: StopReason,
        attempts: u32,
        waited: Duration,
        previous: Option<E>,
        start: Option<K::Instant>,
        clock: &K,
    ) -> RetryError<E>
    where
        N: Notify<E>,
        E: core::fmt::Display,
        K: Clock + ?Sized,
    {
        let elapsed = start.map_or(Duration::ZERO, |start| clock.since(start));
        let budget = self.budget.metrics();
        self.unsent(reason, attempts, previous.as_ref(), core::any::type_name::<E>(), elapsed, budget);
        RetryError::unsent(reason, attempts, waited, previous)
    }

    /// Everything after a failed first attempt. `waited`: for attempt 1's
    /// token. `LIMITED`: whether the policy has a rate limiter, so that the
    /// loop of a policy without one has none of its steps compiled in.
    ///
    /// Inlined into the caller's loop: out of line, the call itself (its
    /// arguments, the saved registers, the schedule's fields loaded all at
    /// once and spilled) cost more than the retry, and a failure that is
    /// retried once took 157 instructions over a bare loop; inlined, 69
    /// (`crates/bench/callgrind.sh --bench retry_loop`), with the success
    /// path unchanged.
    #[inline]
    fn retry_blocking<R, E, F, Z, K, const LIMITED: bool>(
        self,
        mut op: F,
        mut error: E,
        start: Option<K::Instant>,
        mut waited: Duration,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Retried<R>, RetryError<E>>
    where
        F: FnMut(u32) -> Result<R, E>,
        C: Classifier<E>,
        N: Notify<E>,
        E: core::fmt::Display,
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let error_type = core::any::type_name::<E>();
        let mut stopwatch = self.stopwatch::<E, K>(start, clock);
        let mut decision = self.decision();
        loop {
            let failure = self.classify_error(&error);
            if LIMITED {
                self.limiter.record(failure.kind == ErrorKind::Throttled);
            }
            match self.step(
                &mut decision,
                &error,
                error_type,
                failure,
                stopwatch.elapsed(clock),
                self.next_delay(),
            ) {
                Ok(delay) => {
                    // A zero wait is no wait: no sleeper call, no system call.
                    if !delay.is_zero() {
                        sleeper.sleep(delay);
                        waited = waited.saturating_add(delay);
                    }
                }
                Err(reason) => return Err(RetryError::new(reason, decision.attempt(), waited, error)),
            }
            if LIMITED {
                match self.limiter.acquire_blocking(self.limits, stopwatch.start(), sleeper, clock) {
                    Ok(wait) => waited = waited.saturating_add(wait),
                    Err((reason, wait)) => {
                        let (attempts, waited) =
                            (decision.attempt().saturating_sub(1), waited.saturating_add(wait));
                        return Err(self.unsent_blocking(
                            reason,
                            attempts,
                            waited,
                            Some(error),
                            start,
                            clock,
                        ));
                    }
                }
            }
            match op(decision.attempt()) {
                Ok(value) => {
                    if LIMITED {
                        self.limiter.record(false);
                    }
                    self.succeeded(&mut decision);
                    return Ok(Retried { value, attempts: decision.attempt(), waited });
                }
                Err(next) => error = next,
            }
        }
    }
}
