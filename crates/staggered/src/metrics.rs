//! Retry metrics through the [`metrics`](https://docs.rs/metrics) facade
//! (feature `metrics`): install any exporter (Prometheus, OpenTelemetry,
//! statsd, ...), build the policy
//! [`with_metrics`](crate::RetryPolicy::with_metrics) or
//! [`with_operation_name`](crate::RetryPolicy::with_operation_name), and
//! every driver (blocking, async, tower, reqwest, tonic) counts its
//! operations, retries and give-ups, from the same step that tells the
//! hooks and `tracing`.
//!
//! Names follow the OpenTelemetry naming rules (dotted, lowercase, a
//! namespace per library, units in UCUM); the error's class is the
//! semantic conventions' `error.type`. OpenTelemetry has no convention for
//! retries themselves, so the rest live under `staggered.`. An exporter may
//! rewrite the names (Prometheus: `staggered_retries_total`).
//!
//! | name | instrument | unit | labels | counts |
//! |---|---|---|---|---|
//! | [`staggered.operations`](OPERATIONS) | counter | `{operation}` | `staggered.operation` | operations finished: succeeded or given up |
//! | [`staggered.first_try_successes`](FIRST_TRY_SUCCESSES) | counter | `{operation}` | `staggered.operation` | operations whose attempt 1 succeeded |
//! | [`staggered.retries`](RETRIES) | counter | `{retry}` | `error.type`, `staggered.operation` | retries decided, by the failure's kind (`transient`, `throttled`) |
//! | [`staggered.give_ups`](GIVE_UPS) | counter | `{operation}` | `staggered.stop_reason`, `staggered.operation` | operations given up, by [`StopReason::name`](crate::StopReason::name) |
//! | [`staggered.retry.delay`](RETRY_DELAY) | histogram | `s` | `error.type`, `staggered.operation` | each retry's wait |
//! | [`staggered.budget.level`](BUDGET_LEVEL) | gauge | `{retry}` | `staggered.operation` | the budget's [`level`](crate::BudgetMetrics::level) |
//! | [`staggered.budget.capacity`](BUDGET_CAPACITY) | gauge | `{retry}` | `staggered.operation` | its [`capacity`](crate::BudgetMetrics::capacity); never set for a budget without one |
//! | [`staggered.limiter.enabled`](LIMITER_ENABLED) | gauge | 1 | `staggered.operation` | 1 once a throttle turned the adaptive limiter on, else 0 |
//! | [`staggered.limiter.rate`](LIMITER_RATE) | gauge | `{attempt}/s` | `staggered.operation` | the rate the limiter lets attempts out at; set once it is on |
//! | [`staggered.limiter.measured_rate`](LIMITER_MEASURED_RATE) | gauge | `{response}/s` | `staggered.operation` | the rate of responses it measured |
//! | [`staggered.hedges`](HEDGES) | counter | `{attempt}` | `staggered.operation` | copies a [hedged](crate::Hedging) call sent beyond its first |
//! | [`staggered.hedge_wins`](HEDGE_WINS) | counter | `{operation}` | `staggered.attempt`, `staggered.operation` | hedged calls that succeeded, by the copy that answered first (`1` is the first copy: the hedges were not needed) |
//!
//! `staggered.operation` is there only when the policy was given a name
//! ([`RetryPolicy::with_operation_name`](crate::RetryPolicy::with_operation_name)):
//! name the policies whose numbers you want apart.
//!
//! # When they move
//! - An operation is counted once it ends: `operations` equals
//!   `first_try_successes`, plus the successes after a retry, plus
//!   `give_ups`. A future dropped before it ends is not counted.
//! - A retry counts in `retries` and records its wait in `retry.delay` when
//!   the decision makes it, before the wait.
//! - The budget gauges, and the limiter gauges of a policy
//!   [`with_rate_limiter`](crate::RetryPolicy::with_rate_limiter), are set at
//!   each retry, give-up and success after a retry: the moments the retry
//!   loop reads the budget anyway. A budget
//!   also rises between them (refunds, a ratio budget's window), so call
//!   [`record_budget`] to read it at other times (before a scrape, on a
//!   timer). [`record_limiter`] does the same for an
//!   [`AdaptiveLimiter`](crate::AdaptiveLimiter).
//! - A request that the tower or reqwest integration cannot repeat (no
//!   copy of it) is sent once and is outside the retry loop: it is not
//!   counted.
//!
//! # Cost
//! A policy records only if it asks: the feature alone (which another
//! crate in the build may turn on) costs the other policies one branch. A
//! recording policy's first-try success costs one look-up of the recorder
//! (a thread-local and an atomic load) and two counters, recorder or not:
//! about 10 ns on the project's benchmark machine, next to nothing for a
//! call that does I/O. Nothing allocates. With the feature off, nothing is
//! compiled in.
//!
//! ```
//! use metrics_util::debugging::DebuggingRecorder;
//! use staggered::{Preset, RetryPolicy};
//!
//! let recorder = DebuggingRecorder::new();
//! let snapshotter = recorder.snapshotter();
//! let policy = RetryPolicy::new(Preset::Interactive.backoff()).with_operation_name("fetch-user");
//! # let (sleeper, clock) = (|_| {}, || std::time::Duration::ZERO);
//! metrics::with_local_recorder(&recorder, || {
//!     let done = policy
//!         .retry(|attempt| if attempt < 2 { Err("flaky") } else { Ok(attempt) })
//!         .with_timer(&sleeper, &clock)
//!         .run();
//!     assert_eq!(done.unwrap().attempts, 2);
//! });
//! let retries = snapshotter.snapshot().into_vec().into_iter().filter(|(key, ..)| key.key().name() == "staggered.retries");
//! assert_eq!(retries.count(), 1);
//! ```

