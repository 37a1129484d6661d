//! gRPC's retry throttle: failures, successes and withdrawals race on one
//! pool.

use loom::thread;

use super::explore;
use crate::{Budget, Failure, RetryThrottle};

/// A pool of 4 tokens refilled by 0.5 per success: three failures take a
/// token each, one success puts half back, whatever the order: the pool
/// ends at exactly 1.5, stays within 0 and 4 throughout, and the allowed and
/// refused counts match the answers (the refunded retry no longer counts).
#[test]
fn failures_and_successes_create_and_lose_nothing() {
    explore("throttle::failures_successes", Some(4), || {
        let throttle = RetryThrottle::with_parameters(4, 0.5).unwrap();
        let refunded = {
            let throttle = throttle.clone();
            thread::spawn(move || {
                throttle.record_failure(&Failure::TRANSIENT);
                let allowed = throttle.withdraw(&Failure::TRANSIENT);
                if allowed {
                    throttle.refund(&Failure::TRANSIENT);
                }
                allowed
            })
        };
        let succeeded = {
            let throttle = throttle.clone();
            thread::spawn(move || {
                throttle.record_failure(&Failure::TRANSIENT);
                let allowed = throttle.withdraw(&Failure::TRANSIENT);
                throttle.deposit(2, Some(&Failure::TRANSIENT));
                allowed
            })
        };
        throttle.record_failure(&Failure::TRANSIENT);
        let seen = throttle.metrics().unwrap();
        assert!((0.0..=4.0).contains(&seen.level), "{seen:?}");
        assert_eq!(seen.capacity, Some(4.0));
        let (refunded, succeeded) = (refunded.join().unwrap(), succeeded.join().unwrap());

        let end = throttle.metrics().unwrap();
        assert_eq!(end.level, 1.5, "{end:?}");
        assert_eq!(end.allowed, u64::from(succeeded), "{end:?}");
        assert_eq!(end.refused, u64::from(!refunded) + u64::from(!succeeded), "{end:?}");
        assert!(!throttle.is_open(), "1.5 is not above half of 4");
    });
}
