//! The `metrics` integration, on `metrics-util`'s debugging recorder: for a
//! scripted sequence of operations, every counter and the histogram match
//! the attempts made, on the blocking and the async drivers.

use std::time::Duration;

use metrics::Key;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use metrics_util::MetricKind;
use staggered::classify::Failure;
use staggered::metrics::{
    BUDGET_CAPACITY, BUDGET_LEVEL, ERROR_TYPE, FIRST_TRY_SUCCESSES, GIVE_UPS, OPERATION, OPERATIONS, RETRIES,
    RETRY_DELAY, STOP_REASON,
};
use staggered::test_util::RecordingSleeper;
use staggered::{RatioBudget, RetryPolicy, StopReason, TokenBucket};

use super::exponential;

/// What a recorder held, by kind, name and labels.
pub struct Recorded(Vec<(MetricKind, Key, DebugValue)>);

impl Recorded {
    /// The metrics recorded while `run` ran on this thread.
    pub fn during(run: impl FnOnce()) -> Recorded {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, run);
        Recorded::from(snapshotter.snapshot())
    }

    fn find(&self, kind: MetricKind, name: &str, labels: &[(&str, &str)]) -> Option<&DebugValue> {
        self.0.iter().find_map(|(k, key, value)| {
            let mut have: Vec<(&str, &str)> = key.labels().map(|l| (l.key(), l.value())).collect();
            let mut want = labels.to_vec();
            have.sort_unstable();
            want.sort_unstable();
            (*k == kind && key.name() == name && have == want).then_some(value)
        })
    }

    /// The counter `name` with exactly `labels` (0 if never recorded).
    pub fn counter(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        match self.find(MetricKind::Counter, name, labels) {
            Some(DebugValue::Counter(n)) => *n,
            _ => 0,
        }
    }

    /// The values of the histogram `name` with exactly `labels`.
    pub fn histogram(&self, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
        match self.find(MetricKind::Histogram, name, labels) {
            Some(DebugValue::Histogram(values)) => values.iter().map(|v| v.0).collect(),
            _ => Vec::new(),
        }
    }

    /// The gauge `name` with exactly `labels`, if set.
    pub fn gauge(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        match self.find(MetricKind::Gauge, name, labels) {
            Some(DebugValue::Gauge(value)) => Some(value.0),
            _ => None,
        }
    }

    /// How many series named `name` were recorded, whatever their labels.
    pub fn series(&self, name: &str) -> usize {
        self.0.iter().filter(|(_, key, _)| key.name() == name).count()
    }
}

impl From<metrics_util::debugging::Snapshot> for Recorded {
    fn from(snapshot: metrics_util::debugging::Snapshot) -> Recorded {
        Recorded(
            snapshot
                .into_vec()
                .into_iter()
                .map(|(key, _, _, value)| {
                    let (kind, key) = key.into_parts();
                    (kind, key, value)
                })
                .collect(),
        )
    }
}

/// An error the classifier calls permanent.
const FATAL: &str = "fatal";

fn classify(error: &&str) -> Failure {
    if *error == FATAL {
        Failure::PERMANENT
    } else {
        Failure::TRANSIENT
    }
}

/// The outcome of the four scripted operations: the value, or why it stopped.
type Outcomes = Vec<Result<u32, StopReason>>;

/// Each operation's attempts, in order: `Ok` or the error it fails with.
/// Two transient failures then a success; a permanent failure; three
/// transient failures (attempts exhausted at 3); a first-try success.
const SCRIPT: [&[Result<u32, &str>]; 4] = [
    &[Err("reset"), Err("reset"), Ok(3)],
    &[Err(FATAL)],
    &[Err("reset"), Err("reset"), Err("reset")],
    &[Ok(1)],
];

