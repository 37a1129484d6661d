//! [`Summary`]: the mean, spread and range of one measure over runs.

use serde::Serialize;

/// The mean, spread and range of one measure over the runs of a point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// The mean over the runs.
    pub mean: f64,
    /// The sample standard deviation over the runs (0 for a single run).
    pub std_dev: f64,
    /// The smallest value of a run.
    pub min: f64,
    /// The largest value of a run.
    pub max: f64,
    /// How many runs were summarised.
    pub runs: u32,
}

impl Summary {
    /// Summarises `values`, in order (so the same values in the same order
    /// give bit-identical results); `None` when there are none.
    pub fn of(values: impl IntoIterator<Item = f64> + Clone) -> Option<Summary> {
        let (mut n, mut sum, mut min, mut max) = (0_u32, 0.0, f64::INFINITY, f64::NEG_INFINITY);
        for v in values.clone() {
            n += 1;
            sum += v;
            min = min.min(v);
            max = max.max(v);
        }
        if n == 0 {
            return None;
        }
        let mean = sum / f64::from(n);
        // Two passes: the textbook one-pass formula loses digits when the
        // spread is small next to the mean.
        let squares: f64 = values.into_iter().map(|v| (v - mean) * (v - mean)).sum();
        let std_dev = if n > 1 { (squares / f64::from(n - 1)).sqrt() } else { 0.0 };
        Some(Summary { mean, std_dev, min, max, runs: n })
    }

    /// The standard error of the mean, `std_dev / sqrt(runs)`.
    pub fn std_error(&self) -> f64 {
        self.std_dev / f64::from(self.runs).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let s = Summary::of([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.std_dev - (32.0_f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max, s.runs), (2.0, 9.0, 8));
        assert!((s.std_error() - s.std_dev / 8f64.sqrt()).abs() < 1e-15);
        let one = Summary::of([3.0]).unwrap();
        assert_eq!((one.mean, one.std_dev), (3.0, 0.0));
        assert_eq!(Summary::of([]), None);
    }
}
