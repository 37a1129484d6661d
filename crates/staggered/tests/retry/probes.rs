//! What the tests of dropped and cancelled calls watch a driver with: a
//! rate limiter that counts the tokens it gives and the responses it hears.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use staggered::limiter::RateLimit;

/// A rate limiter that gives a token on every ask (by default), or on all
/// but every n-th ask, which it answers with a wait; it counts the tokens
/// given and the responses recorded. Clones share the counts.
#[derive(Debug, Clone, Default)]
pub struct CountingLimiter {
    counts: Arc<Counts>,
    refuse_every: Option<(u64, Duration)>,
}

#[derive(Debug, Default)]
struct Counts {
    asked: AtomicU64,
    given: AtomicU64,
    responses: AtomicU64,
}

impl CountingLimiter {
    /// A limiter that answers every `n`-th ask with "wait `wait`".
    pub fn refusing_every(n: u64, wait: Duration) -> Self {
        CountingLimiter { counts: Arc::default(), refuse_every: Some((n, wait)) }
    }

    /// The tokens given so far: one per attempt sent.
    pub fn given(&self) -> u64 {
        self.counts.given.load(Ordering::SeqCst)
    }

    /// The responses recorded so far: one per attempt that ended.
    pub fn responses(&self) -> u64 {
        self.counts.responses.load(Ordering::SeqCst)
    }
}

impl RateLimit for CountingLimiter {
    fn try_acquire(&self) -> Result<(), Duration> {
        let asked = self.counts.asked.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some((n, wait)) = self.refuse_every {
            if asked % n == 0 {
                return Err(wait);
            }
        }
        self.counts.given.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn record_response(&self, _: bool) {
        self.counts.responses.fetch_add(1, Ordering::SeqCst);
    }
}
