//! What the polling, cancelling and dropping tests watch a driver with: the
//! policy's hooks, a rate limiter that counts the tokens it gives and the
//! responses it hears, and a guard that says when an attempt's future was
//! dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::limiter::RateLimit;
use staggered::{Budget, RetryPolicy, StopReason, TokenBucket};

/// A policy's hooks, budget (a default `TokenBucket`: 500 tokens, 5 a
/// retry) and rate limiter, watched.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    pub heard: Heard,
    pub bucket: TokenBucket,
    pub limiter: CountingLimiter,
}

/// What a [`Watch`] saw spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spent {
    /// The tokens left in the bucket.
    pub tokens: u32,
    /// The retries the bucket allowed.
    pub allowed: u64,
    /// The rate limiter's tokens given: one per attempt sent.
    pub sent: u64,
    /// The responses the rate limiter heard: one per attempt that ended.
    pub ended: u64,
}

impl Spent {
    /// What a default bucket and the limiter show after `retries` retries
    /// were paid for, of `sent` attempts sent, `ended` of which ended.
    pub fn on_a_default_bucket(retries: u32, sent: u64, ended: u64) -> Spent {
        Spent { tokens: 500 - 5 * retries, allowed: u64::from(retries), sent, ended }
    }
}

impl Watch {
    /// `policy`, with the hooks, the bucket and the limiter watched here.
    pub fn policy<S, C, T>(&self, policy: RetryPolicy<S, C, T>) -> RetryPolicy<S, C, T> {
        self.heard.hooks(policy.with_budget(self.bucket.clone()).with_rate_limiter(self.limiter.clone()))
    }

    /// What was spent so far.
    pub fn spent(&self) -> Spent {
        Spent {
            tokens: self.bucket.tokens(),
            allowed: self.bucket.metrics().unwrap().allowed,
            sent: self.limiter.given(),
            ended: self.limiter.responses(),
        }
    }
}

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

/// Asserts that a call cancelled at `cancel_at` (tokio's time) ended then,
/// or at most 5 ms after.
pub fn assert_ended_within_5_ms(cancel_at: tokio::time::Instant) {
    let now = tokio::time::Instant::now();
    let late = now.saturating_duration_since(cancel_at);
    assert!(now >= cancel_at && late <= Duration::from_millis(5), "ended {late:?} after the cancel");
}

/// Asserts what a call cancelled at `cancel_at`, during the backoff after
/// attempt 1 failed, leaves: the call ended at the cancel; the policy's
/// give-up hook heard it; the retry the budget allowed but that was never
/// sent was given back (and is not counted as allowed), and no token was
/// taken for attempt 2.
pub fn assert_cancelled_during_backoff(cancel_at: tokio::time::Instant, watch: &Watch) {
    assert_ended_within_5_ms(cancel_at);
    assert_eq!(watch.heard.give_ups(), [(StopReason::Cancelled, 1)]);
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(0, 1, 1));
}

/// Asserts what a call cancelled 1 s after `start`, during attempt
/// `hanging` (1, or 2 after attempt 1 failed at once), leaves: the call
/// ended at the cancel; attempt 1's future was dropped when it failed, the
/// hanging attempt's at the cancel; the policy's give-up hook heard the
/// cancel; only the attempts sent were paid for, in retries of the budget
/// and tokens of the rate limiter, and nothing after the cancel.
pub fn assert_cancelled_during_attempt(
    hanging: u32,
    start: tokio::time::Instant,
    drops: &Drops,
    watch: &Watch,
) {
    let cancel = Duration::from_secs(1);
    assert_ended_within_5_ms(start + cancel);
    let dropped: Vec<_> =
        (1..hanging).map(|attempt| (attempt, Duration::ZERO)).chain([(hanging, cancel)]).collect();
    assert_eq!(drops.since(start), dropped, "attempt {hanging} hanging: dropped at the cancel");
    assert_eq!(watch.heard.give_ups(), [(StopReason::Cancelled, hanging)], "attempt {hanging} hanging");
    let (retries, sent) = (hanging - 1, u64::from(hanging));
    let spent = Spent::on_a_default_bucket(retries, sent, u64::from(retries));
    assert_eq!(watch.spent(), spent, "attempt {hanging} hanging");
}

/// `call`'s output, or a failure if a minute of tokio's (paused) time
/// passes first: a call that missed its cancel during an attempt that never
/// ends fails instead of hanging.
pub async fn within_a_minute<F: std::future::Future>(call: F) -> F::Output {
    let minute = Duration::from_secs(60);
    tokio::time::timeout(minute, call).await.expect("still running a minute after the cancel")
}

/// The drops of attempts' futures, each with the attempt's number and the
/// (tokio) time it was dropped at. Clones share the record.
#[derive(Debug, Clone, Default)]
pub struct Drops(Arc<Mutex<Vec<(u32, tokio::time::Instant)>>>);

impl Drops {
    /// A guard for attempt `attempt`: move it into the attempt's future.
    pub fn guard(&self, attempt: u32) -> DropGuard {
        DropGuard { attempt, drops: self.clone() }
    }

    /// The attempts whose futures were dropped, with the time since `start`.
    pub fn since(&self, start: tokio::time::Instant) -> Vec<(u32, Duration)> {
        self.0.lock().unwrap().iter().map(|&(attempt, at)| (attempt, at - start)).collect()
    }
}

/// Records its drop in [`Drops`].
#[derive(Debug)]
pub struct DropGuard {
    attempt: u32,
    drops: Drops,
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.drops.0.lock().unwrap().push((self.attempt, tokio::time::Instant::now()));
    }
}