/// Checks what the script recorded, `labels` on every series.
fn check(
    recorded: &Recorded,
    outcomes: &Outcomes,
    sleeper: &RecordingSleeper,
    bucket: &TokenBucket,
    name: &[(&str, &str)],
) {
    let with = |extra: (&'static str, &'static str)| -> Vec<(&str, &str)> {
        name.iter().copied().chain([extra]).collect()
    };
    assert!(outcomes[0].is_ok() && outcomes[3].is_ok());
    assert_eq!(outcomes[1], Err(StopReason::Permanent));
    assert_eq!(outcomes[2], Err(StopReason::AttemptsExhausted));

    assert_eq!(recorded.counter(OPERATIONS, name), 4, "every operation, however it ended");
    assert_eq!(recorded.counter(FIRST_TRY_SUCCESSES, name), 1);
    assert_eq!(recorded.counter(RETRIES, &with((ERROR_TYPE, "transient"))), 4, "2 + 0 + 2 retries");
    assert_eq!(recorded.series(RETRIES), 1, "no throttled or permanent retries");
    assert_eq!(recorded.counter(GIVE_UPS, &with((STOP_REASON, "permanent"))), 1);
    assert_eq!(recorded.counter(GIVE_UPS, &with((STOP_REASON, "attempts_exhausted"))), 1);
    assert_eq!(recorded.series(GIVE_UPS), 2);

    let delays = recorded.histogram(RETRY_DELAY, &with((ERROR_TYPE, "transient")));
    let slept: Vec<f64> = sleeper.sleeps().iter().map(Duration::as_secs_f64).collect();
    assert_eq!(delays, slept, "one value per retry: its wait, in seconds");
    assert_eq!(delays, [0.1, 0.2, 0.1, 0.2]);

    // Set last at the third operation's give-up; the first-try success
    // after it refunded a token without reading the budget.
    let level = recorded.gauge(BUDGET_LEVEL, name).unwrap();
    assert_eq!(level, 500.0 - 4.0 * 5.0 + 5.0, "four retries of 5; the success after a retry refunds its 5");
    assert_eq!(level + 1.0, bucket.level());
    assert_eq!(recorded.gauge(BUDGET_CAPACITY, name), Some(500.0));
}

fn policy() -> (RetryPolicy<staggered::Backoff>, TokenBucket) {
    (RetryPolicy::new(exponential(3)), TokenBucket::new())
}

fn blocking_script<S: staggered::Schedule, C>(
    policy: &RetryPolicy<S, C>,
    sleeper: &RecordingSleeper,
) -> Outcomes {
    SCRIPT
        .iter()
        .map(|attempts| {
            policy
                .retry(|attempt| attempts[attempt as usize - 1])
                .classify(classify)
                .with_timer(sleeper, &sleeper.clock())
                .run()
                .map(|done| done.value)
                .map_err(|error| error.reason())
        })
        .collect()
}

#[test]
fn the_counters_and_the_histogram_match_the_attempts_of_the_blocking_driver() {
    let (policy, bucket) = policy();
    let policy = policy.with_budget(bucket.clone()).with_operation_name("fetch");
    let sleeper = RecordingSleeper::new();
    let mut outcomes = Vec::new();
    let recorded = Recorded::during(|| outcomes = blocking_script(&policy, &sleeper));
    check(&recorded, &outcomes, &sleeper, &bucket, &[(OPERATION, "fetch")]);
}

#[test]
fn an_unnamed_policy_records_without_the_operation_label() {
    let (policy, bucket) = policy();
    let policy = policy.with_budget(bucket.clone()).with_metrics();
    let sleeper = RecordingSleeper::new();
    let mut outcomes = Vec::new();
    let recorded = Recorded::during(|| outcomes = blocking_script(&policy, &sleeper));
    check(&recorded, &outcomes, &sleeper, &bucket, &[]);
}

#[tokio::test(flavor = "current_thread")]
async fn the_counters_and_the_histogram_match_the_attempts_of_the_async_driver() {
    let (policy, bucket) = policy();
    let policy = policy.with_budget(bucket.clone()).with_operation_name("fetch");
    let sleeper = RecordingSleeper::new();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let mut outcomes = Vec::new();
    {
        // A current-thread runtime polls on this thread: the local recorder hears it.
        let _guard = metrics::set_default_local_recorder(&recorder);
        for attempts in SCRIPT {
            // An async attempt can be cut, so its errors are `String`s.
            let done = policy
                .retry(|attempt| std::future::ready(attempts[attempt as usize - 1].map_err(String::from)))
                .classify(|error: &String| classify(&error.as_str()))
                .with_timer(&sleeper, &sleeper.clock())
                .run()
                .await;
            outcomes.push(done.map(|done| done.value).map_err(|error| error.reason()));
        }
    }
    check(&Recorded::from(snapshotter.snapshot()), &outcomes, &sleeper, &bucket, &[(OPERATION, "fetch")]);
}

