//! The policy's rate limiter as every driver uses it: a token before each
//! attempt, the first included, and every response reported. The rule for
//! the deadline lives here once: a wait for a token counts against the
//! deadline, and a wait that would reach it ends the retrying with
//! [`StopReason::Deadline`] instead of sleeping past it.

use core::fmt;
use core::time::Duration;

use crate::sleep::{BlockingSleeper, Clock, Sleeper};
use crate::{Limits, StopReason};

/// The rate limiter of a policy, if it has one; shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct PolicyLimiter {
    #[cfg(feature = "std")]
    limiter: Option<std::sync::Arc<dyn crate::limiter::RateLimit>>,
}

impl fmt::Debug for PolicyLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_set() { "Some(RateLimit)" } else { "None" })
    }
}

impl PolicyLimiter {
    /// A policy's limiter.
    #[cfg(feature = "std")]
    pub(crate) fn new(limiter: std::sync::Arc<dyn crate::limiter::RateLimit>) -> Self {
        PolicyLimiter { limiter: Some(limiter) }
    }

    /// The limiter, if any.
    #[cfg(feature = "std")]
    pub(crate) fn get(&self) -> Option<&dyn crate::limiter::RateLimit> {
        self.limiter.as_deref()
    }

    /// Whether the policy has a limiter.
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        #[cfg(feature = "std")]
        return self.limiter.is_some();
        #[cfg(not(feature = "std"))]
        false
    }

    /// A snapshot of the limiter's state, for the metrics' gauges.
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics(&self) -> Option<crate::limiter::LimiterMetrics> {
        self.get().and_then(|limiter| limiter.metrics())
    }

    /// Reports the response to an attempt.
    #[inline]
    pub(crate) fn record(&self, throttled: bool) {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            limiter.record_response(throttled);
        }
        #[cfg(not(feature = "std"))]
        let _ = throttled;
    }

    /// Takes a token if there is one: the common case, with no clock read.
    #[inline]
    fn try_acquire(&self) -> bool {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            return limiter.try_acquire().is_ok();
        }
        true
    }

    /// The one rule: `None` when the token for the next attempt is taken,
    /// the wait before asking again, or [`StopReason::Deadline`] if that wait
    /// would end at or after the deadline (`elapsed` after attempt 1 started).
    #[inline]
    pub(crate) fn admit(&self, limits: &Limits, elapsed: Duration) -> Result<Option<Duration>, StopReason> {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            if let Err(wait) = limiter.try_acquire() {
                if let Some(deadline) = limits.deadline {
                    if elapsed.checked_add(wait).is_none_or(|end| end >= deadline) {
                        return Err(StopReason::Deadline);
                    }
                }
                return Ok(Some(wait));
            }
        }
        #[cfg(not(feature = "std"))]
        let _ = (limits, elapsed);
        Ok(None)
    }

    /// Tells the limiter an attempt waited `waited` in all for its token.
    pub(crate) fn waited(&self, waited: Duration) {
        #[cfg(feature = "std")]
        if let (Some(limiter), false) = (&self.limiter, waited.is_zero()) {
            limiter.record_wait(waited);
        }
        #[cfg(not(feature = "std"))]
        let _ = waited;
    }

    /// Takes the token for the next attempt, sleeping with `sleeper` while
    /// there is none. `Ok` is the time waited. `start` is when attempt 1
    /// started, read whenever there is a deadline.
    #[inline]
    pub(crate) fn acquire_blocking<Z, K>(
        &self,
        limits: &Limits,
        start: Option<K::Instant>,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Duration, (StopReason, Duration)>
    where
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        if self.try_acquire() {
            return Ok(Duration::ZERO);
        }
        self.wait_blocking(limits, start, sleeper, clock)
    }

    /// The waiting part of [`acquire_blocking`](PolicyLimiter::acquire_blocking).
    #[inline(never)]
    fn wait_blocking<Z, K>(
        &self,
        limits: &Limits,
        start: Option<K::Instant>,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Duration, (StopReason, Duration)>
    where
        Z: BlockingSleeper + ?Sized,
        K: Clock + ?Sized,
    {
        let mut waited = Duration::ZERO;
        loop {
            let elapsed = start.map_or(Duration::ZERO, |start| clock.since(start));
            match self.admit(limits, elapsed) {
                Ok(None) => break,
                Ok(Some(wait)) => {
                    sleeper.sleep(wait);
                    waited = waited.saturating_add(wait);
                }
                Err(reason) => return Err((reason, waited)),
            }
        }
        self.waited(waited);
        Ok(waited)
    }

    /// [`acquire_blocking`](PolicyLimiter::acquire_blocking), awaiting
    /// `sleeper`. Dropped while it waits, it takes no token.
    pub(crate) async fn acquire<Z, K>(
        &self,
        limits: &Limits,
        start: Option<K::Instant>,
        sleeper: &Z,
        clock: &K,
    ) -> Result<Duration, (StopReason, Duration)>
    where
        Z: Sleeper + ?Sized,
        K: Clock + ?Sized,
    {
        if self.try_acquire() {
            return Ok(Duration::ZERO);
        }
        let mut waited = Duration::ZERO;
        loop {
            let elapsed = start.map_or(Duration::ZERO, |start| clock.since(start));
            match self.admit(limits, elapsed) {
                Ok(None) => break,
                Ok(Some(wait)) => {
                    sleeper.sleep(wait).await;
                    waited = waited.saturating_add(wait);
                }
                Err(reason) => return Err((reason, waited)),
            }
        }
        self.waited(waited);
        Ok(waited)
    }
}
