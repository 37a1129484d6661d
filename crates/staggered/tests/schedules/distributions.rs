//! Each jittered strategy draws from the distribution its formula
//! documents ([`Strategy`]'s docs and the guide's strategies chapter), checked with Kolmogorov-Smirnov tests at significance `ALPHA`
//! on `N` independent schedules, from a fixed seed.
//!
//! Where the distribution has a closed form (full, equal, proportional,
//! additive, decorrelated at retries 1 and 2) the samples are tested against
//! its CDF. Where it does not (decorrelated's chain further on, smooth), they
//! are tested against a second sample drawn by a direct transcription of the
//! published formula, written here and fed by a different generator (SplitMix64).
//!
//! The one-sample tests of full, equal, proportional and additive share their
//! seed, hence their uniform draws (and their D): what each one checks is the
//! map from draw to delay.

use std::time::Duration;

use staggered::{Backoff, CapMode, FastRng, Rng, Strategy};

use super::ks::{self, assert_fits, assert_same, uniform};
use super::SplitMix64;

/// Schedules per sample: the one-sample critical value is then 0.0138 and the
/// two-sample one 0.0195.
const N: usize = 20_000;
/// The seed every sample here derives from.
const SEED: u64 = 0x5eed_0002_0004;

const BASE: f64 = 1.0;
/// Small enough that retry 6 (`2^5 = 32 s`) is capped.
const MAX_DELAY: f64 = 20.0;

fn backoff(strategy: Strategy) -> staggered::BackoffBuilder {
    Backoff::builder(strategy)
        .with_base(Duration::from_secs_f64(BASE))
        .with_multiplier(2.0)
        .with_max_delay(Duration::from_secs_f64(MAX_DELAY))
        .without_max_attempts()
}

/// For each of `N` schedules, each seeded from one master generator, the
/// delays at `retries` (from 1), in seconds: `samples[k]` holds retry `retries[k]`.
fn sample(backoff: &Backoff, retries: &[u32], seed: u64) -> Vec<Vec<f64>> {
    let last = *retries.iter().max().unwrap() as usize;
    let mut seeds = FastRng::seed(seed);
    let mut samples = vec![Vec::with_capacity(N); retries.len()];
    for _ in 0..N {
        let delays: Vec<Duration> = backoff.delays_seeded(seeds.next_u64()).take(last).collect();
        for (sample, &retry) in samples.iter_mut().zip(retries) {
            sample.push(delays[retry as usize - 1].as_secs_f64());
        }
    }
    samples
}

/// `x(r) = min(cap, base * 2^(r-1))`, in seconds.
fn interval(retry: u32, cap: f64) -> f64 {
    (BASE * 2f64.powi(retry as i32 - 1)).min(cap)
}

const RETRIES: [u32; 3] = [1, 3, 6];

#[test]
fn full_is_uniform_from_zero_to_the_interval() {
    let samples = sample(&backoff(Strategy::Full).build().unwrap(), &RETRIES, SEED);
    for (retry, s) in RETRIES.into_iter().zip(&samples) {
        assert_fits(&format!("full retry {retry}"), s, uniform(0.0, interval(retry, MAX_DELAY)));
    }
}

#[test]
fn equal_is_uniform_over_the_upper_half_of_the_interval() {
    let samples = sample(&backoff(Strategy::Equal).build().unwrap(), &RETRIES, SEED);
    for (retry, s) in RETRIES.into_iter().zip(&samples) {
        let x = interval(retry, MAX_DELAY);
        assert_fits(&format!("equal retry {retry}"), s, uniform(x / 2.0, x));
    }
}

/// Under the hard cap the interval shrinks to `max_delay / (1 + f)`, so the
/// capped retry is still uniform, with no atom at `max_delay`; in
/// `CapMode::Interval` the interval stops at `max_delay` itself.
fn interval_under(cap_mode: CapMode, retry: u32, f: f64) -> f64 {
    match cap_mode {
        CapMode::Interval => interval(retry, MAX_DELAY),
        _ => interval(retry, MAX_DELAY / (1.0 + f)),
    }
}