#[test]
fn a_budget_without_a_capacity_sets_no_capacity_gauge() {
    let policy = RetryPolicy::new(exponential(2)).with_budget(RatioBudget::new()).with_metrics();
    let sleeper = RecordingSleeper::new();
    let recorded = Recorded::during(|| {
        let _ = policy.retry(|_| Err::<(), _>("reset")).with_timer(&sleeper, &sleeper.clock()).run();
    });
    let level = recorded.gauge(BUDGET_LEVEL, &[]).expect("the level is set at each retry and give-up");
    assert!(level.is_finite() && level > 0.0, "{level}");
    assert_eq!(recorded.series(BUDGET_CAPACITY), 0, "the ratio budget has no fixed capacity");
}

#[test]
fn without_a_budget_no_budget_gauge_is_set() {
    let sleeper = RecordingSleeper::new();
    let recorded = Recorded::during(|| {
        let _ = RetryPolicy::new(exponential(2))
            .with_metrics()
            .retry(|_| Err::<(), _>("reset"))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    assert_eq!(recorded.counter(GIVE_UPS, &[(STOP_REASON, "attempts_exhausted")]), 1);
    assert_eq!(recorded.series(BUDGET_LEVEL), 0);
}

#[test]
fn record_budget_and_record_limiter_set_their_gauges() {
    use staggered::metrics::{
        record_budget, record_limiter, LIMITER_ENABLED, LIMITER_MEASURED_RATE, LIMITER_RATE,
    };
    use staggered::test_util::MockClock;
    use staggered::{AdaptiveLimiter, Budget};

    let bucket = TokenBucket::new();
    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let named = [(OPERATION, "upload")];
    let before = Recorded::during(|| {
        record_budget(&bucket.metrics().unwrap(), Some("upload"));
        record_budget(&RatioBudget::new().metrics().unwrap(), None);
        record_limiter(&limiter.metrics(), Some("upload"));
    });
    assert_eq!(before.gauge(BUDGET_LEVEL, &named), Some(500.0));
    assert_eq!(before.gauge(BUDGET_CAPACITY, &named), Some(500.0));
    assert_eq!(before.gauge(BUDGET_LEVEL, &[]), Some(100.0));
    assert_eq!(before.gauge(BUDGET_CAPACITY, &[]), None, "no fixed capacity, no gauge");
    assert_eq!(before.gauge(LIMITER_ENABLED, &named), Some(0.0));
    assert_eq!(before.gauge(LIMITER_RATE, &named), None, "no rate to report before a throttle");

    limiter.record_response(true);
    let after = Recorded::during(|| record_limiter(&limiter.metrics(), Some("upload")));
    let metrics = limiter.metrics();
    assert_eq!(after.gauge(LIMITER_ENABLED, &named), Some(1.0));
    assert_eq!(after.gauge(LIMITER_RATE, &named), Some(metrics.fill_rate));
    assert_eq!(after.gauge(LIMITER_MEASURED_RATE, &named), Some(metrics.measured_rate));
}

#[test]
fn a_recording_policy_with_a_rate_limiter_sets_the_limiter_gauges() {
    use staggered::metrics::{LIMITER_ENABLED, LIMITER_MEASURED_RATE, LIMITER_RATE};
    use staggered::test_util::MockClock;
    use staggered::AdaptiveLimiter;

    let clock = MockClock::new();
    let limiter = AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap();
    let throttled =
        |error: &&str| if *error == "slow down" { Failure::THROTTLED } else { Failure::TRANSIENT };
    let policy = RetryPolicy::new(exponential(3))
        .classify(throttled)
        .with_rate_limiter(limiter.clone())
        .with_operation_name("upload");
    let sleeper = RecordingSleeper::with_clock(clock.clone());
    let named = [(OPERATION, "upload")];

    // A transient failure then a success: the limiter is still off.
    let off = Recorded::during(|| {
        let done = policy
            .retry(|attempt| if attempt == 1 { Err("reset") } else { Ok(attempt) })
            .with_timer(&sleeper, &clock)
            .run();
        assert_eq!(done.unwrap().attempts, 2);
    });
    assert_eq!(off.gauge(LIMITER_ENABLED, &named), Some(0.0));
    assert_eq!(off.gauge(LIMITER_RATE, &named), None, "no rate to report before a throttle");

    // A throttle turns it on: the retry and the success after it set the rate.
    let on = Recorded::during(|| {
        let done = policy
            .retry(|attempt| if attempt == 1 { Err("slow down") } else { Ok(attempt) })
            .with_timer(&sleeper, &clock)
            .run();
        assert_eq!(done.unwrap().attempts, 2);
    });
    let metrics = limiter.metrics();
    assert!(metrics.enabled, "{metrics:?}");
    assert_eq!(on.gauge(LIMITER_ENABLED, &named), Some(1.0));
    assert_eq!(on.gauge(LIMITER_RATE, &named), Some(metrics.fill_rate));
    assert_eq!(on.gauge(LIMITER_MEASURED_RATE, &named), Some(metrics.measured_rate));

    // A policy that does not record leaves the gauges alone.
    let quiet = RetryPolicy::new(exponential(3)).classify(throttled).with_rate_limiter(limiter);
    let none = Recorded::during(|| {
        let _ = quiet.retry(|_| Err::<(), _>("slow down")).with_timer(&sleeper, &clock).run();
    });
    assert_eq!(none.series(LIMITER_ENABLED), 0);
}

#[test]
fn describe_gives_every_metric_a_unit_or_a_description() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        staggered::metrics::describe();
        let sleeper = RecordingSleeper::new();
        let _ = RetryPolicy::new(exponential(2))
            .with_metrics()
            .retry(|_| Err::<(), _>("reset"))
            .with_timer(&sleeper, &sleeper.clock())
            .run();
    });
    let described = snapshotter.snapshot().into_vec();
    let delay = described.iter().find(|(key, ..)| key.key().name() == RETRY_DELAY).unwrap();
    assert_eq!(delay.1, Some(metrics::Unit::Seconds));
    assert!(described.iter().all(|(_, _, help, _)| help.is_some()), "{described:?}");
}

