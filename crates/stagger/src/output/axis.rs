//! The axes of a chart: the range each one spans, fitted to the data, and
//! the labels of its ticks, with as many decimals as the span needs (on a
//! log scale, as each value needs: `0.05`, `0.1`, `20`).

use std::ops::Range;

use staggered_sim::view::Axis;

/// The number of decimals that tell apart the ticks of `range`: none for a
/// span of 10 or more, one more for each tenfold below.
pub fn decimals(range: &Range<f64>) -> usize {
    let span = range.end - range.start;
    if span.is_nan() || span <= 0.0 || span >= 10.0 {
        0
    } else {
        // Ten ticks or so: a step of about a tenth of the span.
        (-(span / 10.0).log10().floor()).max(0.0) as usize
    }
}

/// A tick label on `axis` over `range`: whole numbers only on an axis of
/// integers (nothing between them), else with [`decimals`] at most (on a
/// log scale, the decimals of the value's own first digit), and no
/// trailing zero (`2`, `2.5`).
pub fn tick(axis: &Axis, range: &Range<f64>, value: f64) -> String {
    if axis.integers {
        if (value - value.round()).abs() < 1e-9 {
            format!("{value:.0}")
        } else {
            String::new()
        }
    } else {
        let decimals = if axis.log && value > 0.0 {
            (-value.log10().floor()).max(0.0) as usize
        } else {
            decimals(range)
        };
        let text = format!("{value:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    }
}

/// The ticks of a log scale over `range`: 1, 2 and 5 times each power of
/// ten inside it, or the powers of ten alone past [`MAX_LOG_TICKS`].
pub fn log_ticks(range: &Range<f64>) -> Vec<f64> {
    if !(range.start > 0.0 && range.end > range.start) {
        return Vec::new();
    }
    let decades = range.start.log10().floor() as i32..=range.end.log10().ceil() as i32;
    // Dividing by a power of ten, rather than multiplying by its inverse,
    // gives the double nearest 0.05, the one a reader would type.
    let times = |m: f64, d: i32| if d < 0 { m / 10f64.powi(-d) } else { m * 10f64.powi(d) };
    let within = |steps: &[f64]| -> Vec<f64> {
        let ticks = decades.clone().flat_map(|d| steps.iter().map(move |&m| times(m, d)));
        ticks.filter(|t| range.contains(t)).collect()
    };
    let ticks = within(&[1.0, 2.0, 5.0]);
    if ticks.len() > MAX_LOG_TICKS {
        within(&[1.0])
    } else {
        ticks
    }
}

/// The most ticks [`log_ticks`] writes with the 1-2-5 steps.
pub const MAX_LOG_TICKS: usize = 10;

/// The range of `axis`: as given, or fitted to `values` (from 0 on a linear
/// scale, from half the smallest positive one on a log one, where a value
/// of 0 is drawn at the bottom), never empty.
pub fn range(axis: &Axis, values: impl Iterator<Item = f64> + Clone, from_zero: bool) -> Range<f64> {
    if let Some((low, high)) = axis.range {
        return low..high;
    }
    if axis.log {
        let positive = values.filter(|&v| v > 0.0);
        let (min, max) = positive.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let low = if min.is_finite() { min } else { 1.0 };
        return low / 2.0..max.max(low * 2.0) * 1.25;
    }
    let (min, max) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if from_zero {
        0.0..max.max(1.0) * 1.05
    } else if max > min {
        min..max
    } else {
        (min - 1.0).max(0.0)..max + 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_have_the_decimals_their_span_needs() {
        assert_eq!(decimals(&(0.0..1000.0)), 0);
        assert_eq!(decimals(&(0.0..10.0)), 0);
        assert_eq!(decimals(&(0.0..3.15)), 1);
        assert_eq!(decimals(&(0.0..0.5)), 2);
        assert_eq!(decimals(&(1.0..1.0)), 0);
        let integers = Axis::linear("retry").integers();
        assert_eq!(tick(&integers, &(0.5..2.5), 2.0), "2");
        assert_eq!(tick(&integers, &(0.5..2.5), 1.5), "");
        assert_eq!(tick(&Axis::linear("s"), &(0.0..3.15), 1.5), "1.5");
        assert_eq!(tick(&Axis::linear("s"), &(0.0..3.15), 2.0), "2");
        assert_eq!(tick(&Axis::linear("n"), &(0.0..300.0), 100.0), "100");
        let log = Axis::log("s");
        assert_eq!(tick(&log, &(0.025..12.5), 0.05), "0.05");
        assert_eq!(tick(&log, &(0.025..12.5), 0.2), "0.2");
        assert_eq!(tick(&log, &(0.025..12.5), 10.0), "10");
    }

    #[test]
    fn log_scales_tick_at_1_2_5_and_start_below_the_smallest_positive_value() {
        assert_eq!(log_ticks(&(0.025..12.5)), [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]);
        assert_eq!(log_ticks(&(200.0..125_000.0)).len(), 9);
        assert_eq!(log_ticks(&(0.5..2e6)), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6], "powers of ten alone");
        assert_eq!(log_ticks(&(0.0..1.0)), Vec::<f64>::new());
        // A box from 0 does not pull a log scale down to 0.
        let values = [0.0, 0.1, 6.4];
        assert_eq!(range(&Axis::log("s"), values.into_iter(), true), 0.05..8.0);
        assert_eq!(range(&Axis::log("s"), [0.0].into_iter(), true), 0.5..2.5);
    }
}
