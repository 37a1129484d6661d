//! A server hint through the retry decision: whatever a header said, the
//! wait stays within what the policy allows, under every hint policy and
//! a few limits.

use std::time::Duration;

use staggered::{Action, Decision, Failure, Hint, HintPolicy, Limits, StopReason};

const SECOND: Duration = Duration::from_secs(1);

/// The schedule's delays the hint competes with.
const SCHEDULED: [Duration; 3] = [Duration::ZERO, SECOND, Duration::from_secs(30)];
/// The longest hints honoured: none, zero, a minute (the defaults' order)
/// and an hour.
const MAX_HINTS: [Option<Duration>; 4] =
    [None, Some(Duration::ZERO), Some(Duration::from_secs(60)), Some(Duration::from_secs(3600))];
/// Every hint policy; `Bounded` as the AWS SDKs set it (5 s).
const POLICIES: [HintPolicy; 4] =
    [HintPolicy::AtLeast, HintPolicy::AWS, HintPolicy::Capped, HintPolicy::Pushback];
/// No deadline, a deadline at the start, and one half a second away.
const DEADLINES: [(Option<Duration>, Duration); 3] = [
    (None, Duration::ZERO),
    (Some(Duration::from_secs(10)), Duration::ZERO),
    (Some(Duration::from_secs(10)), Duration::from_millis(9_500)),
];
const JITTERS: [f64; 2] = [0.1, 1.0];

/// One decision's parameters.
#[derive(Debug, Clone, Copy)]
struct Case {
    scheduled: Duration,
    max_hint: Option<Duration>,
    policy: HintPolicy,
    deadline: Option<Duration>,
    elapsed: Duration,
    jitter: f64,
}

/// Runs a throttled failure carrying `hint` through a decision for every
/// combination of the parameters above, and checks each answer.
pub fn check_through_decisions(hint: Hint) {
    for scheduled in SCHEDULED {
        for max_hint in MAX_HINTS {
            for policy in POLICIES {
                for (deadline, elapsed) in DEADLINES {
                    for jitter in JITTERS {
                        check(hint, Case { scheduled, max_hint, policy, deadline, elapsed, jitter });
                    }
                }
            }
        }
    }
}

fn check(hint: Hint, case: Case) {
    let limits = Limits::NONE
        .with_max_hint(case.max_hint)
        .with_deadline(case.deadline)
        .with_hint_jitter(case.jitter)
        .with_hint_policy(case.policy);
    let mut decision = Decision::new(core::iter::once(case.scheduled), limits).with_hint_seed(7);
    let action = decision.on_failure(&Failure::THROTTLED.with_hint(hint), case.elapsed);
    let Hint::After(hint) = hint else {
        assert_eq!(action, Action::Stop(StopReason::HintTooLong), "a 'never' hint: {case:?}");
        return;
    };
    let too_long = case.max_hint.is_some_and(|max| hint > max)
        && matches!(case.policy, HintPolicy::AtLeast | HintPolicy::Pushback);
    match action {
        Action::Retry(wait) => {
            assert!(!too_long, "a hint of {hint:?} past max_hint was honoured: {case:?}");
            if let Some(deadline) = case.deadline {
                assert!(
                    case.elapsed.checked_add(wait).is_some_and(|end| end < deadline),
                    "a wait of {wait:?} passes the deadline: {case:?}"
                );
            }
            check_wait(hint, wait, case);
        }
        Action::Stop(StopReason::HintTooLong) => assert!(too_long, "hint {hint:?} refused: {case:?}"),
        Action::Stop(StopReason::Deadline) => {
            let (Some(deadline), Some(wait)) = (case.deadline, decision.last_wait()) else {
                panic!("a deadline stop with no deadline or no wait: {case:?}");
            };
            assert!(!too_long, "{case:?}");
            assert!(case.elapsed.checked_add(wait).is_none_or(|end| end >= deadline), "{wait:?} {case:?}");
        }
        Action::Stop(reason) => panic!("stopped for {reason:?} after a hint of {hint:?}: {case:?}"),
    }
}

/// The wait each policy gives a hint of `hint`: never above its bound.
fn check_wait(hint: Duration, wait: Duration, case: Case) {
    let Case { scheduled, max_hint, policy, jitter, .. } = case;
    match policy {
        HintPolicy::AtLeast => {
            assert!(wait >= hint && wait >= scheduled, "{wait:?} below the hint {hint:?}: {case:?}");
            match max_hint {
                Some(max) => assert!(wait <= max.max(scheduled), "{wait:?} past max_hint: {case:?}"),
                None => {
                    // The hint plus at most `jitter` of it (a nanosecond of rounding).
                    let most = hint.as_secs_f64() * (1.0 + jitter) + 1e-9;
                    assert!(
                        wait <= scheduled || wait.as_secs_f64() <= most,
                        "{wait:?} for {hint:?}: {case:?}"
                    );
                }
            }
        }
        HintPolicy::Bounded { extra } => {
            assert!(wait >= scheduled && wait <= scheduled.saturating_add(extra), "{wait:?}: {case:?}");
            assert!(wait == hint.clamp(scheduled, scheduled.saturating_add(extra)), "{wait:?}: {case:?}");
        }
        HintPolicy::Capped => assert_eq!(wait, max_hint.map_or(hint, |max| hint.min(max)), "{case:?}"),
        HintPolicy::Pushback => assert_eq!(wait, hint, "{case:?}"),
        _ => unreachable!("a policy this target does not know"),
    }
}