use metrics::{Key, Label, Level, Metadata, SharedString, Unit};

use crate::budget::BudgetMetrics;
use crate::limiter::LimiterMetrics;

/// Counter: operations finished, succeeded or given up.
pub const OPERATIONS: &str = "staggered.operations";
/// Counter: operations whose first attempt succeeded.
pub const FIRST_TRY_SUCCESSES: &str = "staggered.first_try_successes";
/// Counter: retries decided, labelled [`ERROR_TYPE`].
pub const RETRIES: &str = "staggered.retries";
/// Counter: operations given up, labelled [`STOP_REASON`].
pub const GIVE_UPS: &str = "staggered.give_ups";
/// Histogram: each retry's wait in seconds, labelled [`ERROR_TYPE`].
pub const RETRY_DELAY: &str = "staggered.retry.delay";
/// Gauge: the budget's level, in retries' worth of its unit.
pub const BUDGET_LEVEL: &str = "staggered.budget.level";
/// Gauge: the most the budget can hold, for a budget with a fixed capacity.
pub const BUDGET_CAPACITY: &str = "staggered.budget.capacity";
/// Gauge: 1 once the adaptive limiter is on, 0 before.
pub const LIMITER_ENABLED: &str = "staggered.limiter.enabled";
/// Gauge: the adaptive limiter's send rate per second, once it is on.
pub const LIMITER_RATE: &str = "staggered.limiter.rate";
/// Gauge: the rate of responses per second the adaptive limiter measured.
pub const LIMITER_MEASURED_RATE: &str = "staggered.limiter.measured_rate";
/// Counter: copies a hedged call sent beyond its first.
pub const HEDGES: &str = "staggered.hedges";
/// Counter: hedged calls that succeeded, labelled [`ATTEMPT`] with the copy
/// that answered first.
pub const HEDGE_WINS: &str = "staggered.hedge_wins";

/// Label: the operation's name, when the policy has one.
pub const OPERATION: &str = "staggered.operation";
/// Label: the failure's [`ErrorKind`](crate::ErrorKind) name (OpenTelemetry's
/// `error.type`, the class of error an operation ended with).
pub const ERROR_TYPE: &str = "error.type";
/// Label: the [`StopReason`](crate::StopReason) name of a give-up.
pub const STOP_REASON: &str = "staggered.stop_reason";
/// Label: which copy of a hedged call won, `1` to `5`.
pub const ATTEMPT: &str = "staggered.attempt";

/// Where the metrics come from, for recorders that filter on it.
pub(crate) const METADATA: Metadata<'static> = Metadata::new("staggered", Level::INFO, Some(module_path!()));

