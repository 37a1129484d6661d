//! The ratio budget forgets everything once it leaves the window: however
//! heavy the traffic in one slot, however far the clock jumps, a wait longer
//! than the ttl leaves the `min_per_sec` reserve and nothing else.

use std::time::Duration;

use proptest::prelude::*;
use staggered::test_util::MockClock;
use staggered::{Budget, Failure, RatioBudget};

/// The budget's window is kept as ten slots of `ttl / 10`.
const SLOTS: u32 = 10;

fn budget(ttl: Duration, min_per_sec: u32, retry_percent: f64) -> (RatioBudget<MockClock>, MockClock) {
    let clock = MockClock::new();
    let budget = RatioBudget::builder()
        .with_ttl(ttl)
        .with_min_per_sec(min_per_sec)
        .with_retry_percent(retry_percent)
        .build_with_clock(clock.clone())
        .unwrap();
    (budget, clock)
}

#[test]
fn a_saturated_slot_is_forgotten_in_full() {
    // 3,000 requests at 1000% deposit 3 million retries' worth in one slot.
    let (budget, clock) = budget(Duration::from_secs(1), 0, 1000.0);
    for _ in 0..3000 {
        budget.record_request();
    }
    assert_eq!(budget.available(), 3_000_000.0, "every deposit counts while it is in the window");
    clock.advance(Duration::from_secs(5));
    assert_eq!(budget.available(), 0.0, "and none is left once the window has passed");
}

#[test]
fn withdrawals_past_any_slot_limit_give_the_reserve_back_in_full() {
    let (budget, clock) = budget(Duration::from_secs(10), u32::MAX, 0.0);
    let reserve = f64::from(u32::MAX) * 10.0;
    assert_eq!(budget.available(), reserve);
    for _ in 0..3_000_000 {
        assert!(budget.withdraw(&Failure::TRANSIENT));
    }
    assert_eq!(budget.available(), reserve - 3_000_000.0);
    clock.advance(Duration::from_secs(11));
    assert_eq!(budget.available(), reserve, "the reserve is whole again: 42,949,672,950");
}

#[test]
fn a_clock_jump_of_exactly_2_pow_32_slots_does_not_revive_old_deposits() {
    let (budget, clock) = budget(Duration::from_secs(1), 0, 1.0);
    for _ in 0..100 {
        budget.record_request();
    }
    assert_eq!(budget.available(), 100.0);
    let slot = Duration::from_millis(100);
    clock.advance(slot * u32::MAX + slot);
    assert_eq!(budget.available(), 0.0);
    // And the window still slides after the jump.
    budget.record_request();
    assert_eq!(budget.available(), 1.0);
    clock.advance(Duration::from_secs(1));
    assert_eq!(budget.available(), 0.0);
}

#[test]
fn jumps_of_every_size_around_tag_and_word_boundaries_expire_the_window() {
    let slot = Duration::from_millis(100);
    for slots in [
        10u64,
        11,
        1 << 15,
        (1 << 15) + 3,
        1 << 16,
        (1 << 16) + 10,
        1 << 31,
        1 << 32,
        (1 << 32) + 10,
        1 << 40,
    ] {
        let (budget, clock) = budget(Duration::from_secs(1), 0, 1.0);
        for _ in 0..7 {
            budget.record_request();
        }
        clock.advance(slot * 3);
        assert!(budget.withdraw(&Failure::TRANSIENT));
        clock.advance(Duration::from_nanos((slot.as_nanos() as u64).saturating_mul(slots)));
        assert_eq!(budget.available(), 0.0, "after a jump of {slots} slots");
    }
}

/// One step of a client's life.
#[derive(Debug, Clone)]
enum Op {
    Request(u16),
    Withdraw(u16),
    /// Advance the clock by this many nanoseconds.
    Advance(u64),
    /// Advance the clock by this many slots exactly (large jumps, aliasing candidates).
    Jump(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u16..500).prop_map(Op::Request),
        4 => (1u16..500).prop_map(Op::Withdraw),
        3 => (0u64..3_000_000_000).prop_map(Op::Advance),
        1 => prop_oneof![Just(1u64 << 16), Just(1u64 << 32), Just((1u64 << 32) - 1), 0u64..(1 << 34)]
            .prop_map(Op::Jump),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// After any sequence of requests, withdrawals and clock moves, a wait
    /// longer than the ttl leaves `min_per_sec * ttl` retries and nothing else.
    #[test]
    fn after_the_ttl_only_the_reserve_is_left(
        ttl_ms in 1_000u64..=60_000,
        min_per_sec in prop_oneof![0u32..100, Just(u32::MAX), any::<u32>()],
        retry_percent in prop_oneof![0.0f64..=1000.0, Just(1000.0), Just(0.2)],
        ops in proptest::collection::vec(op(), 0..40),
        wait_extra in 0u64..5_000_000_000,
    ) {
        let ttl = Duration::from_millis(ttl_ms);
        let (budget, clock) = budget(ttl, min_per_sec, retry_percent);
        let slot = ttl / SLOTS;
        // The mock clock saturates at about 584 years: keep room for the final wait.
        let room = Duration::from_nanos(u64::MAX) - Duration::from_secs(3600);
        let advance = |by: Duration| {
            if clock.elapsed().saturating_add(by) < room {
                clock.advance(by);
            }
        };
        for op in ops {
            match op {
                Op::Request(n) => (0..n).for_each(|_| budget.record_request()),
                Op::Withdraw(n) => (0..n).for_each(|_| { budget.withdraw(&Failure::TRANSIENT); }),
                Op::Advance(nanos) => advance(Duration::from_nanos(nanos)),
                Op::Jump(slots) => advance(Duration::from_nanos((slot.as_nanos() as u64).saturating_mul(slots))),
            }
            prop_assert!(budget.available() >= 0.0);
        }
        clock.advance(ttl + Duration::from_nanos(wait_extra));
        let reserve = f64::from(min_per_sec) * ttl.as_secs() as f64;
        prop_assert_eq!(budget.available(), reserve);
        let metrics = budget.metrics().unwrap();
        prop_assert_eq!(metrics.level, reserve);
    }
}
