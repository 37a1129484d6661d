use std::time::Duration;

use staggered::classify::http::classify_status;
use staggered::hint::{grpc_retry_pushback, retry_after_seconds};
use staggered::test_util::RecordingSleeper;
use staggered::{Failure, RetryPolicy, StopReason};

use super::{exponential, ms, HttpError};

fn classify(e: &HttpError) -> Failure {
    classify_status(e.status).with_optional_hint(e.retry_after.and_then(retry_after_seconds))
}

fn run(
    policy_attempts: u32,
    errors: Vec<HttpError>,
) -> (Result<u32, staggered::RetryError<HttpError>>, Vec<Duration>) {
    let sleeper = RecordingSleeper::new();
    let mut errors = errors.into_iter();
    let result = RetryPolicy::new(exponential(policy_attempts))
        .classify(classify)
        .with_max_hint(Duration::from_secs(60))
        .retry(|attempt| match errors.next() {
            Some(e) => Err(e),
            None => Ok(attempt),
        })
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .map(|done| done.value);
    (result, sleeper.sleeps())
}

#[test]
fn retry_after_is_honoured_with_small_positive_jitter() {
    let (result, sleeps) = run(5, vec![HttpError { status: 429, retry_after: Some("3") }]);
    assert_eq!(result.unwrap(), 2);
    assert_eq!(sleeps.len(), 1);
    assert!(sleeps[0] >= Duration::from_secs(3) && sleeps[0] <= ms(3300), "{:?}", sleeps[0]);
}

#[test]
fn a_fleet_told_the_same_hint_does_not_return_in_lockstep() {
    let waits: std::collections::BTreeSet<Duration> =
        (0..50).map(|_| run(5, vec![HttpError { status: 503, retry_after: Some("10") }]).1[0]).collect();
    assert!(waits.len() > 40, "only {} distinct waits", waits.len());
    assert!(waits.iter().all(|w| *w >= Duration::from_secs(10) && *w <= Duration::from_secs(11)));
}

#[test]
fn hinted_retries_count_against_max_attempts() {
    let hinted = HttpError { status: 503, retry_after: Some("1") };
    let (result, sleeps) = run(3, vec![hinted.clone(), hinted.clone(), hinted.clone(), hinted]);
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), sleeps.len()), (StopReason::AttemptsExhausted, 3, 2));
}

#[test]
fn hostile_hints_never_panic_nor_overshoot() {
    for hostile in ["99999999999999999999999", "-5", "NaN", "", "1e3", "  ", "\u{0}"] {
        let (result, sleeps) = run(3, vec![HttpError { status: 503, retry_after: Some(hostile) }]);
        match result {
            Ok(_) => assert!(sleeps.iter().all(|s| *s <= Duration::from_secs(60)), "{hostile:?}: {sleeps:?}"),
            Err(err) => assert_eq!(err.reason(), StopReason::HintTooLong, "{hostile:?}"),
        }
    }
    let (result, _) = run(3, vec![HttpError { status: 503, retry_after: Some("3600") }]);
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::HintTooLong, 1));
}

#[test]
fn grpc_pushback_never_stops() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(5))
        .classify(|_: &&str| Failure::TRANSIENT.with_hint(grpc_retry_pushback("-1")))
        .retry(|_| Err::<(), _>("unavailable"))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::HintTooLong, 1));
}

#[test]
fn a_hint_past_the_deadline_stops_now() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(5))
        .classify(classify)
        .with_deadline(Duration::from_secs(5))
        .unwrap()
        .retry(|_| Err::<(), _>(HttpError { status: 429, retry_after: Some("10") }))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::Deadline);
    assert!(sleeper.sleeps().is_empty());
}

#[test]
fn backoff_schedules_refuse_hints_longer_than_their_largest_delay_by_default() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(5)) // max_delay 10 s
        .classify(classify)
        .retry(|_| Err::<(), _>(HttpError { status: 429, retry_after: Some("11") }))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::HintTooLong);
}
