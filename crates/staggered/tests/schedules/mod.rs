//! Tests of the schedules: strategies, caps, presets, randomness.

mod distributions;
mod ks;
mod limits;
mod properties;
mod published;

use std::time::Duration;

/// A duration in exact nanoseconds, for comparisons that must not round.
fn nanos(d: Duration) -> u128 {
    d.as_nanos()
}

/// SplitMix64 (Steele, Lea and Flood 2014): a generator unrelated to the
/// library's wyrand, so reference samplers written in the tests share nothing
/// with the code under test.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[a, b)`.
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next_f64()
    }
}