#[test]
fn proportional_is_uniform_around_the_interval() {
    for f in [0.5, 0.2, 1.0] {
        for cap_mode in [CapMode::Delay, CapMode::Interval] {
            let b = backoff(Strategy::Proportional).with_factor(f).with_cap_mode(cap_mode).build().unwrap();
            for (retry, s) in RETRIES.into_iter().zip(&sample(&b, &RETRIES, SEED)) {
                let x = interval_under(cap_mode, retry, f);
                let what = format!("proportional f={f} {cap_mode} retry {retry}");
                assert_fits(&what, s, uniform(x * (1.0 - f), x * (1.0 + f)));
            }
        }
    }
}

#[test]
fn additive_is_uniform_above_the_interval() {
    for f in [0.3, 0.5, 1.0] {
        for cap_mode in [CapMode::Delay, CapMode::Interval] {
            let b = backoff(Strategy::Additive).with_factor(f).with_cap_mode(cap_mode).build().unwrap();
            for (retry, s) in RETRIES.into_iter().zip(&sample(&b, &RETRIES, SEED)) {
                let x = interval_under(cap_mode, retry, f);
                let what = format!("additive f={f} {cap_mode} retry {retry}");
                assert_fits(&what, s, uniform(x, x * (1.0 + f)));
            }
        }
    }
}

/// The CDF of decorrelated's retry 2 before any clamp, `d2 ~ U[b, 3 d1]` with
/// `d1 ~ U[b, 3b]`: `F(y) = 1/(2b) * integral over d1 of min(1, (y-b)/(3 d1 - b))`,
/// which integrates to the closed form below (with `s0 = clamp(y/3, b, 3b)`).
fn decorrelated_retry_2_cdf(b: f64) -> impl Fn(f64) -> f64 {
    move |y| {
        if y <= b {
            return 0.0;
        }
        if y >= 9.0 * b {
            return 1.0;
        }
        let s0 = (y / 3.0).clamp(b, 3.0 * b);
        (s0 - b + (y - b) / 3.0 * (8.0 * b / (3.0 * s0 - b)).ln()) / (2.0 * b)
    }
}

#[test]
fn decorrelated_retry_2_closed_form_matches_numerical_integration() {
    let (b, steps) = (BASE, 100_000);
    let cdf = decorrelated_retry_2_cdf(b);
    for y in [1.1, 2.0, 2.9, 3.0, 3.5, 5.0, 8.0, 8.9] {
        let h = 2.0 * b / f64::from(steps);
        let integral: f64 = (0..steps)
            .map(|k| b + (f64::from(k) + 0.5) * h)
            .map(|d1| ((y - b) / (3.0 * d1 - b)).clamp(0.0, 1.0) * h)
            .sum();
        let numerical = integral / (2.0 * b);
        assert!((cdf(y) - numerical).abs() < 1e-6, "y = {y}: {} vs {numerical}", cdf(y));
    }
}

#[test]
fn decorrelated_first_two_retries_follow_their_cdfs() {
    // max_delay far above 9 * base, so nothing is clamped yet.
    let b = backoff(Strategy::Decorrelated).with_max_delay(Duration::from_secs(1000)).build().unwrap();
    let samples = sample(&b, &[1, 2], SEED);
    assert_fits("decorrelated retry 1", &samples[0], uniform(BASE, 3.0 * BASE));
    assert_fits("decorrelated retry 2", &samples[1], decorrelated_retry_2_cdf(BASE));
}

/// The AWS Architecture Blog's decorrelated jitter (2015), transcribed: `d(r) = min(max_delay, U[base, 3*d(r-1)])`, `d(0) = base`.
fn reference_decorrelated(retries: &[u32], max_delay: f64, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = SplitMix64(seed);
    let last = *retries.iter().max().unwrap();
    let mut samples = vec![Vec::with_capacity(N); retries.len()];
    for _ in 0..N {
        let mut d = BASE;
        for r in 1..=last {
            d = rng.uniform(BASE, 3.0 * d).min(max_delay);
            if let Some(k) = retries.iter().position(|&x| x == r) {
                samples[k].push(d);
            }
        }
    }
    samples
}

