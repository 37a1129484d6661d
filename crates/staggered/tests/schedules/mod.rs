//! Tests of the schedules (SPEC sections 1-5).

mod properties;

use std::time::Duration;

/// A duration in exact nanoseconds, for comparisons that must not round.
fn nanos(d: Duration) -> u128 {
    d.as_nanos()
}
