//! backon 1.6.0, `src/backoff/exponential.rs` and `constant.rs` tests.
//!
//! `ExponentialBuilder::default()`: `min_delay` 1 s, `factor` 2, `max_delay`
//! 60 s, `max_times` 3 retries, no jitter; `with_jitter` adds `U[0, 1) * d`
//! to each delay `d` after the cap. Ours: `exponential` with the same base,
//! multiplier, cap and 4 attempts; backon's jitter is `additive` with factor
//! 1 and the cap on the interval.

use staggered::{Backoff, CapMode, StopReason, Strategy};

use super::{ms, policy, run, secs};

fn exponential() -> staggered::BackoffBuilder {
    Backoff::builder(Strategy::Exponential)
        .with_base(secs(1))
        .with_multiplier(2.0)
        .with_max_delay(secs(60))
        .with_max_attempts(4)
}

#[test]
fn default_exponential_builder() {
    // test_exponential_default: 1 s, 2 s, 4 s, then None.
    let delays: Vec<_> = exponential().build().unwrap().delays().collect();
    assert_eq!(delays, [secs(1), secs(2), secs(4)]);
    // test_exponential_factor: 1, 1.5, 2.25 s.
    let delays: Vec<_> = exponential().with_multiplier(1.5).build().unwrap().delays().collect();
    assert_eq!(delays, [ms(1000), ms(1500), ms(2250)]);
    // test_exponential_min_delay: 500 ms, 1 s, 2 s.
    let delays: Vec<_> = exponential().with_base(ms(500)).build().unwrap().delays().collect();
    assert_eq!(delays, [ms(500), secs(1), secs(2)]);
    // test_exponential_max_delay_with_default: max_delay caps every delay.
    let capped: Vec<_> = exponential().with_max_delay(secs(2)).build().unwrap().delays().collect();
    assert_eq!(capped, [secs(1), secs(2), secs(2)]);
}

#[test]
fn jitter_is_additive_with_factor_one() {
    // test_exponential_jitter: [1, 2), [2, 4), [4, 8).
    let jittered = exponential()
        .with_strategy(Strategy::Additive)
        .with_factor(1.0)
        .with_cap_mode(CapMode::Interval)
        .build()
        .unwrap();
    let ranges: Vec<_> = jittered.bounds().map(|b| (b.min, b.max)).collect();
    assert_eq!(ranges, [(secs(1), secs(2)), (secs(2), secs(4)), (secs(4), secs(8))]);
    for seed in 0..200 {
        for (delay, (min, max)) in jittered.delays_seeded(seed).zip(&ranges) {
            assert!(*min <= delay && delay < *max, "{delay:?}");
        }
    }
}

#[test]
fn total_delay_is_our_deadline_but_the_boundary_stops() {
    // test_exponential_total_delay: min_delay 1 s, factor 1, total_delay 3 s,
    // max_times 5 gives 1, 1, 1 s: backon keeps a delay that ends exactly at
    // the total. Our deadline also counts the operations' own time, and an
    // attempt that would start exactly at the deadline has no time to run:
    // with the same 3 s we make 2 retries, with a nanosecond more the 3.
    let constant =
        Backoff::builder(Strategy::Constant).with_base(secs(1)).with_max_attempts(6).build().unwrap();
    let always = [staggered::Failure::TRANSIENT; 6];
    let (waits, outcome) = run(&policy(constant).with_deadline(secs(3)).unwrap(), &always);
    assert_eq!((waits, outcome), (vec![secs(1); 2], Err((StopReason::Deadline, 3))));
    let deadline = secs(3) + std::time::Duration::from_nanos(1);
    let (waits, outcome) = run(&policy(constant).with_deadline(deadline).unwrap(), &always);
    assert_eq!((waits, outcome), (vec![secs(1); 3], Err((StopReason::Deadline, 4))));
}

#[test]
fn constant_builder() {
    // ConstantBuilder::default(): 1 s, 3 times.
    let constant =
        Backoff::builder(Strategy::Constant).with_base(secs(1)).with_max_attempts(4).build().unwrap();
    assert_eq!(constant.delays().collect::<Vec<_>>(), [secs(1); 3]);
}

#[test]
fn without_max_delay_saturates_instead_of_overflowing() {
    // test_exponential_no_max_delay_with_default: factor 1e10, no max_delay:
    // 1 s, 1e10 s, then Duration::MAX.
    let huge = exponential()
        .with_multiplier(10_000_000_000.0)
        .with_max_delay(std::time::Duration::MAX)
        .with_max_attempts(5)
        .build()
        .unwrap();
    let delays: Vec<_> = huge.delays().collect();
    assert_eq!(delays[..2], [secs(1), secs(10_000_000_000)]);
    assert!(
        delays[2..].iter().all(|d| *d >= std::time::Duration::from_secs(u64::MAX) - secs(1)),
        "{delays:?}"
    );
}
