//! Calls dropped or cancelled part-way spend only what their attempts sent
//! spent: a retry the budget paid for but that was never sent is given back
//! and not counted as allowed, and the rate limiter gives exactly one token
//! per attempt sent. On tokio's paused time, with a fixed seed.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use staggered::tower::RetryLayer;
use staggered::{AlwaysTransient, Backoff, Budget, FastRng, RetryPolicy, Rng, Strategy, TokenBucket};
use tower::{Service, ServiceBuilder, ServiceExt};

use super::exponential;
use super::probes::CountingLimiter;

/// The seed of the drop points and the attempts' durations.
const SEED: u64 = 0x2526_d809;
/// The calls dropped or cancelled.
const CALLS: u32 = 10_000;
/// The bucket's cost of a retry after a transient failure (its default).
const RETRY_COST: u32 = 5;
/// Large enough that no retry is refused: every allowed retry shows.
const CAPACITY: u32 = 1_000_000;

/// 10, 20, 40, 80, 160 ms between six attempts.
fn schedule() -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_delay(Duration::from_millis(200))
        .with_max_attempts(6)
        .build()
        .unwrap()
}

/// A whole number of milliseconds from 0 to `max_ms`: whole, so that the
/// drops often fall at the very instant a wait or an attempt ends.
fn millis(rng: &mut FastRng, max_ms: u64) -> Duration {
    Duration::from_millis(rng.next_u64() % (max_ms + 1))
}

/// The attempts a call sent, and how many of them ended.
#[derive(Clone, Default)]
struct Sent {
    sent: Arc<AtomicU32>,
    ended: Arc<AtomicU32>,
}

impl Sent {
    /// Attempt `n`'s future: counted as sent now, as ended when it fails
    /// after `took`.
    fn attempt(&self, took: Duration) -> impl std::future::Future<Output = Result<(), io::Error>> + use<> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        let ended = Arc::clone(&self.ended);
        async move {
            tokio::time::sleep(took).await;
            ended.fetch_add(1, Ordering::SeqCst);
            Err(io::Error::other("down"))
        }
    }

    fn counts(&self) -> (u32, u32) {
        (self.sent.load(Ordering::SeqCst), self.ended.load(Ordering::SeqCst))
    }
}

/// Where the calls were stopped, to show the random points reach each.
#[derive(Debug, Default)]
struct Points {
    during_an_attempt: u32,
    during_a_wait: u32,
    finished: u32,
}

#[tokio::test(start_paused = true)]
async fn after_10_000_calls_dropped_or_cancelled_at_random_points_levels_equal_what_attempts_sent_spent() {
    let bucket = TokenBucket::builder().with_capacity(CAPACITY).build();
    // Every fifth ask for a token waits 7 ms for it: some calls are dropped
    // while waiting for a token too.
    let limiter = CountingLimiter::refusing_every(5, Duration::from_millis(7));
    let policy = RetryPolicy::new(schedule()).with_budget(bucket.clone()).with_rate_limiter(limiter.clone());
    let tower_policy = policy.clone().classify(AlwaysTransient);
    let mut rng = FastRng::seed(SEED);
    let (mut attempts_sent, mut retries_sent, mut attempts_ended) = (0u64, 0u64, 0u64);
    let mut points = Points::default();
    for call in 0..CALLS {
        let stop_after = millis(&mut rng, 700);
        let took: Vec<Duration> = (0..6).map(|_| millis(&mut rng, 40)).collect();
        let sent = Sent::default();
        let finished = match call % 3 {
            // `.retry(op).call()`, dropped by an outer timeout.
            0 => {
                let operation = policy.retry(|attempt| sent.attempt(took[attempt as usize - 1])).call();
                tokio::time::timeout(stop_after, operation).await.is_ok()
            }
            // The same, cancelled by its signal.
            1 => {
                let err = policy
                    .retry(|attempt| sent.attempt(took[attempt as usize - 1]))
                    .cancel_on(tokio::time::sleep(stop_after))
                    .call()
                    .await
                    .unwrap_err();
                err.reason() != staggered::StopReason::Cancelled
            }
            // The tower layer's future, dropped by an outer timeout.
            _ => {
                let service_sent = sent.clone();
                let took = took.clone();
                let mut service = ServiceBuilder::new().layer(RetryLayer::new(tower_policy.clone())).service(
                    tower::service_fn(move |()| {
                        let attempt = service_sent.counts().0 as usize;
                        service_sent.attempt(took[attempt])
                    }),
                );
                let ready = service.ready().await.unwrap();
                tokio::time::timeout(stop_after, ready.call(())).await.is_ok()
            }
        };
        let (sent, ended) = sent.counts();
        attempts_sent += u64::from(sent);
        retries_sent += u64::from(sent.saturating_sub(1));
        attempts_ended += u64::from(ended);
        match (finished, sent > ended) {
            (true, _) => points.finished += 1,
            (false, true) => points.during_an_attempt += 1,
            (false, false) => points.during_a_wait += 1,
        }
    }
    // The random points reach every state of a call.
    assert!(
        points.during_an_attempt > 1000 && points.during_a_wait > 1000 && points.finished > 1000,
        "{points:?}"
    );
    let spent = f64::from(RETRY_COST) * retries_sent as f64;
    assert_eq!(bucket.level(), f64::from(CAPACITY) - spent, "{retries_sent} retries sent, {points:?}");
    assert_eq!(bucket.metrics().unwrap().allowed, retries_sent);
    assert_eq!(limiter.given(), attempts_sent, "one token per attempt sent");
    assert_eq!(limiter.responses(), attempts_ended, "one response per attempt that ended");
}

#[tokio::test(start_paused = true)]
async fn operations_dropped_mid_sleep_leave_the_budget_full_and_count_no_retry_as_allowed() {
    let bucket = TokenBucket::new();
    let policy = RetryPolicy::new(exponential(5)).with_budget(bucket.clone());
    for _ in 0..100 {
        // Attempt 1 fails at once; the timeout drops the call 50 ms into its
        // 100 ms wait.
        let call = policy.retry(|_| async { Err::<(), _>(io::Error::other("down")) }).call();
        assert!(tokio::time::timeout(Duration::from_millis(50), call).await.is_err());
    }
    assert_eq!((bucket.tokens(), bucket.metrics().unwrap().allowed), (500, 0));
    // The next operation that fails once still retries.
    let done = policy
        .retry(|attempt| async move {
            if attempt == 1 {
                Err(io::Error::other("down"))
            } else {
                Ok(attempt)
            }
        })
        .run()
        .await
        .unwrap();
    assert_eq!((done.value, done.attempts), (2, 2));
}