/// Tells the installed recorder the unit and meaning of every metric above
/// (exporters show them as `# HELP` and `# UNIT`). Call it once, after
/// installing the recorder; recording works without it.
pub fn describe() {
    metrics::with_recorder(|recorder| {
        let counters: [(&'static str, &'static str); 6] = [
            (OPERATIONS, "Operations finished under a retry policy: succeeded or given up."),
            (FIRST_TRY_SUCCESSES, "Operations whose first attempt succeeded."),
            (RETRIES, "Retries decided, by the failure's kind (error.type)."),
            (GIVE_UPS, "Operations given up, by why (staggered.stop_reason)."),
            (HEDGES, "Copies a hedged call sent beyond its first."),
            (HEDGE_WINS, "Hedged calls that succeeded, by the copy that answered first (staggered.attempt)."),
        ];
        for (name, help) in counters {
            recorder.describe_counter(name.into(), Some(Unit::Count), help.into());
        }
        recorder.describe_histogram(
            RETRY_DELAY.into(),
            Some(Unit::Seconds),
            "The wait before each retry, in seconds.".into(),
        );
        let gauges: [(&'static str, Option<Unit>, &'static str); 5] = [
            (BUDGET_LEVEL, None, "What is left of the retry budget, in retries' worth of its unit."),
            (BUDGET_CAPACITY, None, "The most the retry budget can hold (budgets with a fixed capacity)."),
            (LIMITER_ENABLED, None, "1 once a throttle has turned the adaptive limiter on."),
            (LIMITER_RATE, Some(Unit::CountPerSecond), "The rate the adaptive limiter sends attempts at."),
            (
                LIMITER_MEASURED_RATE,
                Some(Unit::CountPerSecond),
                "The rate of responses the adaptive limiter measured.",
            ),
        ];
        for (name, unit, help) in gauges {
            recorder.describe_gauge(name.into(), unit, help.into());
        }
    });
}

/// Sets the budget gauges from `budget` (a [`Budget::metrics`](crate::Budget::metrics)
/// snapshot), labelled with `operation` if given: the level, and the
/// capacity if the budget has one.
pub fn record_budget(budget: &BudgetMetrics, operation: Option<&str>) {
    let labels = operation_labels(operation);
    metrics::with_recorder(|recorder| {
        set_budget(recorder, budget, &Key::from_parts(BUDGET_LEVEL, labels.clone()), || {
            Key::from_parts(BUDGET_CAPACITY, labels.clone())
        });
    });
}

/// Sets the adaptive limiter's gauges from `limiter` (an
/// [`AdaptiveLimiter::metrics`](crate::AdaptiveLimiter::metrics) snapshot),
/// labelled with `operation` if given: whether it is on, the rate it
/// measured, and, once it is on, the rate it sends attempts at (before
/// then attempts are not limited, so there is no rate to report).
pub fn record_limiter(limiter: &LimiterMetrics, operation: Option<&str>) {
    let labels = operation_labels(operation);
    let key = |name: &'static str| Key::from_parts(name, labels.clone());
    let keys = [key(LIMITER_ENABLED), key(LIMITER_RATE), key(LIMITER_MEASURED_RATE)];
    metrics::with_recorder(|recorder| set_limiter(recorder, limiter, keys.each_ref()));
}

/// The limiter gauges under `[enabled, rate, measured_rate]`: the rate only
/// once the limiter is on (before then attempts are not limited).
pub(crate) fn set_limiter(recorder: &dyn metrics::Recorder, limiter: &LimiterMetrics, keys: [&Key; 3]) {
    let [enabled, rate, measured_rate] = keys;
    recorder.register_gauge(enabled, &METADATA).set(if limiter.enabled { 1.0 } else { 0.0 });
    recorder.register_gauge(measured_rate, &METADATA).set(limiter.measured_rate);
    if limiter.enabled {
        recorder.register_gauge(rate, &METADATA).set(limiter.fill_rate);
    }
}

/// The budget gauges: the level, and the capacity only if there is one.
pub(crate) fn set_budget(
    recorder: &dyn metrics::Recorder,
    budget: &BudgetMetrics,
    level: &Key,
    capacity: impl FnOnce() -> Key,
) {
    recorder.register_gauge(level, &METADATA).set(budget.level);
    if let Some(most) = budget.capacity {
        recorder.register_gauge(&capacity(), &METADATA).set(most);
    }
}

fn operation_labels(operation: Option<&str>) -> Vec<Label> {
    operation.map(|name| Label::new(OPERATION, SharedString::from(name.to_owned()))).into_iter().collect()
}
