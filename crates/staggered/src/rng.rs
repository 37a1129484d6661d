//! Randomness for jitter: a tiny generator trait so tests and
//! the simulator can inject their own, and a fast default that each schedule
//! owns, so there is no lock and no shared state on the hot path.

/// A source of uniformly distributed 64-bit values.
///
/// Implement it to drive jitter from your own generator (a recorded sequence
/// in a test, a simulator's stream). [`FastRng`] is the default.
pub trait Rng {
    /// The next uniformly distributed 64-bit value.
    fn next_u64(&mut self) -> u64;

    /// A uniform value in `[0, 1)`, from the top 53 bits of [`next_u64`](Rng::next_u64).
    #[inline]
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl<R: Rng + ?Sized> Rng for &mut R {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        (**self).next_u64()
    }
}

/// The default generator: wyrand, a 64-bit state advanced by a Weyl sequence
/// and finished by a 128-bit multiply-fold. One multiply per value, passes
/// BigCrush and PractRand, and is not cryptographic (jitter need not be).
///
/// [`FastRng::from_entropy`] seeds each generator differently from OS entropy,
/// so two clients never share a sequence (a fleet seeded alike would retry
/// in lockstep again, jitter or not);
/// [`FastRng::seed`] makes a sequence reproducible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FastRng {
    state: u64,
}

const WY_INCREMENT: u64 = 0xa076_1d64_78bd_642f;
const WY_XOR: u64 = 0xe703_7ed1_a0b4_28db;

impl FastRng {
    /// A generator that yields the same sequence for the same seed, on every machine.
    pub const fn seed(seed: u64) -> Self {
        FastRng { state: seed }
    }

    /// A generator seeded from OS entropy, distinct from every other one made
    /// in this process. Costs a thread-local read and a few multiplies: the
    /// OS is asked once per thread, through std's `RandomState`.
    #[cfg(feature = "std")]
    #[inline]
    pub fn from_entropy() -> Self {
        FastRng::seed(entropy::next_seed())
    }
}

impl Rng for FastRng {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(WY_INCREMENT);
        let t = u128::from(self.state) * u128::from(self.state ^ WY_XOR);
        (t as u64) ^ ((t >> 64) as u64)
    }
}

#[cfg(feature = "std")]
/// SplitMix64's finalizer: a bijection on u64 that turns a counter into
/// well-spread seeds.
#[inline]
pub(crate) const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(feature = "std")]
mod entropy {
    use std::cell::Cell;
    use std::hash::{BuildHasher, RandomState};

    thread_local! {
        // A Weyl sequence started from one value of std's RandomState (which
        // asks the OS once per thread), mixed for each new generator. Zero
        // means not started yet: a constant initialiser makes the read a
        // plain thread-local load, with no lazy-init check or call on the
        // path every operation's first retry takes.
        static SEEDER: Cell<u64> = const { Cell::new(0) };
    }

    #[inline]
    pub(super) fn next_seed() -> u64 {
        SEEDER.with(|cell| {
            let mut current = cell.get();
            if current == 0 {
                current = start();
            }
            let next = current.wrapping_add(0x9e37_79b9_7f4a_7c15);
            cell.set(next);
            super::mix64(next)
        })
    }

    /// The thread's first value (never zero, which marks "not started").
    fn start() -> u64 {
        RandomState::new().hash_one(0x5eed_u64) | 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_is_reproducible_and_uniform_in_unit_interval() {
        let mut a = FastRng::seed(42);
        let mut b = FastRng::seed(42);
        for _ in 0..1000 {
            let x = a.next_f64();
            assert_eq!(x.to_bits(), b.next_f64().to_bits());
            assert!((0.0..1.0).contains(&x));
        }
    }

    #[test]
    fn different_seeds_differ() {
        let mut a = FastRng::seed(1);
        let mut b = FastRng::seed(2);
        assert_ne!(a.next_u64(), b.next_u64());
    }

    #[cfg(feature = "std")]
    #[test]
    fn entropy_generators_are_distinct() {
        let mut a = FastRng::from_entropy();
        let mut b = FastRng::from_entropy();
        assert_ne!(a, b);
        assert_ne!(a.next_u64(), b.next_u64());
        let other = std::thread::spawn(|| FastRng::from_entropy().next_u64()).join().unwrap();
        assert_ne!(other, a.next_u64());
    }
}
