//! Cancelling from outside with `.cancel_on(..)`: an async call takes any
//! future and stops with `StopReason::Cancelled` at once, during a wait or
//! during an attempt (which it drops); a blocking call takes a `CancelFlag`
//! that ends a wait at once and is checked before each attempt. After the
//! cancel, nothing more is taken from the budget or the rate limiter, and a
//! retry the budget paid for but that was never sent is given back.

use std::io;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::sleep::{BlockingSleeper, StdClock, StdSleeper};
use staggered::test_util::RecordingSleeper;
use staggered::{CancelFlag, RetryPolicy, StopReason};

use super::probes::{
    assert_cancelled_during_attempt, assert_cancelled_during_backoff, within_a_minute, Drops, Spent, Watch,
};
use super::{every_10_s, exponential, ms};

fn failed(attempt: u32) -> io::Error {
    io::Error::other(format!("attempt {attempt} failed"))
}

#[tokio::test(start_paused = true)]
async fn an_async_cancel_during_a_10_s_backoff_ends_the_call_within_5_ms() {
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(every_10_s(5)));
    let cancel_at = tokio::time::Instant::now() + Duration::from_secs(2);
    let err = policy
        .retry(|attempt| async move { Err::<(), _>(failed(attempt)) })
        .cancel_on(tokio::time::sleep_until(cancel_at))
        .call()
        .await
        .unwrap_err();
    assert_cancelled_during_backoff(cancel_at, &watch);
    assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 1));
    assert_eq!(err.error().map(ToString::to_string).as_deref(), Some("attempt 1 failed"));
}

#[tokio::test(start_paused = true)]
async fn an_async_cancel_during_an_attempt_drops_it_and_stops_at_once() {
    for hanging in [1, 2] {
        // Attempts before `hanging` fail at once; attempt `hanging` never answers.
        let watch = Watch::default();
        let policy = watch.policy(RetryPolicy::new(exponential(5)));
        let drops = Drops::default();
        let start = tokio::time::Instant::now();
        let call = policy
            .retry(|attempt| {
                let guard = drops.guard(attempt);
                async move {
                    let _guard = guard;
                    if attempt == hanging {
                        std::future::pending::<()>().await;
                    }
                    Err::<(), _>(failed(attempt))
                }
            })
            .cancel_on(tokio::time::sleep(Duration::from_secs(1)))
            .call();
        let err = within_a_minute(call).await.unwrap_err();
        assert_cancelled_during_attempt(hanging, start, &drops, &watch);
        assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, hanging));
        // The last attempt that ended is given back; none if none ended.
        let last = err.error().map(ToString::to_string);
        assert_eq!(last, (hanging == 2).then(|| "attempt 1 failed".to_owned()));
    }
}

#[tokio::test(start_paused = true)]
async fn an_attempt_cancelled_in_flight_is_dropped_before_the_give_up_is_heard() {
    /// Logs its drop: the attempt's future holds it.
    struct Logged(Arc<Mutex<Vec<&'static str>>>);
    impl Drop for Logged {
        fn drop(&mut self) {
            self.0.lock().unwrap().push("attempt dropped");
        }
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    let policy = RetryPolicy::new(exponential(5));
    let call = policy
        .retry(|_| {
            let logged = Logged(log.clone());
            async move {
                let _logged = logged;
                std::future::pending::<()>().await;
                Ok::<(), io::Error>(())
            }
        })
        .on_give_up(|_| log.lock().unwrap().push("give-up heard"))
        .cancel_on(tokio::time::sleep(Duration::from_secs(1)))
        .call();
    let err = within_a_minute(call).await.unwrap_err();
    assert_eq!(err.reason(), StopReason::Cancelled);
    // The hooks hear of a call whose attempt is already gone.
    assert_eq!(*log.lock().unwrap(), ["attempt dropped", "give-up heard"]);
}

/// `StdSleeper`, the real one, that first says on `started` how long it is
/// about to wait: the test's canceller then sets the flag during the wait.
struct SaysWhenItWaits {
    started: Mutex<mpsc::Sender<Duration>>,
}

impl BlockingSleeper for SaysWhenItWaits {
    fn sleep(&self, delay: Duration) {
        self.started.lock().unwrap().send(delay).unwrap();
        StdSleeper.sleep(delay);
    }

    fn sleep_unless(&self, delay: Duration, flag: &CancelFlag) -> bool {
        self.started.lock().unwrap().send(delay).unwrap();
        StdSleeper.sleep_unless(delay, flag)
    }
}

#[test]
fn a_cancel_flag_set_during_a_10_s_wait_ends_the_wait_at_once() {
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(every_10_s(5)));
    let (flag, (started, waits)) = (CancelFlag::new(), mpsc::channel());
    let canceller = std::thread::spawn({
        let flag = flag.clone();
        move || {
            let wait = waits.recv().unwrap();
            flag.cancel();
            wait
        }
    });
    let sleeper = SaysWhenItWaits { started: Mutex::new(started) };
    let began = std::time::Instant::now();
    let err = policy
        .retry(|attempt| Err::<(), _>(failed(attempt)))
        .cancel_on(&flag)
        .with_timer(&sleeper, &StdClock)
        .call()
        .unwrap_err();
    let took = began.elapsed();
    assert_eq!(canceller.join().unwrap(), Duration::from_secs(10), "cancelled during the 10 s wait");
    assert!(took < Duration::from_millis(500), "the wait did not end at the cancel: {took:?}");
    assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 1));
    assert_eq!(err.error().map(ToString::to_string).as_deref(), Some("attempt 1 failed"));
    assert_eq!(watch.heard.give_ups(), [(StopReason::Cancelled, 1)]);
    // The retry the budget allowed was never sent: given back, not counted.
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(0, 1, 1));
}

