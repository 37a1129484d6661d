//! The Kolmogorov-Smirnov test, one- and two-sample, with the asymptotic
//! critical values: `c(alpha) * sqrt(1/n)` and `c(alpha) * sqrt((n+m)/(n*m))`,
//! `c(alpha) = sqrt(-ln(alpha/2) / 2)`.
//!
//! Every statistical test in this binary runs on a fixed seed, so it is
//! deterministic; `ALPHA` is the chance that a correct sampler would fail one
//! of them for a seed picked at random.

/// The significance level of every statistical test.
pub const ALPHA: f64 = 0.001;

/// `c(alpha)`: 1.949 at `ALPHA`.
pub fn c(alpha: f64) -> f64 {
    (-(alpha / 2.0).ln() / 2.0).sqrt()
}

/// The largest `D` a sample of `n` from `cdf` passes with, at `ALPHA`.
pub fn critical_one(n: usize) -> f64 {
    c(ALPHA) * (1.0 / n as f64).sqrt()
}

/// The largest `D` two samples of sizes `n` and `m` from one distribution pass with, at `ALPHA`.
pub fn critical_two(n: usize, m: usize) -> f64 {
    let (n, m) = (n as f64, m as f64);
    c(ALPHA) * ((n + m) / (n * m)).sqrt()
}

/// `sup |F_n(y) - F(y)|` for a continuous `cdf`.
pub fn statistic_one(samples: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    sorted.iter().enumerate().fold(0.0, |d, (i, &y)| {
        let f = cdf(y);
        d.max((i + 1) as f64 / n - f).max(f - i as f64 / n)
    })
}

/// `sup |F_n(y) - G_m(y)|`; equal values are stepped over together, so atoms
/// (delays exactly at the cap) are handled.
pub fn statistic_two(a: &[f64], b: &[f64]) -> f64 {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0_f64);
    while i < a.len() && j < b.len() {
        let y = a[i].min(b[j]);
        while i < a.len() && a[i] == y {
            i += 1;
        }
        while j < b.len() && b[j] == y {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    d
}

/// Panics unless `samples` pass the one-sample test against `cdf` at `ALPHA`.
#[track_caller]
pub fn assert_fits(what: &str, samples: &[f64], cdf: impl Fn(f64) -> f64) {
    let d = statistic_one(samples, cdf);
    let critical = critical_one(samples.len());
    assert!(d <= critical, "{what}: KS D = {d:.5} > {critical:.5} (n = {}, alpha = {ALPHA})", samples.len());
}

/// Panics unless `a` and `b` pass the two-sample test at `ALPHA`.
#[track_caller]
pub fn assert_same(what: &str, a: &[f64], b: &[f64]) {
    let d = statistic_two(a, b);
    let critical = critical_two(a.len(), b.len());
    assert!(
        d <= critical,
        "{what}: two-sample KS D = {d:.5} > {critical:.5} (n = {}, m = {}, alpha = {ALPHA})",
        a.len(),
        b.len()
    );
}

/// The CDF of `U[a, b]`.
pub fn uniform(a: f64, b: f64) -> impl Fn(f64) -> f64 {
    assert!(a < b, "U[{a}, {b}] is degenerate");
    move |y| ((y - a) / (b - a)).clamp(0.0, 1.0)
}

#[test]
fn critical_values_match_the_published_table() {
    // Smirnov's table: c(0.05) = 1.358, c(0.01) = 1.628, c(0.001) = 1.949.
    assert!((c(0.05) - 1.358).abs() < 1e-3);
    assert!((c(0.01) - 1.628).abs() < 1e-3);
    assert!((c(0.001) - 1.949).abs() < 1e-3);
}

#[test]
fn statistics_on_known_samples() {
    // Evenly spread points fit U[0, 1] with D = 1/n exactly...
    let even: Vec<f64> = (1..=100).map(|i| f64::from(i) / 100.0).collect();
    assert!((statistic_one(&even, uniform(0.0, 1.0)) - 0.01).abs() < 1e-12);
    // ...and two disjoint samples are as far apart as can be.
    let high: Vec<f64> = even.iter().map(|y| y + 10.0).collect();
    assert_eq!(statistic_two(&even, &high), 1.0);
    assert_eq!(statistic_two(&even, &even), 0.0);
    // Ties: {1, 1, 2} against {1, 2, 2} differ by 1/3 after the shared 1s.
    assert!((statistic_two(&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]) - 1.0 / 3.0).abs() < 1e-12);
}
