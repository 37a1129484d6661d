//! How reports serialize what is not plain data of their own: durations as
//! the records write them, and the library's schedule as its parameters
//! (read back through its accessors).

use std::time::Duration;

use serde::{Serialize, Serializer};
use staggered::config::format_duration;
use staggered::Backoff;

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

/// A duration as seconds, as the records write it; `None` as `null`.
pub(crate) fn seconds<S: Serializer>(duration: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
    duration.map(|d| d.as_secs_f64()).serialize(serializer)
}

/// Durations as seconds.
pub(crate) fn seconds_each<S: Serializer>(durations: &[Duration], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(durations.iter().map(Duration::as_secs_f64))
}
