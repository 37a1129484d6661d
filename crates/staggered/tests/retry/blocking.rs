use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use staggered::classify::http::classify_status;
use staggered::test_util::RecordingSleeper;
use staggered::{Budget, ErrorKind, Failure, GiveUpEvent, Notify, RetryEvent, RetryPolicy, StopReason};

use super::{exponential, ms, HttpError};

#[test]
fn fails_twice_then_succeeds_with_the_scheduled_delays() {
    let sleeper = RecordingSleeper::new();
    let mut seen = Vec::new();
    let done = RetryPolicy::new(exponential(5))
        .retry(|attempt| {
            seen.push(attempt); // the operation borrows `seen` mutably
            if attempt < 3 {
                Err("flaky")
            } else {
                Ok("ok")
            }
        })
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap();
    assert_eq!(seen, [1, 2, 3]);
    assert_eq!((done.value, done.attempts, done.waited), ("ok", 3, ms(300)));
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200)]);
}

#[test]
fn success_on_first_try_never_sleeps() {
    let sleeper = RecordingSleeper::new();
    let done = RetryPolicy::new(exponential(5))
        .retry(|_| Ok::<_, &str>(7))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap();
    assert_eq!((done.value, done.attempts), (7, 1));
    assert!(sleeper.sleeps().is_empty());
}

#[test]
fn exhausted_attempts_return_reason_count_and_last_error() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(4))
        .retry(|attempt| Err::<(), _>(format!("failure {attempt}")))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::AttemptsExhausted);
    assert_eq!(err.attempts(), 4);
    assert_eq!(err.error().map(String::as_str), Some("failure 4"));
    assert_eq!(err.waited(), ms(700));
    assert_eq!(err.to_string(), "gave up after 4 attempts (attempts exhausted): failure 4");
}

#[test]
fn permanent_errors_stop_at_once_and_source_is_the_last_error() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(5))
        .classify(|e: &HttpError| classify_status(e.status))
        .retry(|_| Err::<(), _>(HttpError { status: 404, retry_after: None }))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Permanent, 1));
    assert!(err.is_permanent());
    let source = std::error::Error::source(&err).unwrap();
    assert_eq!(source.to_string(), "HTTP 404");
    assert!(sleeper.sleeps().is_empty());
}

#[test]
fn retry_if_predicate_decides() {
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(5))
        .retry(|attempt| Err::<(), _>(if attempt == 2 { "fatal" } else { "flaky" }))
        .when(|e| *e != "fatal")
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Permanent, 2));
}

#[test]
fn deadline_is_never_overrun_counting_operation_time() {
    let sleeper = RecordingSleeper::new();
    let clock = sleeper.clock();
    let policy = RetryPolicy::new(exponential(50)).with_deadline(Duration::from_secs(2)).unwrap();
    let err = policy
        .retry(|_| {
            clock.advance(ms(150)); // each attempt takes 150 ms
            Err::<(), _>("slow")
        })
        .with_timer(&sleeper, &clock)
        .run()
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::Deadline);
    // 150 +100 +150 +200 +150 +400 +150 = 1300; the next wait (800) would end at 2100 > 2000.
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200), ms(400)]);
    assert_eq!(err.attempts(), 4);
    assert!(clock.elapsed() <= Duration::from_secs(2));
}

#[test]
fn budget_refusal_stops_with_its_reason() {
    struct TwoRetries(AtomicU32);
    impl Budget for TwoRetries {
        fn withdraw(&self, _: &Failure) -> bool {
            self.0.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(1)).is_ok()
        }
        fn deposit(&self, _: u32, _: Option<&Failure>) {}
    }
    let sleeper = RecordingSleeper::new();
    let err = RetryPolicy::new(exponential(10))
        .with_budget(TwoRetries(AtomicU32::new(2)))
        .retry(|_| Err::<(), _>("down"))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::BudgetExhausted, 3));
}

#[test]
fn hooks_hear_every_retry_and_the_give_up() {
    #[derive(Default, Clone)]
    struct Log(std::rc::Rc<std::cell::RefCell<Vec<String>>>);
    impl Notify<&str> for Log {
        fn on_retry(&self, e: &RetryEvent<'_, &str>) {
            self.0.borrow_mut().push(format!(
                "retry attempt={} max={:?} delay={:?} error={} kind={:?} elapsed={:?}",
                e.attempt, e.max_attempts, e.delay, e.error, e.failure.kind, e.elapsed
            ));
        }
        fn on_give_up(&self, e: &GiveUpEvent<'_, &str>) {
            self.0.borrow_mut().push(format!(
                "give up {} after {} error={}",
                e.reason.name(),
                e.attempts,
                e.error.unwrap()
            ));
        }
    }
    let log = Log::default();
    let sleeper = RecordingSleeper::new();
    let _ = RetryPolicy::new(exponential(3))
        .retry(|_| Err::<(), _>("boom"))
        .notify(log.clone())
        .with_timer(&sleeper, &sleeper.clock())
        .run();
    assert_eq!(
        *log.0.borrow(),
        [
            "retry attempt=1 max=Some(3) delay=100ms error=boom kind=Transient elapsed=0ns",
            "retry attempt=2 max=Some(3) delay=200ms error=boom kind=Transient elapsed=100ms",
            "give up attempts_exhausted after 3 error=boom",
        ]
    );
}

#[test]
fn closure_hooks_and_iterator_schedules() {
    let delays = Cell::new(Vec::new());
    let sleeper = RecordingSleeper::new();
    let schedule = [ms(5), ms(7)].into_iter();
    let err = RetryPolicy::new(schedule)
        .retry(|_| Err::<(), _>("x"))
        .on_retry(|e| {
            let mut v = delays.take();
            v.push(e.delay);
            delays.set(v);
        })
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!(err.attempts(), 3, "two delays allow three attempts");
    assert_eq!(delays.take(), [ms(5), ms(7)]);
    assert_eq!(err.reason(), StopReason::AttemptsExhausted);
}

#[test]
fn u32_max_attempts_do_not_overflow() {
    let sleeper = RecordingSleeper::new();
    let schedule = std::iter::repeat(Duration::ZERO);
    let done = RetryPolicy::new(schedule)
        .with_max_attempts(u32::MAX)
        .unwrap()
        .retry(|attempt| if attempt < 1000 { Err("no") } else { Ok(attempt) })
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap();
    assert_eq!(done.attempts, 1000);
    assert_eq!(ErrorKind::Throttled.name(), "throttled");
}
