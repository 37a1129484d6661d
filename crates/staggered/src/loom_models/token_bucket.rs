//! The AWS token bucket: withdrawals, refunds and rewards race on one atomic.

use loom::thread;

use super::explore;
use crate::{Budget, Failure, TokenBucket};

/// Three retries ask a bucket of 10 at once, costing 5, 2 and 10; the 5 is
/// refunded (its retry never sent). Whatever the order, the bucket ends
/// with exactly what the two others hold taken out, those two are never
/// both allowed (12 > 10), and the allowed and refused counts match the
/// answers.
#[test]
fn withdrawals_and_refunds_create_and_lose_nothing() {
    explore("token_bucket::withdraw_refund", Some(4), || {
        let bucket =
            TokenBucket::builder().with_capacity(10).with_retry_cost(5).with_throttled_cost(2).build();
        let refunded = {
            let bucket = bucket.clone();
            thread::spawn(move || {
                let allowed = bucket.withdraw(&Failure::TRANSIENT);
                if allowed {
                    bucket.refund(&Failure::TRANSIENT);
                }
                allowed
            })
        };
        let throttled = {
            let bucket = bucket.clone();
            thread::spawn(move || bucket.withdraw(&Failure::THROTTLED))
        };
        let timeout = bucket.withdraw(&Failure::timeout());
        let seen = bucket.metrics().unwrap();
        assert!((0.0..=10.0).contains(&seen.level), "{seen:?}");
        assert!(seen.allowed + seen.refused <= 3, "{seen:?}");
        let (refunded, throttled) = (refunded.join().unwrap(), throttled.join().unwrap());

        let end = bucket.metrics().unwrap();
        let held = 2 * u32::from(throttled) + 10 * u32::from(timeout);
        assert_eq!(end.level, f64::from(10 - held), "{end:?} ({refunded}, {throttled}, {timeout})");
        let answers = [refunded, throttled, timeout];
        let allowed = answers.iter().filter(|&&allowed| allowed).count() as u64;
        assert_eq!(end.allowed, allowed - u64::from(refunded), "{end:?}");
        assert_eq!(end.refused, 3 - allowed, "{end:?}");
        assert!(!(throttled && timeout), "12 tokens taken from 10");
    });
}

/// A bucket of 2 rewarding every success with 0.4 of a token: one thread
/// takes a token and succeeds, another records two successes. The level
/// never passes the capacity, and ends between 1.4 (every reward of the
/// second thread clipped at a full bucket) and 2.
#[test]
fn rewards_never_pass_the_capacity() {
    explore("token_bucket::rewards", None, || {
        let bucket = TokenBucket::builder().with_capacity(2).with_success_reward(0.4).unwrap().build();
        let taker = {
            let bucket = bucket.clone();
            thread::spawn(move || {
                assert!(bucket.try_acquire(1), "a full bucket of 2 has a token");
                bucket.deposit(1, None);
            })
        };
        let rewarded = {
            let bucket = bucket.clone();
            thread::spawn(move || {
                bucket.deposit(1, None);
                bucket.deposit(1, None);
            })
        };
        let seen = bucket.level();
        assert!((1.0..=2.0).contains(&seen), "{seen}");
        taker.join().unwrap();
        rewarded.join().unwrap();
        let level = bucket.level();
        assert!((1.4 - 1e-9..=2.0).contains(&level), "{level}");
    });
}
