//! Limits mean what they say: the `max_attempts` a policy reports is the one
//! it applies, and 0 is refused as the schedule builders refuse it.

use std::cell::RefCell;
use std::time::Duration;

use staggered::test_util::RecordingSleeper;
use staggered::{Backoff, ConfigError, Field, Preset, RetryPolicy, Rule, Schedule, StopReason, Strategy};

use super::ms;

#[test]
fn raising_max_attempts_past_the_schedule_makes_that_many_attempts() {
    // Preset::Interactive allows 3 attempts; the policy asks for 10.
    let heard = RefCell::new(Vec::new());
    let policy = RetryPolicy::new(Preset::Interactive.backoff()).with_max_attempts(10).unwrap();
    assert_eq!(policy.limits().max_attempts, Some(10));
    assert_eq!(policy.schedule().max_attempts(), Some(10), "the schedule goes on by its formula");
    let sleeper = RecordingSleeper::new();
    let mut calls = 0;
    let err = policy
        .retry(|_| {
            calls += 1;
            Err::<(), _>("down")
        })
        .on_retry(|event| heard.borrow_mut().push(event.max_attempts))
        .on_give_up(|event| heard.borrow_mut().push(event.max_attempts))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), calls), (StopReason::AttemptsExhausted, 10, 10));
    assert_eq!(sleeper.sleeps().len(), 9);
    // The interactive schedule's cap still holds past its own third attempt.
    assert!(sleeper.sleeps().iter().all(|d| *d <= Duration::from_secs(3)), "{:?}", sleeper.sleeps());
    assert_eq!(*heard.borrow(), [Some(10); 10], "every event reports the limit applied");
}

#[test]
fn lowering_max_attempts_cuts_the_schedule() {
    let policy = RetryPolicy::new(Preset::Standard.backoff()).with_max_attempts(2).unwrap();
    let sleeper = RecordingSleeper::new();
    let err =
        policy.retry(|_| Err::<(), _>("down")).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::AttemptsExhausted, 2));
}

#[test]
fn a_fixed_list_of_delays_cannot_be_raised_past_its_end() {
    let fixed = [ms(10), ms(20)].into_iter(); // 3 attempts
    let err = RetryPolicy::new(fixed.clone()).with_max_attempts(5).unwrap_err();
    assert_eq!((err.field(), err.rule()), (Field::MaxAttempts, Rule::WithinSchedule(3)));
    assert_eq!(
        err.to_string(),
        "invalid max_attempts 5: must be at most 3: the schedule has delays for 3 attempts and cannot be extended"
    );
    // An endless iterator and the composed schedules take any limit.
    let endless = std::iter::repeat(ms(1));
    assert_eq!(RetryPolicy::new(endless).with_max_attempts(50).unwrap().limits().max_attempts, Some(50));
    let composed = Preset::Aws.backoff().with_first_delay(Duration::ZERO);
    let raised = RetryPolicy::new(composed).with_max_attempts(8).unwrap();
    assert_eq!(raised.schedule().delays().count(), 7);
    let chained = Preset::Aws.backoff().then(Preset::Interactive.backoff());
    let raised = RetryPolicy::new(chained).with_max_attempts(9).unwrap();
    assert_eq!(raised.schedule().delays().count(), 8);
}

#[test]
fn zero_attempts_is_refused_as_the_builder_refuses_it() {
    let from_builder = Backoff::builder(Strategy::Full).with_max_attempts(0).build().unwrap_err();
    let from_policy = RetryPolicy::new(Preset::Standard.backoff()).with_max_attempts(0).unwrap_err();
    let from_iterator = RetryPolicy::new(std::iter::repeat(ms(1))).with_max_attempts(0).unwrap_err();
    for err in [&from_policy, &from_iterator] {
        assert_eq!(err, &from_builder);
    }
    assert_eq!(from_policy.to_string(), "invalid max_attempts 0: must be at least 1");
    let limits = staggered::Limits::NONE.with_max_attempts(Some(0));
    let err: ConfigError = RetryPolicy::new(Preset::Standard.backoff()).with_limits(limits).unwrap_err();
    assert_eq!(err.field(), Field::MaxAttempts);
}

#[test]
fn a_zero_deadline_is_refused_as_a_zero_attempt_timeout_is() {
    let policy = || RetryPolicy::new(Preset::Standard.backoff());
    let deadline = policy().with_deadline(Duration::ZERO).unwrap_err();
    assert_eq!((deadline.field(), deadline.rule()), (Field::Deadline, Rule::NonZero));
    assert_eq!(deadline.to_string(), "invalid deadline 0ns: must not be zero");
    let timeout = policy().with_attempt_timeout(Duration::ZERO).unwrap_err();
    assert_eq!((timeout.field(), timeout.rule()), (Field::AttemptTimeout, Rule::NonZero));
    assert_eq!(timeout.to_string(), "invalid attempt_timeout 0ns: must not be zero");
    // Through the limits too.
    let limits = staggered::Limits::NONE.with_deadline(Some(Duration::ZERO));
    assert_eq!(policy().with_limits(limits).unwrap_err(), deadline);
    // The smallest non-zero values are accepted.
    let nanosecond = Duration::from_nanos(1);
    let policy = policy().with_deadline(nanosecond).unwrap().with_attempt_timeout(nanosecond).unwrap();
    assert_eq!(policy.limits().deadline, Some(nanosecond));
}
