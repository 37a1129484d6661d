//! The ratio budget: requests, withdrawals, refunds and the window's expiry
//! race on ten slot words and a running balance.

use core::time::Duration;

use loom::thread;

use super::{explore, ModelClock};
use crate::{Budget, Failure, RatioBudget};

/// A reserve of 1 retry and one request at 50%: 1.5 retries in all, so of
/// the two retries that are kept at most one is allowed, while a third is
/// taken and refunded in between. At one instant (one slot) the budget ends
/// with exactly 1.5 less what was kept.
#[test]
fn one_slot_creates_and_loses_nothing() {
    explore("ratio::one_slot", Some(4), || {
        let budget = RatioBudget::builder()
            .with_ttl(Duration::from_secs(1))
            .with_min_per_sec(1)
            .with_retry_percent(0.5)
            .build_with_clock(ModelClock::at(Duration::ZERO))
            .unwrap();
        let refunded = {
            let budget = budget.clone();
            thread::spawn(move || {
                budget.record_request();
                let allowed = budget.withdraw(&Failure::TRANSIENT);
                if allowed {
                    budget.refund(&Failure::TRANSIENT);
                }
                allowed
            })
        };
        let kept = {
            let budget = budget.clone();
            thread::spawn(move || budget.withdraw(&Failure::TRANSIENT))
        };
        let also_kept = budget.withdraw(&Failure::TRANSIENT);
        let (refunded, kept) = (refunded.join().unwrap(), kept.join().unwrap());

        assert!(!(kept && also_kept), "two retries allowed from 1.5");
        let end = budget.metrics().unwrap();
        let held = f64::from(u8::from(kept) + u8::from(also_kept));
        assert_eq!(end.level, 1.5 - held, "{end:?}");
        assert_eq!(end.allowed, u64::from(kept) + u64::from(also_kept), "{end:?}");
        let answers = u64::from(refunded) + u64::from(kept) + u64::from(also_kept);
        assert_eq!(end.refused, 3 - answers, "{end:?}");
    });
}

/// One thread counts a request (a retry's worth, at 100%), retries and
/// refunds, another retries, while the clock moves past the window:
/// whatever each read of the clock saw, once the window has passed with no
/// operation nothing is left (no reserve here), and a new request is worth
/// exactly one retry: no amount outlived the window in the balance, none
/// was lost from it.
#[test]
fn the_window_expires_everything() {
    explore("ratio::window", Some(2), || {
        let clock = ModelClock::at(Duration::ZERO);
        let budget = RatioBudget::builder()
            .with_ttl(Duration::from_secs(1))
            .with_min_per_sec(0)
            .with_retry_percent(1.0)
            .build_with_clock(clock.clone())
            .unwrap();
        let refunded = {
            let budget = budget.clone();
            thread::spawn(move || {
                budget.record_request();
                if budget.withdraw(&Failure::TRANSIENT) {
                    budget.refund(&Failure::TRANSIENT);
                }
            })
        };
        let kept = {
            let budget = budget.clone();
            thread::spawn(move || budget.withdraw(&Failure::TRANSIENT))
        };
        clock.set(Duration::from_millis(1050));
        let seen = budget.available();
        assert!((0.0..=1.0).contains(&seen), "{seen}");
        refunded.join().unwrap();
        kept.join().unwrap();

        clock.set(Duration::from_millis(2500));
        assert_eq!(budget.available(), 0.0, "the window is over");
        budget.record_request();
        assert_eq!(budget.available(), 1.0, "a request is one retry's worth at 100%");
        assert!(budget.withdraw(&Failure::TRANSIENT));
        assert!(!budget.withdraw(&Failure::TRANSIENT));
    });
}
