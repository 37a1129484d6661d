//! Every peer's hint rule and per-kind backoff, through the one decision: the
//! blocking driver, the async driver and the tower layer all wait the same.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::compose::ByKind;
use staggered::test_util::RecordingSleeper;
use staggered::tower::RetryLayer;
use staggered::{ByResult, Failure, Hint, HintPolicy, RetryPolicy, Schedule, StopReason};
use tower::{Service, ServiceBuilder, ServiceExt};

use super::{exponential, ms};

/// An error that carries its own classification.
#[derive(Debug, Clone, Copy)]
struct Failed(Failure);

/// An async attempt cut at its time limit fails as a timeout.
impl From<staggered::TimedOut> for Failed {
    fn from(_: staggered::TimedOut) -> Self {
        Failed(Failure::timeout())
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.kind.name())
    }
}

/// Attempt `n` fails with `script[n - 1]`; past the script, success.
fn scripted(script: &[Failure]) -> impl FnMut(u32) -> Result<u32, Failed> + '_ {
    move |attempt| match script.get(attempt as usize - 1) {
        Some(failure) => Err(Failed(*failure)),
        None => Ok(attempt),
    }
}

fn pushback(ms: u64) -> Failure {
    Failure::TRANSIENT.with_hint(Hint::After(Duration::from_millis(ms)))
}

type Classify = fn(&Failed) -> Failure;

/// The waits the decision chose in one blocking run of `policy` over
/// `script` (zero waits included: the blocking driver does not sleep them).
fn waits<S: Schedule>(policy: &RetryPolicy<S, Classify>, script: &[Failure]) -> Vec<Duration> {
    let chosen = Mutex::new(Vec::new());
    let sleeper = RecordingSleeper::new();
    let _ = policy
        .retry(scripted(script))
        .on_retry(|event| chosen.lock().unwrap().push(event.delay))
        .with_timer(&sleeper, &sleeper.clock())
        .run();
    chosen.into_inner().unwrap()
}

fn classify(failed: &Failed) -> Failure {
    failed.0
}

fn policy<S: Schedule>(schedule: S) -> RetryPolicy<S, Classify> {
    RetryPolicy::new(schedule).classify(classify as Classify)
}

const T: Failure = Failure::TRANSIENT;

#[test]
fn a_grpc_pushback_waits_exactly_and_restarts_the_backoff() {
    // 100, 200, 400, 800 ms without hints.
    let script = [T, pushback(1000), T, T];
    let grpc = policy(exponential(6)).with_hint_policy(HintPolicy::Pushback);
    assert_eq!(waits(&grpc, &script), [100, 1000, 100, 200].map(ms), "A6: the backoff starts over");
    // Our default keeps the schedule going, and waits at least the hint.
    let ours = policy(exponential(6)).with_max_hint(Duration::from_secs(2)).with_hint_jitter(0.0);
    assert_eq!(waits(&ours, &script), [100, 1000, 400, 800].map(ms));
    // A plain iterator cannot start over: it goes on.
    let fixed = policy([100, 200, 400, 800, 1600].map(ms).into_iter()).with_hint_policy(HintPolicy::Pushback);
    assert_eq!(waits(&fixed, &script), [100, 1000, 400, 800].map(ms));
    // A hint past max_hint still stops, and "never" always does.
    let capped = policy(exponential(6)).with_hint_policy(HintPolicy::Pushback).with_max_hint(ms(999));
    let sleeper = RecordingSleeper::new();
    let err = capped.retry(scripted(&script)).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::HintTooLong, 2));
    let never = [T.with_hint(Hint::Never)];
    let err = grpc.retry(scripted(&never)).with_timer(&sleeper, &sleeper.clock()).run().unwrap_err();
    assert_eq!(err.reason(), StopReason::HintTooLong);
}