#[test]
fn a_cancel_flag_set_during_an_attempt_stops_before_the_next_with_that_failure() {
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(exponential(5)));
    let (flag, sleeper) = (CancelFlag::new(), RecordingSleeper::new());
    let mut calls = 0;
    let err = policy
        .retry(|attempt| {
            calls += 1;
            if attempt == 2 {
                flag.cancel(); // as another thread would, while attempt 2 runs
            }
            Err::<(), _>(failed(attempt))
        })
        .cancel_on(&flag)
        .with_timer(&sleeper, &sleeper.clock())
        .call()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), calls), (StopReason::Cancelled, 2, 2));
    assert_eq!(err.error().map(ToString::to_string).as_deref(), Some("attempt 2 failed"));
    assert_eq!(sleeper.sleeps(), [ms(100)], "no wait after the cancel");
    assert_eq!((watch.heard.retries(), watch.heard.give_ups()), (vec![1], vec![(StopReason::Cancelled, 2)]));
    // Retry 1 was sent and paid for; nothing was taken after the cancel.
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(1, 2, 2));

    // A flag set before the call: no attempt at all.
    let err = policy
        .retry(|attempt| Err::<(), _>(failed(attempt)))
        .cancel_on(&flag)
        .with_timer(&sleeper, &sleeper.clock())
        .call()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), err.error().is_none()), (StopReason::Cancelled, 0, true));
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(1, 2, 2));
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_wait_counts_only_the_time_waited() {
    let err = RetryPolicy::new(every_10_s(5))
        .retry(|attempt| async move { Err::<(), _>(failed(attempt)) })
        .cancel_on(tokio::time::sleep(Duration::from_secs(2)))
        .call()
        .await
        .unwrap_err();
    assert_eq!(err.reason(), StopReason::Cancelled);
    assert_eq!(err.waited(), Duration::from_secs(2));
}

/// No wait at all between attempts, `attempts` calls in all: a cancel
/// that is not seen before each attempt is never seen.
fn no_wait(attempts: u32) -> staggered::Backoff {
    staggered::Backoff::builder(staggered::Strategy::Constant)
        .with_base(Duration::ZERO)
        .with_max_attempts(attempts)
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_signal_fired_before_the_call_sends_nothing_and_takes_nothing() {
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(no_wait(10)));
    let err = policy
        .retry(|attempt| async move { Err::<(), _>(failed(attempt)) })
        .cancel_on(std::future::ready(()))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), err.error().is_none()), (StopReason::Cancelled, 0, true));
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(0, 0, 0), "no token, no retry paid for");
    assert_eq!(watch.heard.give_ups(), [(StopReason::Cancelled, 0)]);

    // Hedged, the same: no copy is sent.
    let hedging = staggered::Hedging::after(ms(10)).with_max_attempts(3).unwrap();
    let err = policy
        .retry(|attempt| async move { Err::<(), _>(failed(attempt)) })
        .hedge(hedging)
        .cancel_on(std::future::ready(()))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 0));
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn a_signal_that_fires_during_an_attempt_is_seen_before_a_zero_wait() {
    // Attempt 1 fires the signal and fails at once; the wait after it is
    // zero, so only a check before the wait and the next attempt sees it.
    let watch = Watch::default();
    let policy = watch.policy(RetryPolicy::new(no_wait(10)));
    let (fire, fired) = tokio::sync::oneshot::channel::<()>();
    let mut fire = Some(fire);
    let err = policy
        .retry(|attempt| {
            if let Some(fire) = fire.take() {
                fire.send(()).unwrap();
            }
            async move { Err::<(), _>(failed(attempt)) }
        })
        .cancel_on(async move { fired.await.unwrap() })
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 1));
    assert_eq!(err.error().map(ToString::to_string).as_deref(), Some("attempt 1 failed"));
    // One attempt sent and heard; the retry was never paid for.
    assert_eq!(watch.spent(), Spent::on_a_default_bucket(0, 1, 1));
}

#[tokio::test(start_paused = true)]
async fn a_success_that_arrives_as_the_signal_fires_is_kept_hedged_or_not() {
    let hedging = staggered::Hedging::after(Duration::from_secs(5));
    let policy = RetryPolicy::new(exponential(3));
    for hedged in [false, true] {
        let answer_at = tokio::time::Instant::now() + Duration::from_secs(1);
        let retrying = policy
            .retry(|_| async move {
                tokio::time::sleep_until(answer_at).await;
                Ok::<_, io::Error>("answer")
            })
            .cancel_on(tokio::time::sleep_until(answer_at));
        let outcome =
            if hedged { retrying.hedge(hedging.clone()).call().await } else { retrying.call().await };
        assert_eq!(outcome.unwrap(), "answer", "hedged: {hedged}");
    }
    // A failure that arrives as the signal fires stops the call as
    // cancelled, with that failure.
    for hedged in [false, true] {
        let failing_at = tokio::time::Instant::now() + Duration::from_secs(1);
        let retrying = policy
            .retry(|attempt| async move {
                tokio::time::sleep_until(failing_at).await;
                Err::<(), _>(failed(attempt))
            })
            .cancel_on(tokio::time::sleep_until(failing_at));
        let err = if hedged { retrying.hedge(hedging.clone()).call().await } else { retrying.call().await };
        let err = err.unwrap_err();
        assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 1), "hedged: {hedged}");
        assert_eq!(err.error().map(ToString::to_string).as_deref(), Some("attempt 1 failed"));
    }
}
