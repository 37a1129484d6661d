//! tower's `TpsBudget` (tower-rs/tower at 8358ee71,
//! `tower/src/retry/budget/tps_budget.rs`), whose tests drive tokio's paused
//! clock; ours drive a mock clock. tower's `deposit` counts a request (our
//! [`Budget::record_request`]); `withdraw` asks for a retry in both.

use std::time::Duration;

use staggered::test_util::MockClock;
use staggered::{Budget, Failure, RatioBudget};

use super::{ms, secs};

fn tps(ttl: Duration, min_per_sec: u32, retry_percent: f64) -> (RatioBudget<MockClock>, MockClock) {
    let clock = MockClock::new();
    let budget = RatioBudget::builder()
        .with_ttl(ttl)
        .with_min_per_sec(min_per_sec)
        .with_retry_percent(retry_percent)
        .build_with_clock(clock.clone())
        .unwrap();
    (budget, clock)
}

fn withdraw(budget: &RatioBudget<MockClock>) -> bool {
    budget.withdraw(&Failure::TRANSIENT)
}

#[test]
fn tps_empty() {
    let (budget, _) = tps(secs(1), 0, 1.0);
    assert!(!withdraw(&budget));
}

#[test]
fn tps_leaky() {
    let (budget, clock) = tps(secs(1), 0, 1.0);
    budget.record_request();
    clock.advance(secs(3));
    assert!(!withdraw(&budget));
}

#[test]
fn tps_slots() {
    let (budget, clock) = tps(secs(1), 0, 0.5);
    budget.record_request();
    budget.record_request();
    clock.advance(ms(901));
    assert!(withdraw(&budget), "900 ms later the deposits are still valid");
    clock.advance(ms(2001)); // a blank slate
    budget.record_request();
    clock.advance(ms(301));
    budget.record_request();
    clock.advance(ms(801));
    budget.record_request();
    assert!(withdraw(&budget), "the first deposit has expired; the second and third make a retry");
    assert!(!withdraw(&budget));
}

#[test]
fn tps_reserve() {
    let (budget, _) = tps(secs(1), 5, 1.0);
    for _ in 0..5 {
        assert!(withdraw(&budget));
    }
    assert!(!withdraw(&budget));
}

#[test]
fn default_is_twenty_percent_plus_ten_a_second_over_ten_seconds() {
    // TpsBudget::default(): ttl 10 s, min_per_sec 10, retry_percent 0.2.
    let (budget, _) = tps(secs(10), 10, 0.2);
    assert_eq!(budget.available(), 100.0);
    for _ in 0..50 {
        budget.record_request();
    }
    assert_eq!(budget.available(), 110.0);
    assert_eq!(RatioBudget::new().available(), 100.0, "our defaults are tower's");
}

#[test]
fn rounding_of_retry_percent() {
    // tower: 0.3 -> one retry per floor(1 / 0.3) = 3 requests (33%). Ours
    // keeps thousandths: exactly 30%, and tower's effective 1/3 is 0.333.
    let (ours, _) = tps(secs(1), 0, 0.3);
    (0..1000).for_each(|_| ours.record_request());
    assert_eq!(ours.available(), 300.0);
    let (tower_like, _) = tps(secs(1), 0, 1.0 / 3.0);
    (0..3).for_each(|_| tower_like.record_request());
    assert_eq!(tower_like.available(), 0.999, "tower would allow its retry here; we need a fourth request");
    tower_like.record_request();
    assert!(withdraw(&tower_like));
    // Where 1 / retry_percent is a whole number of thousandths, both agree.
    for percent in [0.1, 0.2, 0.25, 0.5, 1.0, 2.0] {
        let (budget, _) = tps(secs(1), 0, percent);
        (0..20).for_each(|_| budget.record_request());
        assert_eq!(budget.available(), 20.0 * percent, "{percent}");
    }
}
