//! `Normal(mean, sd)` by the ziggurat method (Marsaglia and Tsang 2000, in
//! Doornik's 2005 ZIGNOR form, with 128 layers).
//!
//! Why not Box-Muller: in the contention model every call draws four hops,
//! and with Box-Muller (even in Marsaglia's polar form, without `sin`/`cos`)
//! the `ln`, `sqrt` and division made up about half of the simulator's CPU
//! time; the full published grid took 2.1 s of CPU, so more than 1 s on two
//! cores. The ziggurat's fast path is one 64-bit draw, a table lookup and a
//! multiply (taken about 98% of the time), and brought the grid to 1.5 s of
//! CPU. It is exact, not an approximation: the rare slow paths sample the
//! wedges and the tail by rejection.
//!
//! The normal density is split into 128 layers of equal area: a base layer
//! (a rectangle of width `R` plus the tail beyond `R`) and 127 rectangles
//! stacked above it. Pick a layer and a point `u * x[i]` across it: if the
//! point lies inside the part of the rectangle that is under the curve at
//! every height (`|u| < x[i+1] / x[i]`), it is a sample.

use std::sync::OnceLock;

use staggered::Rng;

/// Layers of the ziggurat (Doornik's choice for doubles).
const LAYERS: usize = 128;
/// Where the tail starts, for 128 layers.
const TAIL: f64 = 3.442_619_855_899;
/// The area of each layer, for 128 layers.
const AREA: f64 = 9.912_563_035_262_17e-3;

/// The layer edges `x[i]` (with `x[0]` the base layer's equivalent width and
/// `x[128] = 0`) and the ratios `x[i+1] / x[i]`.
#[derive(Debug)]
struct Tables {
    x: [f64; LAYERS + 1],
    inner: [f64; LAYERS],
}

/// The tables, computed once per process (a few microseconds).
fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let density = |x: f64| (-0.5 * x * x).exp();
        let mut x = [0.0; LAYERS + 1];
        x[0] = AREA / density(TAIL);
        x[1] = TAIL;
        for i in 2..LAYERS {
            // The next edge up: the layer between them has area AREA.
            x[i] = (-2.0 * (AREA / x[i - 1] + density(x[i - 1])).ln()).sqrt();
        }
        let inner = std::array::from_fn(|i| x[i + 1] / x[i]);
        Tables { x, inner }
    })
}

/// A normal distribution.
#[derive(Debug, Clone)]
pub(crate) struct Normal {
    mean: f64,
    sd: f64,
    tables: &'static Tables,
}

impl Normal {
    /// `Normal(mean, sd)`; the caller has checked that both are finite.
    pub(crate) fn new(mean: f64, sd: f64) -> Self {
        Normal { mean, sd, tables: tables() }
    }

    /// One draw.
    #[inline]
    pub(crate) fn sample<G: Rng>(&self, rng: &mut G) -> f64 {
        self.mean + self.sd * self.standard(rng)
    }

    /// One draw from `Normal(0, 1)`.
    #[inline]
    fn standard<G: Rng>(&self, rng: &mut G) -> f64 {
        let t = self.tables;
        loop {
            // The top 53 bits give u in [-1, 1), the low 7 the layer: disjoint bits.
            let bits = rng.next_u64();
            let u = (bits >> 11) as f64 * (2.0 / (1_u64 << 53) as f64) - 1.0;
            let i = (bits & (LAYERS as u64 - 1)) as usize;
            if u.abs() < t.inner[i] {
                return u * t.x[i];
            }
            if i == 0 {
                return tail(rng, u < 0.0);
            }
            // A wedge: accept x with the probability that it is under the curve.
            let x = u * t.x[i];
            let below = (-0.5 * (t.x[i] * t.x[i] - x * x)).exp();
            let above = (-0.5 * (t.x[i + 1] * t.x[i + 1] - x * x)).exp();
            if above + rng.next_f64() * (below - above) < 1.0 {
                return x;
            }
        }
    }
}