#[test]
fn decorrelated_chain_matches_the_spec_formula() {
    // Retry 20 is deep in the saturated regime, where about 41% of the draws
    // sit exactly on max_delay; the two-sample test steps over such ties together.
    let retries = [2, 4, 8, 20];
    let ours = sample(&backoff(Strategy::Decorrelated).build().unwrap(), &retries, SEED);
    let reference = reference_decorrelated(&retries, MAX_DELAY, SEED);
    for ((retry, a), b) in retries.into_iter().zip(&ours).zip(&reference) {
        assert_same(&format!("decorrelated retry {retry}"), a, b);
    }
}

/// Polly.Contrib.WaitAndRetry's DecorrelatedJitterBackoffV2, capped:
/// `t = i + U[0,1)`, `next = 2^t * tanh(sqrt(4t))`, delay `(next - prev) / 1.4 * base`.
fn reference_smooth(retries: &[u32], max_delay: f64, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = SplitMix64(seed);
    let last = *retries.iter().max().unwrap();
    let mut samples = vec![Vec::with_capacity(N); retries.len()];
    for _ in 0..N {
        let mut prev = 0.0;
        for r in 1..=last {
            let t = f64::from(r - 1) + rng.next_f64();
            let next = t.exp2() * (4.0 * t).sqrt().tanh();
            let delay = ((next - prev) / 1.4 * BASE).min(max_delay);
            prev = next;
            if let Some(k) = retries.iter().position(|&x| x == r) {
                samples[k].push(delay);
            }
        }
    }
    samples
}

#[test]
fn smooth_matches_pollys_formula() {
    // Under the 20 s cap, retry 5 is the last whose largest delay (17.1 s)
    // fits; Polly's formula holds exactly up to there.
    let retries = [1, 2, 3, 5];
    let ours = sample(&backoff(Strategy::Smooth).build().unwrap(), &retries, SEED);
    let reference = reference_smooth(&retries, MAX_DELAY, SEED);
    for ((retry, a), b) in retries.into_iter().zip(&ours).zip(&reference) {
        assert_same(&format!("smooth retry {retry}"), a, b);
    }
}

#[test]
fn saturated_smooth_keeps_its_jitter_instead_of_clamping() {
    // Past retry 5, Polly clamps to the cap (at retry 8 every delay is 20 s);
    // ours keeps drawing from retry 5's distribution, all of it below the cap.
    let ours = sample(&backoff(Strategy::Smooth).build().unwrap(), &[6, 8, 30], SEED);
    let reference = reference_smooth(&[5], MAX_DELAY, SEED);
    for (retry, a) in [6, 8, 30].into_iter().zip(&ours) {
        assert_same(&format!("saturated smooth retry {retry} vs Polly's retry 5"), a, &reference[0]);
        let at_cap = a.iter().filter(|d| **d >= MAX_DELAY).count();
        assert_eq!(at_cap, 0, "retry {retry}: {at_cap} delays on the cap");
    }
    let polly_8 = reference_smooth(&[8], MAX_DELAY, SEED);
    let polly_at_cap = polly_8[0].iter().filter(|d| **d >= MAX_DELAY).count();
    // The clamp we avoid: 95% of Polly's retry-8 delays sit exactly on the cap.
    assert!(polly_at_cap * 10 > polly_8[0].len() * 9, "Polly's retry 8: {polly_at_cap} on the cap");
}

