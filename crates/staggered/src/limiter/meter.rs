//! The send-rate meter of an adaptive limiter: responses counted in
//! fixed time buckets, smoothed exponentially.

/// Counts responses in buckets of `width` seconds. When a response falls in
/// a later bucket than the last one, the count so far (that response
/// included) over the buckets elapsed is the latest rate, and the measured
/// rate moves toward it by `smoothing`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RateMeter {
    /// The bucket width, in seconds (0.5 in the AWS SDKs).
    width: f64,
    /// The weight of the latest rate (0.8).
    smoothing: f64,
    /// The start of the bucket the count belongs to, in seconds.
    last_bucket: f64,
    /// Responses since `last_bucket` began.
    count: u64,
    /// The smoothed rate, per second.
    measured: f64,
}

impl RateMeter {
    /// A meter with no responses yet, started at time `now`.
    pub(crate) fn new(width: f64, smoothing: f64, now: f64) -> Self {
        // The AWS SDKs start the first bucket at the whole second.
        RateMeter { width, smoothing, last_bucket: libm::floor(now), count: 0, measured: 0.0 }
    }

    /// Counts one response received at time `now`, and gives the measured
    /// rate.
    pub(crate) fn record(&mut self, now: f64) -> f64 {
        let bucket = libm::floor(now / self.width) * self.width;
        self.count = self.count.saturating_add(1);
        if bucket > self.last_bucket {
            let latest = self.count as f64 / (bucket - self.last_bucket);
            self.measured = latest * self.smoothing + self.measured * (1.0 - self.smoothing);
            self.count = 0;
            self.last_bucket = bucket;
        }
        self.measured
    }

    /// The measured rate, per second.
    pub(crate) const fn rate(&self) -> f64 {
        self.measured
    }

    /// Takes `rate` as the rate measured up to time `now`, as if `responses`
    /// had come evenly at that rate: the bucket open at `now` holds its
    /// share of them, so that it closes with the rate it really had rather
    /// than with only the responses still to come in it.
    pub(crate) fn assume(&mut self, rate: f64, responses: u64, now: f64) {
        let bucket = libm::floor(now / self.width) * self.width;
        self.last_bucket = bucket;
        self.measured = rate;
        // `as` saturates: a NaN or negative share is 0.
        self.count = ((rate * (now - bucket)).round() as u64).min(responses);
    }
}

#[cfg(test)]
mod tests {
    //! The check values of botocore's `TestRateClocker`
    //! (`tests/unit/retries/test_adaptive.py`).
    use super::*;

    fn meter() -> RateMeter {
        RateMeter::new(0.5, 0.8, 0.0)
    }

    #[test]
    fn starts_at_zero_and_moves_at_the_next_bucket() {
        let mut m = meter();
        assert_eq!(m.rate(), 0.0);
        assert_eq!(m.record(1.0), 0.8);
    }

    #[test]
    fn one_response_a_second_measures_one_per_second() {
        let mut m = meter();
        for t in 1..=20 {
            m.record(f64::from(t));
        }
        assert!((m.rate() - 1.0).abs() < 1e-6, "{}", m.rate());
    }

    #[test]
    fn smoothing_favours_recent_buckets() {
        let mut m = meter();
        for t in [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] {
            m.record(t);
        }
        assert!((1.99..=2.0).contains(&m.rate()), "{}", m.rate());
        m.record(14.0);
        assert!((0.1..=2.0).contains(&m.rate()), "{}", m.rate());
    }

    #[test]
    fn responses_at_the_same_instant_change_nothing_until_time_moves() {
        let mut m = meter();
        for t in [1.0, 1.0, 1.0, 2.0, 3.0] {
            m.record(t);
        }
        assert!(m.rate() >= 1.0);
    }

    #[test]
    fn responses_are_grouped_per_half_second() {
        // botocore's test: five responses inside [0, 0.5) leave the rate at
        // 0; the one at 0.5 closes that bucket with six counted, 6 / 0.5 = 12
        // per second, of which the smoothing keeps 0.8.
        let mut m = meter();
        for t in [0.1, 0.2, 0.3, 0.4, 0.49] {
            m.record(t);
        }
        assert_eq!(m.rate(), 0.0);
        assert_eq!(m.record(0.5), 12.0 * 0.8);
    }

    #[test]
    fn an_assumed_rate_closes_its_open_bucket_at_that_rate() {
        // 20 a second assumed at 10.25 s: the open bucket [10, 10.5) holds
        // the 5 of them up to 10.25 s; 5 more at 20 a second, the last
        // closing it, close it at 20 a second.
        let mut m = meter();
        m.assume(20.0, 205, 10.25);
        assert_eq!(m.rate(), 20.0);
        for t in [10.3, 10.35, 10.4, 10.45] {
            m.record(t);
        }
        assert_eq!(m.record(10.5), 20.0);
        // Never more than were counted in the open bucket; nothing from NaN.
        m.assume(1e9, 3, 10.75);
        assert_eq!(m.count, 3);
        m.assume(f64::NAN, 3, 10.75);
        assert_eq!(m.count, 0);
    }
}
