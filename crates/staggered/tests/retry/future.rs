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
fn runtime_agnostic_with_a_recording_sleeper_and_state_across_attempts() {
    let sleeper = RecordingSleeper::new();
    let log = std::cell::RefCell::new(Vec::new());
    let done = block_on(
        RetryPolicy::new(exponential(5))
            .retry(|attempt| {
                let log = &log; // each attempt's future borrows the log, not the closure
                async move {
                    log.borrow_mut().push(attempt); // state across attempts, through a `RefCell`
                    if attempt < 3 {
                        Err(String::from("flaky")) // an error type that can say an attempt was cut
                    } else {
                        Ok(attempt * 10)
                    }
                }
            })
            .with_timer(&sleeper, &sleeper.clock())
            .run(),
    )
    .unwrap();
    assert_eq!((done.value, done.attempts, log.into_inner()), (30, 3, vec![1, 2, 3]));
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
    let err = block_on(
        RetryPolicy::new(exponential(3))
            .retry(|_| async { Err::<(), _>(String::from("x")) })
            .with_timer(&sleeper, &clock)
            .run(),
    )
    .unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(*slept.borrow(), [ms(100), ms(200)]);
}

#[tokio::test(start_paused = true)]
async fn tokio_paused_time_exhausts_and_reports() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(4))
        .retry(async |_| Err::<(), _>(String::from("down")))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::AttemptsExhausted, 4));
    assert_eq!(start.elapsed(), ms(700), "slept 100 + 200 + 400 ms of paused time");
}

#[tokio::test(start_paused = true)]
async fn tokio_deadline_counts_operation_time() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(50))
        .with_deadline(Duration::from_secs(2))
        .unwrap()
        .retry(async |_| {
            tokio::time::sleep(ms(150)).await;
            Err::<(), _>(String::from("slow"))
        })
        .call()
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
        .unwrap()
        .with_attempt_timeout(ms(300))
        .unwrap()
        .retry(async |_| {
            std::future::pending::<()>().await;
            Ok::<(), std::io::Error>(())
        })
        .call()
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
        .unwrap()
        .retry(async |_| {
            std::future::pending::<()>().await;
            Ok::<(), MyError>(())
        })
        .call()
        .await
        .unwrap_err();
    let Some(MyError::Timeout(t)) = err.error() else { panic!("no error") };
    assert_eq!(t.after, ms(250));
}

#[tokio::test(start_paused = true)]
async fn a_fast_attempt_beats_its_timeout() {
    let value = RetryPolicy::new(exponential(3))
        .with_attempt_timeout(Duration::from_secs(5))
        .unwrap()
        .retry(async |attempt| {
            tokio::time::sleep(ms(10)).await;
            Ok::<_, std::io::Error>(attempt)
        })
        .call()
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
            .retry(|_| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Err::<(), _>(String::from("down"))
                }
            })
            .call()
            .await
    });
    tokio::time::sleep(ms(150)).await; // attempts at 0 and 100 ms; now waiting 200 ms
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 2, "no attempt after the future was dropped");
}

#[tokio::test(start_paused = true)]
async fn the_deadline_cuts_a_running_attempt_without_an_attempt_timeout() {
    // The standard preset waits about a second before retry 1; the deadline
    // is 200 ms; the operation takes 1.5 s.
    let policy = RetryPolicy::new(staggered::Preset::Standard.backoff()).with_deadline(ms(200)).unwrap();
    let start = tokio::time::Instant::now();
    let err = policy
        .retry(|_| async {
            tokio::time::sleep(ms(1500)).await;
            Err::<(), _>(std::io::Error::other("slow"))
        })
        .call()
        .await
        .unwrap_err();
    assert_eq!(start.elapsed(), ms(200), "cut at the deadline, not after 1.5 s");
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 1));
    let cut = err.error().expect("the cut attempt fails with its own error");
    assert_eq!(cut.kind(), std::io::ErrorKind::TimedOut);
    assert_eq!(
        err.to_string(),
        "gave up after 1 attempt (no time left before the deadline): attempt timed out after 200ms"
    );

    // A later attempt cut: its error is the cut, not the one before it.
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(exponential(5))
        .with_deadline(Duration::from_secs(1))
        .unwrap()
        .retry(async |attempt| {
            if attempt > 1 {
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
            Err::<(), _>(format!("attempt {attempt} failed"))
        })
        .call()
        .await
        .unwrap_err();
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 2));
    assert_eq!(err.error().map(String::as_str), Some("attempt timed out after 900ms"));
}

#[tokio::test(start_paused = true)]
async fn a_deadline_cut_reaches_the_give_up_hook() {
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let policy = RetryPolicy::new(exponential(3)).with_deadline(ms(50)).unwrap().on_give_up({
        let heard = Arc::clone(&heard);
        move |event| heard.lock().unwrap().push(event.to_string())
    });
    let _ = policy.retry(|_| std::future::pending::<Result<(), std::io::Error>>()).call().await;
    assert_eq!(
        *heard.lock().unwrap(),
        ["gave up after 1 attempt (no time left before the deadline): attempt timed out after 50ms"]
    );
}

#[tokio::test(start_paused = true)]
async fn with_an_attempt_timeout_the_cut_is_the_operations_own_error() {
    let start = tokio::time::Instant::now();
    let err = RetryPolicy::new(staggered::Preset::Standard.backoff())
        .with_deadline(ms(200))
        .unwrap()
        .with_attempt_timeout(Duration::from_secs(5))
        .unwrap()
        .retry(|_| std::future::pending::<Result<(), std::io::Error>>())
        .call()
        .await
        .unwrap_err();
    assert_eq!((start.elapsed(), err.reason()), (ms(200), StopReason::Deadline));
    assert_eq!(err.error().map(std::io::Error::kind), Some(std::io::ErrorKind::TimedOut));
}

#[test]
fn state_across_attempts_in_a_task_spawned_on_a_multi_thread_runtime() {
    use std::sync::Mutex;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    let policy = Arc::new(RetryPolicy::new(exponential(5)));
    let sleeper = RecordingSleeper::new();
    let tried = Arc::new(Mutex::new(Vec::new()));
    let task = runtime.spawn({
        let (policy, tried, sleeper) = (Arc::clone(&policy), Arc::clone(&tried), sleeper.clone());
        async move {
            let mut calls = 0; // changed by the closure alone, moved into it
            let done = policy
                .retry(move |attempt| {
                    calls += 1;
                    let tried = Arc::clone(&tried); // each attempt's own handle
                    async move {
                        tokio::task::yield_now().await; // across an await, on any worker
                        tried.lock().unwrap().push((attempt, calls, std::thread::current().id()));
                        if attempt < 3 {
                            Err(std::io::Error::other("busy"))
                        } else {
                            Ok(attempt * 10)
                        }
                    }
                })
                .with_timer(&sleeper, &sleeper.clock())
                .run()
                .await;
            done.map(|done| done.value)
        }
    });
    assert_eq!(runtime.block_on(task).unwrap().unwrap(), 30);
    let tried = tried.lock().unwrap();
    assert_eq!(
        tried.iter().map(|&(attempt, calls, _)| (attempt, calls)).collect::<Vec<_>>(),
        [(1, 1), (2, 2), (3, 3)]
    );
    assert_eq!(sleeper.sleeps(), [ms(100), ms(200)]);
}
