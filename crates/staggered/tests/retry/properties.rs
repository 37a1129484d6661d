//! The retry decision under arbitrary inputs: whatever the limits, failures,
//! server hints (huge, zero, "never") and clock readings, it never panics,
//! never waits less than a hint, never past `max_hint` or the deadline, and
//! never allows more than `max_attempts` calls.

use std::time::Duration;

use proptest::prelude::*;
use staggered::{Action, Decision, ErrorKind, Failure, Hint, Limits};

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        Just(Duration::ZERO),
        Just(Duration::MAX),
        (0u64..=u64::MAX, 0u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n)),
        (0u64..100_000_000_000).prop_map(Duration::from_nanos),
    ]
}

fn failure() -> impl Strategy<Value = Failure> {
    let kind =
        prop_oneof![Just(ErrorKind::Transient), Just(ErrorKind::Throttled), Just(ErrorKind::Permanent)];
    let hint =
        prop_oneof![Just(None), Just(Some(Hint::Never)), duration().prop_map(|d| Some(Hint::After(d))),];
    (kind, hint, any::<bool>()).prop_map(|(kind, hint, timed_out)| {
        let failure = if timed_out { Failure::timeout() } else { Failure::new(kind) };
        failure.with_optional_hint(hint)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn never_panics_nor_overshoots(
        delays in prop::collection::vec(duration(), 0..8),
        max_attempts in prop::option::of(1u32..10),
        deadline in prop::option::of(duration()),
        max_hint in prop::option::of(duration()),
        jitter in prop_oneof![any::<f64>(), Just(f64::NAN), Just(f64::INFINITY), 0.0..1.0f64],
        steps in prop::collection::vec((failure(), duration()), 1..12),
        seed in any::<u64>(),
    ) {
        let limits = Limits::NONE
            .with_max_attempts(max_attempts)
            .with_deadline(deadline)
            .with_max_hint(max_hint)
            .with_hint_jitter(jitter);
        let mut decision = Decision::new(delays.clone().into_iter(), limits).with_hint_seed(seed);
        let mut elapsed = Duration::ZERO;
        let mut scheduled = delays.into_iter();
        for (failure, advance) in steps {
            elapsed = elapsed.saturating_add(advance);
            let attempt = decision.attempt();
            match decision.on_failure(&failure, elapsed) {
                Action::Retry(wait) => {
                    let next = scheduled.next().expect("a retry consumes a scheduled delay");
                    prop_assert!(failure.kind != ErrorKind::Permanent);
                    prop_assert!(max_attempts.is_none_or(|max| attempt < max));
                    prop_assert!(wait >= next, "never sooner than the schedule");
                    match failure.hint {
                        Some(Hint::Never) => prop_assert!(false, "a 'never' hint cannot retry"),
                        Some(Hint::After(hint)) => {
                            prop_assert!(wait >= hint, "never earlier than the server asked");
                            if let Some(max) = max_hint {
                                prop_assert!(hint <= max);
                                prop_assert!(wait <= max.max(next), "the jitter never passes max_hint");
                            }
                        }
                        None => prop_assert_eq!(wait, next),
                    }
                    if let Some(deadline) = deadline {
                        prop_assert!(elapsed.checked_add(wait).is_some_and(|end| end < deadline));
                    }
                    prop_assert_eq!(decision.attempt(), attempt.saturating_add(1));
                }
                Action::Stop(_) => break,
            }
        }
    }
}
