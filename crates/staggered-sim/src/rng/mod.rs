//! Randomness for the simulator: reproducible seeds derived from a run's
//! coordinates, and the network's normal distribution.
//!
//! Jitter itself comes from the library's own [`staggered::FastRng`] inside
//! each client's [`staggered::Delays`]; this module only decides how those
//! generators are seeded, and draws the message hops.

mod normal;

pub(crate) use normal::Normal;

/// SplitMix64's finalizer: a bijection on `u64` with full avalanche, so
/// neighbouring inputs (run 7, run 8) give unrelated seeds.
#[inline]
const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A seed that depends only on `keys`, in order: `derive(&[seed, clients,
/// strategy, run])` names one run, whatever thread simulates it and whatever
/// else the experiment contains.
#[inline]
pub(crate) fn derive(keys: &[u64]) -> u64 {
    // The golden-ratio step keeps a zero key from leaving the state unchanged.
    keys.iter().fold(0x243f_6a88_85a3_08d3, |state, &key| {
        mix64(state ^ mix64(key.wrapping_add(0x9e37_79b9_7f4a_7c15)))
    })
}

/// A stable 64-bit id for a name (FNV-1a), so seeds do not depend on the
/// order of an enum or of the strategies asked for.
pub(crate) const fn name_id(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u64).wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_depends_on_every_key_and_its_position() {
        let base = derive(&[1, 100, 7, 0]);
        assert_eq!(base, derive(&[1, 100, 7, 0]));
        for other in [[2, 100, 7, 0], [1, 101, 7, 0], [1, 100, 8, 0], [1, 100, 7, 1], [100, 1, 7, 0]] {
            assert_ne!(base, derive(&other), "{other:?}");
        }
        assert_ne!(derive(&[0]), derive(&[0, 0]));
    }

    #[test]
    fn name_ids_are_distinct_and_stable() {
        assert_eq!(name_id(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(name_id("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(name_id("full"), name_id("equal"));
    }
}
