//! How reports serialize what is not plain data of its own: durations as
//! people and the records write them, and the library's schedule and
//! budgets as their parameters (read back through their accessors).

use std::time::Duration;

use serde::{Serialize, Serializer};
use staggered::budget::{RatioBudgetBuilder, TokenBucketBuilder};
use staggered::config::format_duration;
use staggered::Backoff;

/// A duration as the CLI and config files write it: `100ms`, `1m30s`.
pub(crate) fn human<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format_duration(*duration))
}

/// The schedule's parameters, as `stagger schedule` names them.
pub(crate) fn backoff<S: Serializer>(b: &Backoff, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Parameters {
        strategy: &'static str,
        base: String,
        multiplier: f64,
        max_delay: String,
        max_attempts: Option<u32>,
        deadline: Option<String>,
    }
    let parameters = Parameters {
        strategy: b.strategy().name(),
        base: format_duration(b.base()),
        multiplier: b.multiplier(),
        max_delay: format_duration(b.max_delay()),
        max_attempts: b.max_attempts(),
        deadline: b.deadline().map(format_duration),
    };
    parameters.serialize(serializer)
}

/// The token bucket's parameters, from its builder's accessors.
pub(crate) fn token_bucket<S: Serializer>(b: &TokenBucketBuilder, serializer: S) -> Result<S::Ok, S::Error> {
    let entries = [
        ("capacity", b.capacity()),
        ("retry_cost", b.retry_cost()),
        ("timeout_cost", b.timeout_cost()),
        ("throttled_cost", b.throttled_cost()),
        ("success_refund", b.success_refund()),
    ];
    serializer.collect_map(entries)
}

/// The ratio budget's parameters, from its builder's accessors.
pub(crate) fn ratio_budget<S: Serializer>(b: &RatioBudgetBuilder, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = serializer.serialize_map(Some(3))?;
    map.serialize_entry("retry_percent", &b.retry_percent())?;
    map.serialize_entry("min_per_sec", &b.min_per_sec())?;
    map.serialize_entry("ttl", &format_duration(b.ttl()))?;
    map.end()
}

/// A duration as seconds, as the records write it; `None` as `null`.
pub(crate) fn seconds<S: Serializer>(duration: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
    duration.map(|d| d.as_secs_f64()).serialize(serializer)
}

/// Durations as seconds.
pub(crate) fn seconds_each<S: Serializer>(durations: &[Duration], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(durations.iter().map(Duration::as_secs_f64))
}
