//! What the polling and dropping tests watch a driver with: the policy's
//! hooks, and a rate limiter that counts the tokens it gives and the
//! responses it hears.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::limiter::RateLimit;
use staggered::{RetryPolicy, StopReason};

/// What a policy's hooks heard: each retry's attempt, and each give-up's
/// reason and attempts. Clones share the record.
#[derive(Debug, Clone, Default)]
pub struct Heard {
    retries: Arc<Mutex<Vec<u32>>>,
    give_ups: Arc<Mutex<Vec<(StopReason, u32)>>>,
}

impl Heard {
    /// `policy`, with hooks that report here.
    pub fn hooks<S, C, T>(&self, policy: RetryPolicy<S, C, T>) -> RetryPolicy<S, C, T> {
        let (retries, give_ups) = (Arc::clone(&self.retries), Arc::clone(&self.give_ups));
        policy
            .on_retry(move |event| retries.lock().unwrap().push(event.attempt))
            .on_give_up(move |event| give_ups.lock().unwrap().push((event.reason, event.attempts)))
    }

    /// The attempts whose failures were retried.
    pub fn retries(&self) -> Vec<u32> {
        self.retries.lock().unwrap().clone()
    }

    /// The give-ups' reasons and attempts.
    pub fn give_ups(&self) -> Vec<(StopReason, u32)> {
        self.give_ups.lock().unwrap().clone()
    }
}

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
