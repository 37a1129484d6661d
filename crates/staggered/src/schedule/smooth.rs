//! The `smooth` strategy's formula (Polly's DecorrelatedJitterBackoffV2),
//! rearranged so that no retry number can overflow it.
//!
//! For retry `r`, `i = r - 1`, `t = i + u` with `u` uniform in `[0, 1)`, and
//! `f(t) = 2^t * tanh(sqrt(4t))`. The delay is `(f(t) - f(t_prev)) / 1.4 * base`.
//! Written as `2^(i-1) * (2^(u+1) tanh(..) - 2^u_prev tanh(..))`, the bracket
//! stays below 4, and only the power of two can grow: past 2^1023 it is
//! infinite, and the caller's cap turns that into `max_delay`.

use crate::math::{exp2, sqrt, tanh};

/// Polly's scaling: the median first delay comes out near `base`.
const SCALE: f64 = 1.0 / 1.4;
/// Polly's `pFactor`, inside the square root.
const P_FACTOR: f64 = 4.0;

/// `f(t) / 2^floor(t)` for `t = i + u`: the part of `f` that stays bounded.
#[inline]
fn shape(i: f64, u: f64) -> f64 {
    exp2(u) * tanh(sqrt(P_FACTOR * (i + u)))
}

/// The smooth delay for `retry` (from 1), in nanoseconds, before the cap.
/// `u` is this retry's draw, `u_prev` the previous retry's (unused at retry 1).
#[inline]
pub(crate) fn delay(retry: u32, u: f64, u_prev: f64, base_ns: f64) -> f64 {
    if base_ns == 0.0 {
        return 0.0;
    }
    let i = f64::from(retry.saturating_sub(1));
    if retry <= 1 {
        return SCALE * base_ns * shape(0.0, u);
    }
    let bracket = 2.0 * shape(i, u) - shape(i - 1.0, u_prev);
    if bracket <= 0.0 {
        return 0.0;
    }
    SCALE * base_ns * bracket * exp2(i - 1.0)
}

/// The largest smooth delay for `retry`, before the cap: `f(i+1) - f(i-1)`.
pub(crate) fn max_delay(retry: u32, base_ns: f64) -> f64 {
    if base_ns == 0.0 {
        return 0.0;
    }
    if retry <= 1 {
        return SCALE * base_ns * shape(0.0, 1.0);
    }
    let i = f64::from(retry - 1);
    SCALE
        * base_ns
        * (4.0 * tanh(sqrt(P_FACTOR * (i + 1.0))) - tanh(sqrt(P_FACTOR * (i - 1.0))))
        * exp2(i - 1.0)
}

/// The last retry whose largest delay fits under `max_ns` (at least 1). From
/// there on `smooth` keeps drawing from that retry's distribution, so its
/// delays stay jittered below the cap instead of all landing on it. Each
/// retry roughly doubles the largest delay, so this takes about
/// `log2(max / base)` steps, at most about a thousand.
pub(crate) fn last_uncapped_retry(base_ns: f64, max_ns: f64) -> u32 {
    if base_ns <= 0.0 {
        return u32::MAX;
    }
    let mut retry = 1;
    while retry < 2048 && max_delay(retry + 1, base_ns) <= max_ns {
        retry += 1;
    }
    retry
}

/// The nominal median of retry `retry`: `base` at retry 1, then
/// `base * 2^(r-2)` (later medians fall near 2, 4, 8 x base).
pub(crate) fn nominal_median(retry: u32, base_ns: f64) -> f64 {
    if retry <= 1 || base_ns == 0.0 {
        base_ns
    } else {
        base_ns * exp2(f64::from(retry - 2))
    }
}

/// The median first delay: `f` is increasing, so it is `f(0.5)`.
pub(crate) fn median_first(base_ns: f64) -> f64 {
    SCALE * base_ns * shape(0.0, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polly(t: f64) -> f64 {
        2f64.powf(t) * (4.0 * t).sqrt().tanh()
    }

    #[test]
    fn matches_the_direct_formula() {
        for retry in 1..40u32 {
            for (u, p) in [(0.1, 0.9), (0.5, 0.5), (0.99, 0.01)] {
                let i = f64::from(retry - 1);
                let prev = if retry == 1 { 0.0 } else { polly(i - 1.0 + p) };
                let direct = (polly(i + u) - prev) / 1.4 * 1000.0;
                let ours = delay(retry, u, p, 1000.0);
                assert!(
                    (ours - direct).abs() <= 1e-9 * direct.abs().max(1.0),
                    "retry {retry}: {ours} vs {direct}"
                );
            }
        }
    }

    #[test]
    fn saturation_is_where_the_largest_delay_still_fits() {
        let base = 1e9;
        for max in [1.5e9, 10e9, 30e9, 1e12, 1e20] {
            let last = last_uncapped_retry(base, max);
            assert!(last == 1 || max_delay(last, base) <= max, "{max}");
            assert!(max_delay(last + 1, base) > max, "{max}");
        }
        assert_eq!(last_uncapped_retry(base, 1e9), 1, "even retry 1 can exceed a cap below 1.38 base");
        assert_eq!(last_uncapped_retry(0.0, 1e9), u32::MAX);
        assert_eq!(nominal_median(1, 1e9), 1e9);
        assert_eq!(nominal_median(4, 1e9), 4e9);
    }

    #[test]
    fn huge_retries_do_not_overflow_into_nan() {
        let d = delay(u32::MAX, 0.5, 0.5, 1e9);
        assert!(d.is_infinite() && d > 0.0);
        assert!(max_delay(u32::MAX, 1e9) > 0.0);
        assert_eq!(delay(u32::MAX, 0.5, 0.5, 0.0), 0.0);
    }
}