/// A draw from the normal tail beyond `TAIL` (Marsaglia 1964), on the given side.
#[cold]
fn tail<G: Rng>(rng: &mut G, negative: bool) -> f64 {
    loop {
        // 1 - U lies in (0, 1], so both logarithms are finite and <= 0.
        let x = (1.0 - rng.next_f64()).ln() / TAIL;
        let y = (1.0 - rng.next_f64()).ln();
        if -2.0 * y >= x * x {
            return if negative { x - TAIL } else { TAIL - x };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::FastRng;

    /// Draws of `Normal(0, 1)`.
    fn draws(n: usize, seed: u64) -> Vec<f64> {
        let normal = Normal::new(0.0, 1.0);
        let mut rng = FastRng::seed(seed);
        (0..n).map(|_| normal.sample(&mut rng)).collect()
    }

    #[test]
    fn tables_cover_the_density() {
        let t = tables();
        // The last rectangle ends at the mode: x[127] is the edge of the top
        // layer, whose area AREA fits under the peak.
        assert!(t.x[LAYERS - 1] > 0.0 && t.x[LAYERS - 1] < 0.3, "{}", t.x[LAYERS - 1]);
        assert_eq!(t.x[LAYERS], 0.0);
        assert!(t.x.windows(2).skip(1).all(|w| w[0] > w[1]), "edges decrease upwards");
        // Top layer: x[127] * (1 - f(x[127])) is its area.
        let top = t.x[LAYERS - 1] * (1.0 - (-0.5 * t.x[LAYERS - 1].powi(2)).exp());
        assert!((top - AREA).abs() < 1e-9, "{top}");
    }

    #[test]
    fn the_cdf_matches_the_normal_table() {
        // One million draws: the standard error of a proportion is at most
        // 5e-4, and 1.5e-5 beyond 3.5; each bound is about five of those.
        const PHI_UPPER: [(f64, f64); 8] = [
            (0.0, 0.5),
            (0.5, 0.308_537_5),
            (1.0, 0.158_655_3),
            (1.5, 0.066_807_2),
            (2.0, 0.022_750_1),
            (2.5, 0.006_209_7),
            (3.0, 0.001_349_9),
            (3.5, 0.000_232_6),
        ];
        let n = 1_000_000;
        let xs = draws(n, 11);
        for (z, upper) in PHI_UPPER {
            for (side, count) in [
                ("above", xs.iter().filter(|x| **x > z).count()),
                ("below", xs.iter().filter(|x| **x < -z).count()),
            ] {
                let p = count as f64 / n as f64;
                let se = (upper * (1.0 - upper) / n as f64).sqrt();
                assert!((p - upper).abs() < 5.0 * se + 1e-6, "P({side} {z}) = {p}, expected {upper}");
            }
        }
        // The tail sampler: draws beyond TAIL exist and follow the density.
        assert!(xs.iter().any(|x| *x > 4.0) && xs.iter().any(|x| *x < -4.0));
    }

    #[test]
    fn moments_match_normal_10_2() {
        // 200k draws: the standard error of the mean is 2/sqrt(2e5) = 0.0045,
        // of the variance about 4*sqrt(2/2e5) = 0.013; the bounds are ~10 of those.
        let normal = Normal::new(10.0, 2.0);
        let mut rng = FastRng::seed(7);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let kurtosis = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n as f64 / (var * var);
        assert!((mean - 10.0).abs() < 0.05, "mean {mean}");
        assert!((var - 4.0).abs() < 0.15, "variance {var}");
        assert!((kurtosis - 3.0).abs() < 0.1, "kurtosis {kurtosis}");
    }

    #[test]
    fn same_seed_same_sequence() {
        let bits = |seed| draws(9, seed).into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(3), bits(3));
        assert_ne!(bits(3), bits(4));
    }
}
