//! One jittered exponential schedule, configured in staggered and in each
//! peer crate as closely as its API allows, behind one adapter trait.
//!
//! Every adapter computes: base 100 ms, multiplier 2, max delay 10 s, 10
//! delays per sequence. The measured unit is "produce one delay": a batch is
//! one sequence, that is [`Contender::start`] (the crate's own way to begin
//! the delays of a new operation from a configuration built once, outside the
//! timed loop: a reset if it has one, else a fresh iterator) followed by
//! [`DELAYS_PER_SEQUENCE`] calls of [`Contender::next_delay`], each output
//! passed through [`black_box`]. Every crate is driven the same way; what
//! `start` costs is charged to the delays and stated in [`Info::per_sequence`].
//!
//! Peers offer different jitter shapes, so staggered is run once per shape
//! with the matching [`Strategy`](staggered::Strategy), and each ratio
//! compares like with like ([`Info::shape`]).

mod ours;
mod peers;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

pub use ours::Staggered;
pub use peers::{Backoff, Backon, ExponentialBackoff, RetryPolicies, TokioRetry};

use crate::harness::Workload;

/// The delay unit: the first interval `x(1)`.
pub const BASE: Duration = Duration::from_millis(100);
/// Growth of the interval per retry.
pub const MULTIPLIER: u32 = 2;
/// The cap on the interval (and, for crates that clamp, on the delay).
pub const MAX_DELAY: Duration = Duration::from_secs(10);
/// Delays in one sequence; the iterator is re-created or reset after these.
pub const DELAYS_PER_SEQUENCE: usize = 10;

/// The families of jitter shape that staggered and the peers share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `U[0, x]`: staggered `full`, tokio-retry's `jitter`, retry-policies `Jitter::Full`.
    Full,
    /// `x + U[0, x)`: staggered `additive` with f = 1, backon's jitter.
    Additive,
    /// `U[x/2, 3x/2]`: staggered `proportional` with f = 0.5, backoff's
    /// randomization factor 0.5, and (roughly) exponential-backoff's jitter 0.5.
    Proportional,
}

impl Shape {
    /// The largest delay as a multiple of the interval `x(r)`.
    pub const fn upper_factor(self) -> f64 {
        match self {
            Shape::Full => 1.0,
            Shape::Additive => 2.0,
            Shape::Proportional => 1.5,
        }
    }
}

/// Whose schedule a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// staggered itself: the baseline of its jitter shape.
    Staggered,
    /// A peer crate, compared with staggered's row of the same shape.
    Peer,
}

/// What a row of the table says about one adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// The crate, as printed.
    pub name: &'static str,
    /// The command-line name of the row, for `--once`.
    pub slug: &'static str,
    /// Whose schedule this is.
    pub role: Role,
    /// The shape family, to pair a peer with its staggered equivalent.
    pub shape: Shape,
    /// The exact jitter formula this configuration produces.
    pub jitter: &'static str,
    /// How a sequence starts: what [`Contender::start`] does.
    pub per_sequence: &'static str,
    /// Whether delays are clamped at [`MAX_DELAY`] after jitter; if not, the
    /// cap applies to the interval and a delay can exceed it.
    pub clamped: bool,
}

impl Info {
    /// The largest delay retry `retry` (from 1) can produce in this
    /// configuration: `upper_factor * x(r)`, clamped if the crate clamps.
    pub fn max_delay_of(&self, retry: u32) -> Duration {
        let max = interval(retry).mul_f64(self.shape.upper_factor());
        if self.clamped {
            max.min(MAX_DELAY)
        } else {
            max
        }
    }

    /// The largest delay the configuration can produce at any retry.
    pub fn ceiling(&self) -> Duration {
        self.max_delay_of(u32::MAX)
    }
}

/// The interval `x(r) = min(MAX_DELAY, BASE * MULTIPLIER^(r-1))` for retry `r` (from 1).
pub fn interval(retry: u32) -> Duration {
    let growth = MULTIPLIER.checked_pow(retry.saturating_sub(1)).unwrap_or(u32::MAX);
    BASE.saturating_mul(growth).min(MAX_DELAY)
}