fn median(sample: &[f64]) -> f64 {
    let mut sorted = sample.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

#[test]
fn smooth_medians_are_anchored_on_base_and_then_double() {
    // The documented claim: base is about the median first delay, later medians fall near 2, 4, 8 x base.
    // Polly's first median is f(0.5) / 1.4 = 0.897 base, its second 1.14 base.
    let b = backoff(Strategy::Smooth).with_max_delay(Duration::from_secs(1000)).build().unwrap();
    let retries = [1, 3, 4, 5];
    let samples = sample(&b, &retries, SEED);
    let first = b.bounds().next().unwrap().median.unwrap().as_secs_f64();
    assert!((first - 0.897).abs() < 1e-3, "bounds median of retry 1: {first}");
    let expected = [first, 2.0, 4.0, 8.0];
    for ((retry, s), want) in retries.into_iter().zip(&samples).zip(expected) {
        let got = median(s);
        assert!((got / want - 1.0).abs() < 0.03, "smooth retry {retry}: median {got} s, want about {want} s");
    }
}

/// Fraction of decorrelated delays exactly at max_delay over retries 101..=300
/// of 1000 chains (200,000 delays), long after the chain first reaches the cap.
fn saturated_fraction(max_over_base: u64) -> f64 {
    let b = Backoff::builder(Strategy::Decorrelated)
        .with_base(Duration::from_secs(1))
        .with_max_delay(Duration::from_secs(max_over_base))
        .without_max_attempts()
        .build()
        .unwrap();
    let mut seeds = FastRng::seed(SEED);
    let (mut at_cap, mut total) = (0u32, 0u32);
    for _ in 0..1000 {
        for delay in b.delays_seeded(seeds.next_u64()).skip(100).take(200) {
            total += 1;
            at_cap += u32::from(delay == b.max_delay());
        }
    }
    f64::from(at_cap) / f64::from(total)
}

#[test]
fn decorrelated_loses_its_jitter_on_the_cap_once_saturated() {
    // The documented "about a quarter" holds at max_delay = 1000 x base, where this
    // measures 0.25 (the same as the reference chain); the fraction falls
    // slowly as the ratio grows and rises as it shrinks: 0.38 at 30 x base,
    // the ratio of the `standard` preset's values.
    let quarter = saturated_fraction(1000);
    assert!((0.23..=0.27).contains(&quarter), "at 1000 x base: {quarter}");
    let standard = saturated_fraction(30);
    assert!((0.35..=0.41).contains(&standard), "at 30 x base: {standard}");
}

#[test]
fn the_ks_test_rejects_a_wrong_distribution() {
    // If these passed, the tests above could not fail.
    let full = sample(&backoff(Strategy::Full).build().unwrap(), &[3], SEED).remove(0);
    let equal = sample(&backoff(Strategy::Equal).build().unwrap(), &[3], SEED + 1).remove(0);
    let x = interval(3, MAX_DELAY);
    let d = ks::statistic_one(&full, uniform(x / 2.0, x));
    assert!(d > 10.0 * ks::critical_one(N), "full vs equal's CDF: D = {d}");
    let d = ks::statistic_two(&full, &equal);
    assert!(d > 10.0 * ks::critical_two(N, N), "full vs equal: D = {d}");

    // A near miss: proportional f=0.5 against f=0.4's CDF (largest gap 0.1).
    let b = backoff(Strategy::Proportional).with_factor(0.5).build().unwrap();
    let proportional = sample(&b, &[1], SEED).remove(0);
    let d = ks::statistic_one(&proportional, uniform(0.6, 1.4));
    assert!(d > ks::critical_one(N), "f=0.5 vs f=0.4: D = {d}");

    // And a chain that forgets its previous delay, U[base, 3 base] every time.
    let ours = sample(&backoff(Strategy::Decorrelated).build().unwrap(), &[4], SEED).remove(0);
    let mut rng = SplitMix64(SEED);
    let forgetful: Vec<f64> = (0..N).map(|_| rng.uniform(BASE, 3.0 * BASE)).collect();
    let d = ks::statistic_two(&ours, &forgetful);
    assert!(d > ks::critical_two(N, N), "decorrelated vs unchained: D = {d}");
}

#[test]
fn unseeded_schedules_differ_and_seeded_ones_repeat() {
    let b = Backoff::builder(Strategy::Full).with_max_attempts(11).build().unwrap();
    let first: Vec<Duration> = b.delays().collect();
    let second: Vec<Duration> = b.delays().collect();
    assert_eq!(first.len(), 10);
    assert_ne!(first, second, "two unseeded schedules drew the same ten delays");
    // No two of many unseeded schedules start alike (a shared seed would).
    let mut starts: Vec<Vec<Duration>> = (0..1000).map(|_| b.delays().take(3).collect()).collect();
    starts.sort();
    starts.dedup();
    assert_eq!(starts.len(), 1000);

    let seeded = b.to_builder().with_seed(42).build().unwrap();
    let once: Vec<Duration> = seeded.delays().collect();
    assert_eq!(once, seeded.delays().collect::<Vec<_>>());
    assert_eq!(once, b.delays_seeded(42).collect::<Vec<_>>());
    assert_ne!(once, b.delays_seeded(43).collect::<Vec<_>>());
}
