//! Budgets: exact accounting under contention, the window of the ratio
//! budget on a mock clock, and budgets inside the retry loop.

mod config;
mod parameters;
mod ratio;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use staggered::test_util::{MockClock, RecordingSleeper};
use staggered::{Budget, Failure, RatioBudget, RetryPolicy, RetryThrottle, StopReason, TokenBucket};

const THREADS: u64 = 8;
const ROUNDS: u64 = 20_000;

#[test]
fn token_bucket_never_creates_loses_or_overdraws_tokens() {
    let bucket = TokenBucket::new();
    let allowed = AtomicU64::new(0);
    let refunded = AtomicU64::new(0);
    let watching = std::sync::atomic::AtomicBool::new(true);
    std::thread::scope(|s| {
        s.spawn(|| {
            while watching.load(Ordering::Relaxed) {
                assert!(bucket.tokens() <= 500, "above capacity");
            }
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (bucket, allowed, refunded) = (bucket.clone(), &allowed, &refunded);
                s.spawn(move || {
                    for i in 0..ROUNDS {
                        let failure = if (i + t) % 7 == 0 { Failure::timeout() } else { Failure::TRANSIENT };
                        if bucket.withdraw(&failure) {
                            allowed.fetch_add(bucket.cost(&failure).into(), Ordering::Relaxed);
                            // Give back only what this thread took, so the cap never clips a refund.
                            if i % 2 == 0 {
                                bucket.deposit(2, Some(&Failure::TRANSIENT));
                                refunded.fetch_add(5, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        watching.store(false, Ordering::Relaxed);
    });
    let expected = 500 - allowed.load(Ordering::Relaxed) as i64 + refunded.load(Ordering::Relaxed) as i64;
    assert_eq!(i64::from(bucket.tokens()), expected);
    let metrics = bucket.metrics().unwrap();
    assert_eq!(metrics.allowed + metrics.refused, THREADS * ROUNDS);
    assert!(metrics.refused > 0, "the bucket must have run dry at some point");
}

#[test]
fn retry_throttle_accounting_is_exact_under_contention() {
    let throttle = RetryThrottle::new();
    for _ in 0..20 {
        throttle.record_failure(&Failure::TRANSIENT);
        assert!(!throttle.withdraw(&Failure::TRANSIENT) || throttle.tokens() > 5.0);
    }
    assert_eq!(throttle.tokens(), 0.0, "never below zero");
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            let throttle = throttle.clone();
            s.spawn(move || {
                for _ in 0..10 {
                    throttle.deposit(1, None);
                }
            });
        }
    });
    assert!((throttle.tokens() - 0.1 * (THREADS * 10) as f64).abs() < 1e-9, "{}", throttle.tokens());
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            let throttle = throttle.clone();
            s.spawn(move || {
                for _ in 0..ROUNDS {
                    throttle.deposit(1, None);
                    assert!(throttle.tokens() <= 10.0);
                }
            });
        }
    });
    assert_eq!(throttle.tokens(), 10.0, "capped at max_tokens, never above");
}

#[test]
fn ratio_budget_never_overdraws_under_contention() {
    let clock = MockClock::new();
    let budget = RatioBudget::builder().build_with_clock(clock.clone()).unwrap();
    let allowed = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            let (budget, allowed) = (budget.clone(), &allowed);
            s.spawn(move || {
                for i in 0..ROUNDS {
                    budget.record_request();
                    if i % 3 == 0 && budget.withdraw(&Failure::TRANSIENT) {
                        allowed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let requests = (THREADS * ROUNDS) as f64;
    let allowed = allowed.load(Ordering::Relaxed) as f64;
    // The reserve (10/s over 10 s = 100 retries) plus 20% of the requests, less what was taken.
    assert_eq!(budget.available(), 100.0 + 0.2 * requests - allowed);
    assert!(budget.available() >= 0.0);
    let metrics = budget.metrics().unwrap();
    assert_eq!(metrics.allowed as f64, allowed);
}

#[test]
fn ratio_budget_window_expires_deposits_and_withdrawals() {
    let clock = MockClock::new();
    let budget = RatioBudget::builder().build_with_clock(clock.clone()).unwrap();
    for _ in 0..1000 {
        budget.record_request(); // 200 retries' worth
    }
    assert_eq!(budget.available(), 300.0);
    clock.advance(Duration::from_secs(5));
    for _ in 0..250 {
        assert!(budget.withdraw(&Failure::TRANSIENT));
    }
    assert_eq!(budget.available(), 50.0);
    clock.advance(Duration::from_millis(5_500)); // the deposits (t = 0) have left the window
    assert_eq!(budget.available(), 0.0, "withdrawals still in the window outweigh the reserve");
    assert!(!budget.withdraw(&Failure::TRANSIENT));
    clock.advance(Duration::from_secs(5)); // and now the withdrawals too
    assert_eq!(budget.available(), 100.0, "back to the reserve alone");
}

#[test]
fn ratio_budget_rejects_bad_parameters_naming_them() {
    let err = RatioBudget::builder().with_ttl(Duration::from_millis(10)).build().unwrap_err();
    assert_eq!(err.field(), staggered::Field::Ttl);
    let err = RatioBudget::builder().with_retry_percent(f64::NAN).build().unwrap_err();
    assert_eq!(err.field(), staggered::Field::RetryPercent);
    let err = RatioBudget::builder().with_retry_percent(-1.0).build().unwrap_err();
    assert_eq!(err.to_string(), "invalid retry_percent -1: must be between 0 and 1000");
}

#[test]
fn a_shared_budget_stops_retries_across_operations() {
    let bucket = TokenBucket::builder().with_capacity(20).build();
    let policy = RetryPolicy::new(super::retry::exponential(10)).with_budget(bucket.clone());
    let sleeper = RecordingSleeper::new();
    let first =
        policy.retry(|_| Err::<(), _>("down")).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!((first.reason(), first.attempts()), (StopReason::BudgetExhausted, 5), "4 retries of 5 tokens");
    let second =
        policy.retry(|_| Err::<(), _>("down")).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!((second.reason(), second.attempts()), (StopReason::BudgetExhausted, 1));
    assert_eq!(
        policy.retry(|_| Ok::<_, &str>(())).with_timer(&sleeper, &sleeper.clock()).run().unwrap().attempts,
        1
    );
    assert_eq!(bucket.tokens(), 1, "a first-try success refunds one token");
}

#[test]
fn every_budget_reports_a_capacity_that_is_a_number_or_none() {
    assert_eq!(TokenBucket::new().metrics().unwrap().capacity, Some(500.0));
    assert_eq!(RetryThrottle::new().metrics().unwrap().capacity, Some(10.0));
    let ratio = RatioBudget::new().metrics().unwrap();
    assert_eq!(ratio.capacity, None, "a ratio budget grows with traffic: no fixed ceiling");
    assert_eq!(ratio.level, 100.0);
}

#[test]
fn an_io_timeout_costs_the_token_bucket_a_timeout() {
    use staggered::classify::io::classify_io;
    let bucket = TokenBucket::new();
    let policy =
        RetryPolicy::new(super::retry::exponential(3)).classify(classify_io).with_budget(bucket.clone());
    let sleeper = RecordingSleeper::new();
    let timed_out = |_| Err::<(), _>(std::io::Error::from(std::io::ErrorKind::TimedOut));
    let err = policy.retry(timed_out).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(bucket.tokens(), 480, "two retries after a timeout cost 10 each, as in the AWS SDK");
    let reset = |_| Err::<(), _>(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
    policy.retry(reset).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!(bucket.tokens(), 470, "and after a reset connection 5 each");
}