/// One crate's schedule, configured once, producing sequences of delays.
pub trait Contender {
    /// What the crate hands out for one retry (an `Option<Duration>` for
    /// iterators, a decision with a wake-up time for retry-policies).
    type Output;

    /// The row's description.
    fn info(&self) -> Info;

    /// Begins the delays of a new operation.
    fn start(&mut self);

    /// The next delay of the current sequence.
    fn next_delay(&mut self) -> Self::Output;

    /// The delay in `output`, for checks outside the timed loop; `called_at`
    /// is the time just before the [`next_delay`](Contender::next_delay) call,
    /// for crates that answer with a wake-up time instead of a delay.
    fn delay(output: &Self::Output, called_at: SystemTime) -> Option<Duration>;
}

/// Sequences of [`DELAYS_PER_SEQUENCE`] delays from one [`Contender`]: the
/// workload that is timed.
#[derive(Debug)]
pub struct Sequences<C>(pub C);

impl<C: Contender> Workload for Sequences<C> {
    fn units_per_batch(&self) -> u64 {
        DELAYS_PER_SEQUENCE as u64
    }

    fn run(&mut self, batches: u64) {
        // Opaque to the optimiser: the configuration cannot be constant-folded.
        let contender = black_box(&mut self.0);
        for _ in 0..batches {
            contender.start();
            for _ in 0..DELAYS_PER_SEQUENCE {
                black_box(contender.next_delay());
            }
        }
    }
}

/// A row of the comparison, behind a trait object so the lineup is one list.
pub trait Runner: Workload {
    /// The row's description.
    fn info(&self) -> Info;
    /// One fresh sequence of [`DELAYS_PER_SEQUENCE`] delays, for checks.
    fn sample(&mut self) -> Vec<Option<Duration>>;
}

impl<C: Contender> Runner for Sequences<C> {
    fn info(&self) -> Info {
        self.0.info()
    }

    fn sample(&mut self) -> Vec<Option<Duration>> {
        self.0.start();
        (0..DELAYS_PER_SEQUENCE)
            .map(|_| {
                let called_at = SystemTime::now();
                C::delay(&self.0.next_delay(), called_at)
            })
            .collect()
    }
}

/// The staggered row with the same shape as `info` (itself for a staggered row).
pub fn equivalent<'a>(info: &Info, infos: &'a [Info]) -> Option<&'a Info> {
    infos.iter().find(|o| o.role == Role::Staggered && o.shape == info.shape)
}

/// The rows of the comparison: staggered's first (one per shape), then the peers.
pub fn lineup() -> Vec<Box<dyn Runner>> {
    vec![
        Box::new(Sequences(Staggered::new(Shape::Full))),
        Box::new(Sequences(Staggered::new(Shape::Additive))),
        Box::new(Sequences(Staggered::new(Shape::Proportional))),
        Box::new(Sequences(Backon::new())),
        Box::new(Sequences(Backoff::new())),
        Box::new(Sequences(TokioRetry::new())),
        Box::new(Sequences(ExponentialBackoff::new())),
        Box::new(Sequences(RetryPolicies::new())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_doubles_then_caps() {
        assert_eq!(interval(1), BASE);
        assert_eq!(interval(4), Duration::from_millis(800));
        assert_eq!(interval(8), MAX_DELAY);
        assert_eq!(interval(u32::MAX), MAX_DELAY);
    }

    #[test]
    fn slugs_are_unique_and_each_peer_has_a_staggered_equivalent() {
        let infos: Vec<Info> = lineup().iter().map(|r| r.info()).collect();
        for (i, a) in infos.iter().enumerate() {
            assert!(infos[i + 1..].iter().all(|b| b.slug != a.slug), "duplicate {}", a.slug);
            assert!(equivalent(a, &infos).is_some(), "{} has no equivalent", a.name);
        }
    }
}
