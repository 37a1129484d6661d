//! Retry metrics through the `metrics` facade: a few operations under a
//! named policy with a budget, recorded by `metrics-util`'s debugging
//! recorder and printed as an exporter would see them. In a service,
//! install your exporter (Prometheus, OpenTelemetry, statsd) instead.
//!
//! ```sh
//! cargo run -p staggered --example metrics --features metrics
//! ```

use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use staggered::{Preset, RetryPolicy, TokenBucket};

fn main() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder.install().expect("no other recorder is installed");
    staggered::metrics::describe();

    let budget = TokenBucket::new();
    let policy = RetryPolicy::new(Preset::Interactive.backoff()) // 3 attempts
        .with_budget(budget.clone())
        .with_operation_name("fetch-profile");
    // Waits are skipped here (a no-op sleeper and a frozen clock) so the
    // example runs at once; `call` sleeps for real.
    let (sleeper, clock) = (|_: Duration| {}, || Duration::ZERO);

    // Two transient failures then a success; a first-try success; a
    // failure on every attempt.
    let scripts: [&[Result<&str, &str>]; 3] =
        [&[Err("reset"), Err("reset"), Ok("profile")], &[Ok("profile")], &[Err("reset"); 3]];
    for script in scripts {
        let outcome = policy.retry(|attempt| script[attempt as usize - 1]).with_timer(&sleeper, &clock).run();
        match outcome {
            Ok(done) => println!("ok after {} attempt(s)", done.attempts),
            Err(e) => println!("gave up: {e}"),
        }
    }

    println!();
    let mut rows: Vec<(String, String)> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _unit, _help, value)| {
            let key = key.key();
            let labels: Vec<String> = key.labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
            let value = match value {
                DebugValue::Counter(n) => n.to_string(),
                DebugValue::Gauge(v) => v.to_string(),
                DebugValue::Histogram(values) => {
                    let seconds: Vec<String> = values.iter().map(|v| format!("{:.3}", v.0)).collect();
                    format!("[{}] s", seconds.join(", "))
                }
            };
            (format!("{}{{{}}}", key.name(), labels.join(",")), value)
        })
        .collect();
    rows.sort();
    for (series, value) in rows {
        println!("{series:<95} {value}");
    }
}
