//! The axes of a chart: the range each one spans, fitted to the data, and
//! the labels of its ticks, with as many decimals as the span needs.

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
/// integers (nothing between them), else with [`decimals`] at most, and no
/// trailing zero (`2`, `2.5`).
pub fn tick(axis: &Axis, range: &Range<f64>, value: f64) -> String {
    if axis.integers {
        if (value - value.round()).abs() < 1e-9 {
            format!("{value:.0}")
        } else {
            String::new()
        }
    } else {
        let text = format!("{value:.*}", decimals(range));
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    }
}

/// The range of `axis`: as given, or fitted to `values` (from 0 on a linear
/// scale, from half the smallest on a log one), never empty.
pub fn range(axis: &Axis, values: impl Iterator<Item = f64> + Clone, from_zero: bool) -> Range<f64> {
    if let Some((low, high)) = axis.range {
        return low..high;
    }
    let (min, max) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if axis.log {
        let low = min.max(1.0);
        low / 2.0..max.max(low * 2.0) * 1.25
    } else if from_zero {
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
    }
}
