//! Polling with `.until(ready)`, in the blocking and the async driver: a
//! value that is not ready is retried like a transient error, on the
//! schedule, under the deadline, through the policy's hooks and budget, and
//! the last one is given back when the retrying stops on it. Had a driver
//! skipped the machine's judgement, the first value would come back at once.

use std::cell::RefCell;
use std::io;
use std::time::Duration;

use staggered::test_util::RecordingSleeper;
use staggered::{Budget, RetryPolicy, StopReason, TokenBucket};

use super::probes::Heard;
use super::{exponential, ms};

/// A job's state as an attempt saw it, with that attempt's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    Running(u32),
    Done(u32),
}

fn is_done(job: &Job) -> bool {
    matches!(job, Job::Done(_))
}

/// Running on attempts 1 and 2, done from attempt 3.
fn done_on_attempt_3(attempt: u32) -> Job {
    if attempt < 3 {
        Job::Running(attempt)
    } else {
        Job::Done(attempt)
    }
}

#[test]
fn blocking_polling_returns_the_ready_value_after_3_attempts_on_the_schedule() {
    let (heard, bucket) = (Heard::default(), TokenBucket::new());
    let policy = heard.hooks(RetryPolicy::new(exponential(5)).with_budget(bucket.clone()));
    let sleeper = RecordingSleeper::new();
    let call_retries = RefCell::new(Vec::new());
    let done = policy
        .retry(|attempt| Ok::<_, io::Error>(done_on_attempt_3(attempt)))
        .until(is_done)
        .on_retry(|event| call_retries.borrow_mut().push((event.attempt, event.error.to_string())))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap();
    assert_eq!((done.value, done.attempts, done.waited), (Job::Done(3), 3, ms(300)));
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200)]);
    assert_eq!(*call_retries.borrow(), [(1, "not ready".to_owned()), (2, "not ready".to_owned())]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![]));
    // Two retries of 5 tokens; the success gives the last one's cost back.
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 495));
}

#[test]
fn blocking_polling_never_ready_stops_at_the_deadline_with_the_last_value() {
    let (heard, bucket) = (Heard::default(), TokenBucket::new());
    let policy = heard
        .hooks(RetryPolicy::new(exponential(10)).with_budget(bucket.clone()))
        .with_deadline(Duration::from_secs(1))
        .unwrap();
    let sleeper = RecordingSleeper::new();
    let err = policy
        .retry(|attempt| Ok::<_, io::Error>(Job::Running(attempt)))
        .until(is_done)
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    // Attempts at 0, 100, 300 and 700 ms; the next wait (800 ms) would pass the deadline.
    assert_eq!((err.reason(), err.attempts(), err.waited()), (StopReason::Deadline, 4, ms(700)));
    assert_eq!(err.value(), Some(&Job::Running(4)), "the last value, not the first");
    assert!(err.error().is_none());
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200), ms(400)]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2, 3], vec![(StopReason::Deadline, 4)]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (3, 485));

    // Without a deadline, max_attempts ends it the same way.
    let err = RetryPolicy::new(exponential(3))
        .retry(|attempt| Ok::<_, io::Error>(Job::Running(attempt)))
        .until(is_done)
        .with_timer(&sleeper, &sleeper.clock())
        .call()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::AttemptsExhausted, 3));
    assert_eq!(err.into_value(), Some(Job::Running(3)));
}

#[tokio::test(start_paused = true)]
async fn async_polling_returns_the_ready_value_after_3_attempts_on_the_schedule() {
    let (heard, bucket) = (Heard::default(), TokenBucket::new());
    let policy = heard.hooks(RetryPolicy::new(exponential(5)).with_budget(bucket.clone()));
    let call_retries = RefCell::new(Vec::new());
    let start = tokio::time::Instant::now();
    let done = policy
        .retry(|attempt| async move { Ok::<_, io::Error>(done_on_attempt_3(attempt)) })
        .until(is_done)
        .on_retry(|event| call_retries.borrow_mut().push((event.attempt, event.delay)))
        .run()
        .await
        .unwrap();
    assert_eq!((done.value, done.attempts, done.waited), (Job::Done(3), 3, ms(300)));
    assert_eq!(start.elapsed(), ms(300), "waited 100 + 200 ms of tokio's paused time");
    assert_eq!(*call_retries.borrow(), [(1, ms(100)), (2, ms(200))]);
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2], vec![]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (2, 495));
}

#[tokio::test(start_paused = true)]
async fn async_polling_never_ready_stops_at_the_deadline_with_the_last_value() {
    let (heard, bucket) = (Heard::default(), TokenBucket::new());
    let policy = heard
        .hooks(RetryPolicy::new(exponential(10)).with_budget(bucket.clone()))
        .with_deadline(Duration::from_secs(1))
        .unwrap();
    let start = tokio::time::Instant::now();
    let err = policy
        .retry(|attempt| async move { Ok::<_, io::Error>(Job::Running(attempt)) })
        .until(is_done)
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), err.waited()), (StopReason::Deadline, 4, ms(700)));
    assert_eq!(start.elapsed(), ms(700), "stopped at once, not after sleeping into the deadline");
    assert_eq!(err.value(), Some(&Job::Running(4)), "the last value, not the first");
    assert!(err.error().is_none());
    assert_eq!((heard.retries(), heard.give_ups()), (vec![1, 2, 3], vec![(StopReason::Deadline, 4)]));
    assert_eq!((bucket.metrics().unwrap().allowed, bucket.tokens()), (3, 485));
}

#[test]
fn an_error_while_polling_is_classified_as_an_error_and_a_later_value_still_polled() {
    // Attempt 1 fails, attempt 2 is not ready, attempt 3 is: each kind of
    // failed attempt reaches the hooks as what it was.
    let sleeper = RecordingSleeper::new();
    let heard = RefCell::new(Vec::new());
    let done = RetryPolicy::new(exponential(5))
        .retry(|attempt| match attempt {
            1 => Err(io::Error::from(io::ErrorKind::ConnectionReset)),
            _ => Ok(done_on_attempt_3(attempt)),
        })
        .until(is_done)
        .on_retry(|event| {
            let failed = event.error;
            heard.borrow_mut().push((failed.error().map(io::Error::kind), failed.response().copied()))
        })
        .with_timer(&sleeper, &sleeper.clock())
        .call()
        .unwrap();
    assert_eq!(done, Job::Done(3));
    assert_eq!(
        *heard.borrow(),
        [(Some(io::ErrorKind::ConnectionReset), None), (None, Some(Job::Running(2)))]
    );
}
