//! Types flow from the operation: no closure argument below is annotated,
//! and giving up is heard by a closure.

use std::cell::RefCell;
use std::io;
use std::sync::{Arc, Mutex};

use staggered::test_util::RecordingSleeper;
use staggered::{Preset, RetryPolicy, StopReason};

use super::{exponential, ms};

fn refused() -> io::Error {
    io::Error::from(io::ErrorKind::ConnectionRefused)
}

#[test]
fn a_blocking_call_with_a_predicate_and_a_retry_log() {
    let log = RefCell::new(Vec::new());
    let policy = RetryPolicy::new(exponential(4));
    let sleeper = RecordingSleeper::new();
    let done = policy
        .retry(|attempt| if attempt < 3 { Err(refused()) } else { Ok(attempt) })
        .when(|e| e.kind() != io::ErrorKind::NotFound)
        .on_retry(|event| log.borrow_mut().push(event.to_string()))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap();
    assert_eq!((done.value, done.attempts), (3, 3));
    assert_eq!(
        *log.borrow(),
        [
            "attempt 1/4 failed (connection refused); retrying in 100ms",
            "attempt 2/4 failed (connection refused); retrying in 200ms",
        ]
    );

    // The predicate decides; the give-up is heard by a closure.
    let gave_up = RefCell::new(Vec::new());
    let err = policy
        .retry(|_| std::fs::read_to_string("/nonexistent/staggered"))
        .when(|e| e.kind() != io::ErrorKind::NotFound)
        .on_give_up(|event| gave_up.borrow_mut().push((event.reason, event.attempts)))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::Permanent);
    assert_eq!(*gave_up.borrow(), [(StopReason::Permanent, 1)]);
}

#[test]
fn the_policys_own_hooks_need_no_annotation_and_see_any_error_as_text() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let policy = RetryPolicy::new(exponential(2))
        .on_retry({
            let heard = Arc::clone(&heard);
            move |event| {
                let line = format!("retry {} after {}", event.delay.as_millis(), event.error);
                heard.lock().unwrap().push(line)
            }
        })
        .on_give_up({
            let heard = Arc::clone(&heard);
            move |event| heard.lock().unwrap().push(format!("{event}"))
        });
    let sleeper = RecordingSleeper::new();
    let _ = policy.retry(|_| Err::<(), _>(refused())).with_timer(&sleeper, &sleeper.clock()).run();
    let _ = policy.retry(|_| Err::<(), _>("a str")).with_timer(&sleeper, &sleeper.clock()).run();
    assert_eq!(
        *heard.lock().unwrap(),
        [
            "retry 100 after connection refused",
            "gave up after 2 attempts (attempts exhausted): connection refused",
            "retry 100 after a str",
            "gave up after 2 attempts (attempts exhausted): a str",
        ]
    );
}

#[test]
fn a_call_adds_its_hooks_to_the_policys() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let policy = RetryPolicy::new(exponential(2)).on_retry({
        let order = Arc::clone(&order);
        move |_| order.lock().unwrap().push("policy")
    });
    let sleeper = RecordingSleeper::new();
    let _ = policy
        .retry(|_| Err::<(), _>(refused()))
        .on_retry(|_| order.lock().unwrap().push("call"))
        .with_timer(&sleeper, &sleeper.clock())
        .run();
    assert_eq!(*order.lock().unwrap(), ["policy", "call"]);
}

#[tokio::test(start_paused = true)]
async fn an_async_call_with_a_predicate_and_hooks() {
    let policy = RetryPolicy::new(Preset::Interactive.backoff());
    let retries = std::sync::Mutex::new(0);
    let start = tokio::time::Instant::now();
    let value = policy
        .retry(|attempt| async move {
            tokio::time::sleep(ms(10)).await;
            if attempt < 2 {
                Err(refused())
            } else {
                Ok(attempt)
            }
        })
        .when(|e| e.kind() == io::ErrorKind::ConnectionRefused)
        .on_retry(|event| {
            assert_eq!(event.error.kind(), io::ErrorKind::ConnectionRefused);
            *retries.lock().unwrap() += 1;
        })
        .call()
        .await
        .unwrap();
    assert_eq!((value, *retries.lock().unwrap()), (2, 1));
    assert!(start.elapsed() >= ms(20) && start.elapsed() <= ms(200), "{:?}", start.elapsed());

    // `classify` takes a function as it is.
    let err = policy
        .retry(|_| async { Err::<(), _>(io::Error::from(io::ErrorKind::PermissionDenied)) })
        .classify(staggered::classify::io::classify_io)
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Permanent, 1));
}
