//! The policy's rate limiter, if it has one: shared by the policy's clones,
//! and empty without `std` (there is no limiter there).

use core::fmt;
use core::time::Duration;

/// The rate limiter of a policy, if it has one.
#[derive(Clone, Default)]
pub(crate) struct PolicyLimiter {
    #[cfg(feature = "std")]
    limiter: Option<std::sync::Arc<dyn crate::limiter::RateLimit>>,
}

impl fmt::Debug for PolicyLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "std")]
        let set = self.limiter.is_some();
        #[cfg(not(feature = "std"))]
        let set = false;
        f.write_str(if set { "Some(RateLimit)" } else { "None" })
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

    /// A snapshot of the limiter's state, for the metrics' gauges.
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics(&self) -> Option<crate::limiter::LimiterMetrics> {
        self.get().and_then(|limiter| limiter.metrics())
    }

    /// Takes a token for the next attempt, or says how long to wait for one.
    #[inline]
    pub(crate) fn try_acquire(&self) -> Result<(), Duration> {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            return limiter.try_acquire();
        }
        Ok(())
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

    /// Tells the limiter the quota a server announced on a response, which
    /// `read` reads off it: only if the policy has a limiter.
    #[inline]
    pub(crate) fn announce(&self, read: impl FnOnce() -> Option<crate::Quota>) {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            if let Some(quota) = read() {
                limiter.announce(quota);
            }
        }
        #[cfg(not(feature = "std"))]
        let _ = read;
    }

    /// Tells the limiter an attempt waited `waited` in all for its token.
    #[inline]
    pub(crate) fn record_wait(&self, waited: Duration) {
        #[cfg(feature = "std")]
        if let Some(limiter) = &self.limiter {
            limiter.record_wait(waited);
        }
        #[cfg(not(feature = "std"))]
        let _ = waited;
    }
}
