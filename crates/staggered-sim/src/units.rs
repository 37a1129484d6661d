//! The model's abstract time units and the library's `Duration`s.
//!
//! The 2015 contention experiment measures time in unitless "time units" (a
//! hop takes about 10). The library's schedules speak `Duration`, so the simulator reads one
//! time unit as one millisecond on the way in and on the way out. The choice
//! is arbitrary and invisible in the results: every delay is in the same unit.

use std::time::Duration;

/// The `Duration` that one time unit stands for when talking to the library.
pub const UNIT: Duration = Duration::from_millis(1);

/// One second in time units (1000: a unit is a millisecond), the width of
/// the 1-second buckets of the scenarios' per-second series.
pub(crate) const SECOND: f64 = 1.0 / UNIT.as_secs_f64();

/// How many 1-second buckets `duration` spans: its seconds rounded up (a
/// last, shorter bucket counts).
pub(crate) fn seconds_up(duration: Duration) -> usize {
    duration.as_secs() as usize + usize::from(duration.subsec_nanos() > 0)
}

/// `units` time units as a `Duration`; `None` if `units` is negative, NaN,
/// infinite or too large for a `Duration`.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::units::{to_duration, to_units};
///
/// assert_eq!(to_duration(2000.0), Some(Duration::from_secs(2)));
/// assert_eq!(to_duration(-1.0), None);
/// assert_eq!(to_units(Duration::from_micros(2500)), 2.5);
/// ```
pub fn to_duration(units: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(units * UNIT.as_secs_f64()).ok()
}

/// `units` time units as a `Duration`, for a time the simulation produced
/// (finite, at least 0): cheap enough to run on every failed attempt. Values
/// below 0 or NaN give zero, values too large saturate, and the rest are
/// truncated to whole nanoseconds.
///
/// ```
/// use std::time::Duration;
/// use staggered_sim::units::elapsed;
///
/// assert_eq!(elapsed(1500.25), Duration::from_nanos(1_500_250_000));
/// assert_eq!(elapsed(-3.0), Duration::ZERO);
/// ```
#[inline]
pub fn elapsed(units: f64) -> Duration {
    const NANOS_PER_UNIT: f64 = UNIT.as_nanos() as f64;
    // `as` saturates and sends NaN to 0; no `round`, which is a libm call here.
    Duration::from_nanos((units * NANOS_PER_UNIT) as u64)
}

/// A `Duration` in time units.
#[inline]
pub fn to_units(duration: Duration) -> f64 {
    // Multiplications only (`as_secs_f64` divides): this runs once per failed write.
    const UNITS_PER_NANO: f64 = SECOND / 1e9;
    duration.as_secs() as f64 * SECOND + f64::from(duration.subsec_nanos()) * UNITS_PER_NANO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_both_ways_and_refuses_what_does_not_fit() {
        for units in [0.0, 0.001, 5.0, 10.0, 2000.0, 1e9] {
            let back = to_units(to_duration(units).unwrap());
            assert!((back - units).abs() <= 1e-9 * units.max(1.0), "{units} -> {back}");
        }
        for bad in [-0.5, f64::NAN, f64::INFINITY, 1e30] {
            assert_eq!(to_duration(bad), None, "{bad}");
        }
    }
}
