//! The CUBIC curve that sets an adaptive limiter's rate (TCP CUBIC, RFC 9438,
//! as the AWS SDKs adapt it to request rates): a throttle cuts the rate to
//! `beta` times the rate at which it happened; after that the rate grows
//! back along a cubic that is flat near the old maximum and steep far from
//! it, so a client returns quickly to where it was, lingers there, then
//! probes above it.

/// The curve's state: the rate at the last throttle, when it happened, and
/// the time the curve takes to climb back to that rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cubic {
    /// `C`, how fast the curve climbs (0.4 in the AWS SDKs).
    scale: f64,
    /// The fraction of the rate kept after a throttle (0.7).
    beta: f64,
    /// The rate, per second, at which the last throttle happened.
    w_max: f64,
    /// Seconds from the last throttle until the curve is back at `w_max`.
    k: f64,
    /// When the last throttle happened, in seconds on the limiter's clock.
    last_throttle: f64,
}

impl Cubic {
    /// A curve that starts at rate `w_max` at time `now`.
    pub(crate) fn new(scale: f64, beta: f64, w_max: f64, now: f64) -> Self {
        let mut cubic = Cubic { scale, beta, w_max, k: 0.0, last_throttle: now };
        cubic.k = cubic.zero_point();
        cubic
    }

    /// `K = cbrt(w_max * (1 - beta) / C)`: when the curve, which starts at
    /// `beta * w_max`, is back at `w_max`.
    fn zero_point(&self) -> f64 {
        libm::cbrt(self.w_max * (1.0 - self.beta) / self.scale)
    }

    /// The rate after a response that was not throttled, at time `now`.
    pub(crate) fn on_success(&self, now: f64) -> f64 {
        let dt = now - self.last_throttle - self.k;
        self.scale * dt * dt * dt + self.w_max
    }

    /// The rate after a throttle at time `now`, when the client was sending
    /// at `rate`: the curve restarts from there.
    pub(crate) fn on_throttle(&mut self, rate: f64, now: f64) -> f64 {
        self.w_max = rate;
        self.k = self.zero_point();
        self.last_throttle = now;
        rate * self.beta
    }

    /// The rate at the last throttle.
    #[cfg(test)]
    pub(crate) const fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Seconds the curve takes to climb back to [`w_max`](Cubic::w_max).
    #[cfg(test)]
    pub(crate) const fn k(&self) -> f64 {
        self.k
    }
}

#[cfg(test)]
mod tests {
    //! The check values of botocore's `tests/unit/retries/test_throttling.py`
    //! (the AWS SDK for Python), whose algorithm this is.
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-7 * b.abs().max(1.0)
    }

    #[test]
    fn the_zero_point_of_a_curve_from_10_per_second() {
        let cubic = Cubic::new(0.4, 0.7, 10.0, 0.0);
        assert!(close(cubic.k(), 1.9574338205844317), "{}", cubic.k());
    }

    #[test]
    fn the_rate_stays_under_w_max_until_k_then_passes_it() {
        let cubic = Cubic::new(0.4, 0.7, 10.0, 0.0);
        let k = cubic.k();
        for t in [k / 3.0, k / 2.0, k / 1.1] {
            assert!(cubic.on_success(t) <= 10.0, "at {t}");
        }
        assert!(close(cubic.on_success(k), 10.0));
        for t in [k * 1.1, k * 2.0] {
            assert!(cubic.on_success(t) >= 10.0, "at {t}");
        }
    }

    #[test]
    fn a_throttle_cuts_the_rate_by_beta_and_restarts_the_curve() {
        let mut cubic = Cubic::new(0.4, 0.7, 10.0, 0.0);
        assert!(close(cubic.on_throttle(8.0, 1.0), 5.6));
        assert_eq!(cubic.w_max(), 8.0);
        assert!(close(cubic.k(), 1.8171205928321397), "{}", cubic.k());
        assert_eq!(cubic.last_throttle, 1.0);
    }

    #[test]
    fn right_after_a_throttle_the_curve_is_at_the_cut_rate() {
        let mut cubic = Cubic::new(0.4, 0.6, 10.0, 0.0);
        assert_eq!(cubic.on_throttle(10.0, 1.0), 6.0);
        assert!(close(cubic.on_success(1.0), 6.0), "{}", cubic.on_success(1.0));
    }
}