#[test]
fn the_aws_rule_bounds_the_hint_by_the_backoff() {
    let script = [pushback(10_000), pushback(0), pushback(150)];
    let aws = policy(exponential(6)).with_hint_policy(HintPolicy::AWS).with_max_hint(ms(1));
    assert_eq!(waits(&aws, &script), [5100, 200, 400].map(ms), "[d, d + 5 s]; max_hint does not apply");
}

#[test]
fn the_earlier_aws_rule_waits_the_cap_for_a_longer_hint() {
    let script = [pushback(30_000), pushback(50), T];
    let capped =
        policy(exponential(6)).with_hint_policy(HintPolicy::Capped).with_max_hint(Duration::from_secs(20));
    assert_eq!(
        waits(&capped, &script),
        [20_000, 50, 400].map(ms),
        "the hint replaces the delay, cut to the cap"
    );
}

#[test]
fn by_kind_walks_both_schedules_side_by_side() {
    let fast = [10, 20, 40, 80].map(ms).into_iter();
    let slow = [1000, 2000, 4000, 8000].map(ms).into_iter();
    let script = [T, Failure::THROTTLED, T, Failure::THROTTLED];
    let by_kind = policy(ByKind::new(fast, slow));
    assert_eq!(by_kind.limits().max_attempts, Some(5));
    assert_eq!(waits(&by_kind, &script), [10, 2000, 40, 8000].map(ms), "retry r takes the r-th of its kind");
}

#[test]
fn composed_schedules_drive_the_policy() {
    let fast_first = policy(exponential(4).with_first_delay(Duration::ZERO));
    assert_eq!(fast_first.limits().max_attempts, Some(5));
    let sleeper = RecordingSleeper::new();
    let err = fast_first
        .retry(|_| Err::<(), _>(Failed(T)))
        .with_timer(&sleeper, &sleeper.clock())
        .run()
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::AttemptsExhausted, 5));
    assert_eq!(waits(&fast_first, &[T; 4]), [0, 100, 200, 400].map(ms));
    // Composed schedules restart too.
    let grpc = policy(exponential(4).with_first_delay(Duration::ZERO)).with_hint_policy(HintPolicy::Pushback);
    assert_eq!(waits(&grpc, &[T, pushback(7), T, T]), [0, 7, 0, 100].map(ms));
}

#[tokio::test(start_paused = true)]
async fn the_async_driver_and_the_tower_layer_decide_the_same() {
    let script = [T, pushback(1000), Failure::THROTTLED, T];
    let schedule =
        || ByKind::new(exponential(6), exponential(6).to_builder().with_base(ms(1000)).build().unwrap());
    let expected = [100, 1000, 1000, 200].map(ms); // restarted: retry 1 again, by kind

    let async_policy = policy(schedule()).with_hint_policy(HintPolicy::Pushback);
    let sleeper = RecordingSleeper::new();
    let clock = sleeper.clock();
    let mut op = scripted(&script);
    let run =
        async_policy.retry(|attempt| std::future::ready(op(attempt))).with_timer(&sleeper, &clock).run();
    assert_eq!(run.await.unwrap().attempts, 5);
    assert_eq!(sleeper.sleeps(), expected);

    let hits = Arc::new(AtomicU32::new(0));
    let service = {
        let hits = Arc::clone(&hits);
        tower::service_fn(move |_: ()| {
            let attempt = hits.fetch_add(1, Ordering::SeqCst) + 1;
            std::future::ready(Ok::<_, std::io::Error>(attempt))
        })
    };
    let classify = ByResult(move |result: Result<&u32, &std::io::Error>| {
        result.ok().and_then(|attempt| script.get(*attempt as usize - 1).copied())
    });
    let sleeper = RecordingSleeper::new();
    let layer = RetryLayer::new(
        RetryPolicy::new(schedule()).classify(classify).with_hint_policy(HintPolicy::Pushback),
    )
    .with_timer(sleeper.clone(), sleeper.clock());
    let mut service = ServiceBuilder::new().layer(layer).service(service);
    assert_eq!(service.ready().await.unwrap().call(()).await.unwrap(), 5);
    assert_eq!(sleeper.sleeps(), expected);
}
