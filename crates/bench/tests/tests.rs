//! The bench's adapters and allocation counter, checked: staggered makes no
//! heap allocation per delay, and every adapter really computes the
//! configured schedule (10 delays per sequence, each within its retry's range);
//! staggered's retry loop makes no heap allocation on the success path nor
//! on the fail-once path, and every retry-loop adapter returns the
//! operation's value after the expected attempts.

use std::time::Duration;

use bench::alloc::{count_allocations, CountingAllocator};
use bench::harness::Workload;
use bench::retry_loop::{self, Driver, Path};
use bench::schedules::{interval, lineup, Role, DELAYS_PER_SEQUENCE, MAX_DELAY};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Sequences sampled per adapter. With 200 draws, the largest delay of a
/// retry stays below [`NEAR_MAX`] of its possible maximum with probability at
/// most 0.85^200 < 1e-14 for every shape here: these checks do not flake.
const SAMPLED_SEQUENCES: usize = 200;
/// How close to its maximum the largest sampled delay of each retry must come.
const NEAR_MAX: f64 = 0.85;
/// Slack for retry-policies, whose delay is read back from a wall-clock
/// wake-up time, and for backon's f32 arithmetic.
const SLACK: Duration = Duration::from_millis(1);

#[test]
fn the_counter_sees_allocations() {
    let (v, n) = count_allocations(|| Box::new(7u64));
    assert_eq!((*v, n), (7, 1));
}

#[test]
fn staggered_allocates_nothing_per_delay() {
    let ours = lineup().into_iter().filter(|r| r.info().role == Role::Staggered);
    for mut runner in ours {
        runner.run(10); // first use: thread-locals, lazily seeded entropy
        let ((), allocations) = count_allocations(|| runner.run(1_000));
        assert_eq!(allocations, 0, "{} allocated {allocations} times in 10,000 delays", runner.info().slug);
    }
}

#[test]
fn every_adapter_yields_ten_delays_within_its_range() {
    for mut runner in lineup() {
        let info = runner.info();
        let mut largest = [Duration::ZERO; DELAYS_PER_SEQUENCE];
        for _ in 0..SAMPLED_SEQUENCES {
            let delays = runner.sample();
            assert_eq!(delays.len(), DELAYS_PER_SEQUENCE);
            for (i, delay) in delays.into_iter().enumerate() {
                let retry = i as u32 + 1;
                let delay = delay.unwrap_or_else(|| panic!("{}: no delay for retry {retry}", info.slug));
                assert!(delay <= info.max_delay_of(retry) + SLACK, "{}: retry {retry}: {delay:?}", info.slug);
                largest[i] = largest[i].max(delay);
            }
        }
        for (i, max) in largest.into_iter().enumerate() {
            let retry = i as u32 + 1;
            let expected = info.max_delay_of(retry);
            assert!(
                max >= expected.mul_f64(NEAR_MAX),
                "{}: retry {retry}: max {max:?} vs {expected:?}",
                info.slug
            );
        }
        if info.clamped {
            assert!(largest.iter().all(|d| *d <= MAX_DELAY + SLACK), "{}: {largest:?}", info.slug);
        }
    }
}

#[test]
fn the_schedule_is_the_one_in_the_issue() {
    assert_eq!(interval(1), Duration::from_millis(100));
    assert_eq!(interval(2), Duration::from_millis(200));
    assert_eq!(interval(7), Duration::from_millis(6400));
    assert_eq!(interval(8), Duration::from_secs(10));
}

/// Calls per counted run of a retry-loop row. Rows that sleep on tokio's
/// timer wait up to 1 ms per call, so they make fewer.
fn calls(driver: Driver, path: Path) -> u64 {
    match (driver, path) {
        (Driver::Async, Path::FailOnce) => 20,
        _ => 1_000,
    }
}

#[test]
fn staggered_retry_loop_allocates_nothing_on_either_path() {
    let ours = retry_loop::lineup().into_iter().filter(|r| r.info().role == retry_loop::Role::Staggered);
    let mut checked = 0;
    for mut runner in ours {
        let info = runner.info().clone();
        let calls = calls(info.driver, info.path);
        runner.run(10); // first use: thread-locals, lazily seeded entropy, the runtime's timer
        let ((), allocations) = count_allocations(|| runner.run(calls));
        assert_eq!(allocations, 0, "{} allocated {allocations} times in {calls} calls", info.slug);
        checked += 1;
    }
    // Blocking and async, success and fail-once, and the async loop without a timer.
    assert_eq!(checked, 5);
}

#[test]
fn every_retry_loop_adapter_returns_the_value_after_the_expected_attempts() {
    for mut runner in retry_loop::lineup() {
        let info = runner.info().clone();
        for x in [0, 7, u64::MAX] {
            let (value, attempts) = runner.check(x);
            assert_eq!(value, Some(x), "{}", info.slug);
            assert_eq!(attempts, info.path.attempts(), "{}", info.slug);
        }
    }
}

#[test]
fn the_timed_loop_runs_every_retry_loop_row() {
    // `run` drives the same adapters as `check`: a smoke test that none of
    // them panics or hangs when timed.
    for mut runner in retry_loop::lineup() {
        let info = runner.info().clone();
        runner.run(calls(info.driver, info.path).min(3));
    }
}