#[test]
fn a_policy_that_does_not_ask_records_nothing() {
    let policy = RetryPolicy::new(exponential(3));
    let sleeper = RecordingSleeper::new();
    let recorded = Recorded::during(|| {
        let _ = policy
            .retry(|attempt| if attempt < 2 { Err("reset") } else { Ok(()) })
            .with_timer(&sleeper, &sleeper.clock())
            .run();
        let _ = policy.retry(|_| Ok::<_, &str>(())).with_timer(&sleeper, &sleeper.clock()).run();
    });
    assert!(recorded.0.is_empty(), "the feature alone records nothing");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_hedged_call_counts_its_hedges_and_which_copy_won() {
    use staggered::metrics::{ATTEMPT, HEDGES, HEDGE_WINS};
    let policy = RetryPolicy::new(exponential(3)).with_operation_name("read");
    let hedging = staggered::Hedging::after(Duration::from_millis(10)).with_max_attempts(3).unwrap();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    {
        let _guard = metrics::set_default_local_recorder(&recorder);
        // Copy 1 stalls and copy 2 wins; then copy 1 answers before any hedge.
        for stall in [1_000, 5] {
            let done = policy
                .retry(|copy| async move {
                    let latency = if copy == 1 { stall } else { 4 };
                    tokio::time::sleep(Duration::from_millis(latency)).await;
                    Ok::<_, String>(copy)
                })
                .hedge(hedging.clone())
                .call()
                .await;
            assert!(done.is_ok());
        }
    }
    let recorded = Recorded::from(snapshotter.snapshot());
    let read = [(OPERATION, "read")];
    assert_eq!(recorded.counter(HEDGES, &read), 1);
    assert_eq!(recorded.counter(HEDGE_WINS, &[(ATTEMPT, "2"), (OPERATION, "read")]), 1);
    assert_eq!(recorded.counter(HEDGE_WINS, &[(ATTEMPT, "1"), (OPERATION, "read")]), 1);
    assert_eq!(recorded.counter(OPERATIONS, &read), 2);
}
