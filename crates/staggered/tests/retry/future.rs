use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use staggered::test_util::RecordingSleeper;
use staggered::{RetryPolicy, StopReason, TimedOut};

use super::{exponential, ms};

/// Runs a future whose every wait is already complete (a recording sleeper's).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

#[test]
fn runtime_agnostic_with_a_recording_sleeper_and_async_closures() {
    let sleeper = RecordingSleeper::new();
    let mut log = Vec::new();
    let done = block_on(RetryPolicy::new(exponential(5)).run_async_mut_with(
        async |attempt| {
            log.push(attempt); // an async closure borrowing mutably
            if attempt < 3 {
                Err("flaky")
            } else {
                Ok(attempt * 10)
            }
        },
        &sleeper,
        &sleeper.clock(),
    ))
    .unwrap();
    assert_eq!((done.value, done.attempts, log), (30, 3, vec![1, 2, 3]));
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200)]);
}

#[test]
fn closure_sleepers_plug_in_any_timer() {
    let slept = std::cell::RefCell::new(Vec::new());
    let sleeper = |d: Duration| {
        slept.borrow_mut().push(d);
        std::future::ready(())
    };
    let clock = || Duration::ZERO;
    let err = block_on(RetryPolicy::new(exponential(3)).run_async_with(
        |_| async { Err::<(), _>("x") },
        &sleeper,
        &clock,
    ))
    .unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(*slept.borrow(), [ms(100), ms(200)]);
}

#[tokio::test(start_paused = true)]
async fn tokio_paused_time_exhausts_and_reports() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(4)).call_async(async |_| Err::<(), _>("down")).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::AttemptsExhausted, 4));
    assert_eq!(start.elapsed(), ms(700), "slept 100 + 200 + 400 ms of paused time");
}

#[tokio::test(start_paused = true)]
async fn tokio_deadline_counts_operation_time() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(50))
        .with_deadline(Duration::from_secs(2))
        .call_async(async |_| {
            tokio::time::sleep(ms(150)).await;
            Err::<(), _>("slow")
        })
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 4));
    assert!(start.elapsed() <= Duration::from_secs(2), "{:?}", start.elapsed());
}

#[tokio::test(start_paused = true)]
async fn a_hung_attempt_is_cut_by_its_timeout_clipped_to_the_deadline() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(10))
        .with_deadline(Duration::from_secs(1))
        .with_attempt_timeout(ms(300))
        .call_async(async |_| {
            std::future::pending::<()>().await;
            Ok::<(), std::io::Error>(())
        })
        .await
        .unwrap_err();
    assert_eq!(err.error().unwrap().kind(), std::io::ErrorKind::TimedOut);
    // 300 cut + 100 + 300 cut + 200 = 900; attempt 3 gets only the 100 ms
    // left before the deadline, and the next wait (400) would pass it.
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 3));
    assert_eq!(start.elapsed(), Duration::from_secs(1));

    // Without a deadline nearer than the timeout, each attempt gets the full timeout.
    #[derive(Debug)]
    enum MyError {
        Timeout(TimedOut),
    }
    impl From<TimedOut> for MyError {
        fn from(t: TimedOut) -> Self {
            MyError::Timeout(t)
        }
    }
    impl std::fmt::Display for MyError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }
    let err = RetryPolicy::new(exponential(2))
        .with_attempt_timeout(ms(250))
        .call_async(async |_| {
            std::future::pending::<()>().await;
            Ok::<(), MyError>(())
        })
        .await
        .unwrap_err();
    let Some(MyError::Timeout(t)) = err.error() else { panic!("no error") };
    assert_eq!(t.after, ms(250));
}

#[tokio::test(start_paused = true)]
async fn a_fast_attempt_beats_its_timeout() {
    let value = RetryPolicy::new(exponential(3))
        .with_attempt_timeout(Duration::from_secs(5))
        .call_async(async |attempt| {
            tokio::time::sleep(ms(10)).await;
            Ok::<_, std::io::Error>(attempt)
        })
        .await
        .unwrap();
    assert_eq!(value, 1);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_future_cancels_cleanly() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = Arc::clone(&calls);
    let task = tokio::spawn(async move {
        RetryPolicy::new(exponential(10))
            // A closure returning an `async move` block makes a `Send` future
            // for `tokio::spawn`; an async closure that borrows its captures
            // cannot, for now (the compiler cannot prove `Send` for every borrow).
            .call_async(|_| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Err::<(), _>("down")
                }
            })
            .await
    });
    tokio::time::sleep(ms(150)).await; // attempts at 0 and 100 ms; now waiting 200 ms
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 2, "no attempt after the future was dropped");
}
