//! The tracking mode of an adaptive limiter: the fill rate follows the rate
//! the server admitted, measured over windows of responses.
//!
//! The AWS mode cuts to 0.7 times the rate a throttle happened at and grows
//! back along a cubic curve, whatever share of the attempts was throttled:
//! a client that lost one attempt in a hundred cuts as deep as one that
//! lost half. With few clients each cut is a large share of the limit and
//! the fleet's sawtooth averages well below it; with many clients each
//! sending a few requests a second, each client's meter sees too few
//! responses between throttles to measure, and the fleet overshoots.
//!
//! Tracking measures instead. Responses are counted in windows of at least
//! [`WINDOW`] seconds and [`MIN_RESPONSES`] responses (a window with
//! [`MIN_THROTTLES`] throttles closes after [`WINDOW`] whatever its size).
//! When a window closes, the client sent `s` per second of which a
//! fraction `f` was throttled: the server admitted `s (1 - f)` of them.
//!
//! - A window with throttles sets the rate a little below that,
//!   `(1 - MARGIN) s (1 - f)`: the cut is as deep as the excess, and the
//!   margin lets the server's bucket refill so that the next window starts
//!   with room.
//! - A window without throttles raises the rate (from the larger of the
//!   rate and what was sent) by a probe that starts at [`PROBE`] and
//!   doubles with each clean window in a row, up to [`MAX_PROBE`], but
//!   never past the rate the server admitted in the last throttled window
//!   (the known limit): a client far below it (a first throttle early in a
//!   burst, a deep cut) climbs 5%, 10%, 20%, 40%, 80% a window, reaching
//!   ten times its rate in about six windows instead of forty-seven, as
//!   TCP's slow start does; at the known limit it creeps up by [`CREEP`]
//!   (2%) a window, and finds out when the server has room again. A throttled
//!   window starts the probe over.
//!
//! Summed over a fleet, each client's admitted share adds up to what the
//! server admits, so the fleet settles at the limit without any client
//! knowing how many others there are.

/// The shortest window, in seconds.
pub(crate) const WINDOW: f64 = 1.0;
/// The fewest responses a window closes with, unless it saw
/// [`MIN_THROTTLES`] throttles.
pub(crate) const MIN_RESPONSES: u64 = 20;
/// The throttles that close a window after [`WINDOW`] even with fewer than
/// [`MIN_RESPONSES`] responses: enough to know the client is over its share.
pub(crate) const MIN_THROTTLES: u64 = 4;
/// How far below the admitted rate a throttled window sets the rate.
pub(crate) const MARGIN: f64 = 0.05;
/// How much the first unthrottled window after a throttled one raises the rate.
pub(crate) const PROBE: f64 = 0.05;
/// How much a clean window raises a rate already at the known limit.
pub(crate) const CREEP: f64 = 0.02;
/// The most an unthrottled window raises the rate, after several in a row.
pub(crate) const MAX_PROBE: f64 = 0.8;

/// One client's window of responses and the rate it set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tracking {
    /// The rate the last window set, per second.
    rate: f64,
    /// When the open window began, in seconds.
    start: f64,
    /// Responses in the open window.
    responses: u64,
    /// Throttled responses among them.
    throttles: u64,
    /// The rate the last closed window saw the client send, per second.
    sending: f64,
    /// The raise the next clean window gives.
    probe: f64,
    /// The rate the server admitted in the last throttled window, per
    /// second; infinite before the first.
    known_limit: f64,
}

impl Tracking {
    /// Tracking that starts from `rate` at time `now` (the rate measured
    /// when the first throttle turned the limiter on).
    pub(crate) const fn new(rate: f64, now: f64) -> Self {
        Tracking {
            rate,
            start: now,
            responses: 0,
            throttles: 0,
            sending: rate,
            probe: PROBE,
            known_limit: f64::INFINITY,
        }
    }

    /// Counts a response at `now`; when it closes the window, gives the new
    /// fill rate.
    pub(crate) fn record(&mut self, throttled: bool, now: f64) -> Option<f64> {
        self.responses = self.responses.saturating_add(1);
        if throttled {
            self.throttles = self.throttles.saturating_add(1);
        }
        let elapsed = now - self.start;
        let enough = self.responses >= MIN_RESPONSES || self.throttles >= MIN_THROTTLES;
        // A NaN elapsed closes nothing.
        let long_enough = elapsed.partial_cmp(&WINDOW).is_some_and(|order| order.is_ge());
        if !long_enough || !enough {
            return None;
        }
        let sending = self.responses as f64 / elapsed;
        self.rate = if self.throttles > 0 {
            let admitted = sending * (1.0 - self.throttles as f64 / self.responses as f64);
            self.probe = PROBE;
            self.known_limit = admitted;
            (1.0 - MARGIN) * admitted
        } else {
            let from = self.rate.max(sending);
            let raised = from * (1.0 + self.probe);
            self.probe = (self.probe * 2.0).min(MAX_PROBE);
            // At most back to the known limit, then a twentieth past it.
            raised.min(self.known_limit.max(from * (1.0 + CREEP)))
        };
        self.sending = sending;
        self.start = now;
        self.responses = 0;
        self.throttles = 0;
        Some(self.rate)
    }

    /// Holds the rate at `cap` at most (the limiter's bound on how far above
    /// what the client sends the rate may go), so that a client sending
    /// less than it may does not raise it without end.
    pub(crate) fn cap(&mut self, cap: f64) -> f64 {
        self.rate = self.rate.min(cap);
        self.rate
    }

    /// The send rate the last closed window measured, per second.
    pub(crate) const fn sending(&self) -> f64 {
        self.sending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` responses evenly over `[from, from + seconds)`, the first
    /// `throttled` of them throttled; the last rate a window set.
    fn feed(t: &mut Tracking, from: f64, seconds: f64, n: u32, throttled: u32) -> Option<f64> {
        let mut last = None;
        for i in 1..=n {
            let at = from + seconds * f64::from(i) / f64::from(n);
            last = t.record(i <= throttled, at).or(last);
        }
        last
    }

    #[test]
    fn a_throttled_window_sets_just_below_the_admitted_rate() {
        // 100 a second, a quarter throttled: 75 admitted, the rate 71.25.
        let mut t = Tracking::new(100.0, 0.0);
        let rate = feed(&mut t, 0.0, 1.0, 100, 25).unwrap();
        assert!((rate - 0.95 * 75.0).abs() < 1e-9, "{rate}");
        assert!((t.sending() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_clean_window_probes_up_by_a_twentieth() {
        let mut t = Tracking::new(50.0, 0.0);
        let rate = feed(&mut t, 0.0, 1.0, 40, 0).unwrap();
        assert!((rate - 52.5).abs() < 1e-9, "{rate}");
        // From what was sent when that is more than the rate, by twice the
        // probe: the second clean window in a row.
        let rate = feed(&mut t, 1.0, 1.0, 60, 0).unwrap();
        assert!((rate - 66.0).abs() < 1e-9, "{rate}");
    }

    #[test]
    fn clean_windows_in_a_row_double_the_probe_and_a_throttle_starts_it_over() {
        let mut t = Tracking::new(100.0, 0.0);
        let mut rates = vec![];
        for window in 0..7 {
            let sent = t.rate as u32; // a client sending all it may
            rates.push(feed(&mut t, f64::from(window), 1.0, sent, 0).unwrap().round());
        }
        assert_eq!(rates, [105.0, 116.0, 139.0, 194.0, 349.0, 629.0, 1132.0]);
        let rate = feed(&mut t, 7.0, 1.0, 1000, 100).unwrap();
        assert!((rate - 0.95 * 900.0).abs() < 1e-9, "{rate}");
        let rate = feed(&mut t, 8.0, 1.0, 855, 0).unwrap();
        assert!((rate - 855.0 * 1.05).abs() < 1e-6, "{rate}: a twentieth again");
        assert_eq!(t.cap(100.0), 100.0);
    }

    #[test]
    fn the_fast_climb_stops_at_the_known_limit() {
        // Admitted 500 a second, then cut deep to 100: the climb doubles
        // its probe back to 500, then creeps 2% a window past it.
        let mut t = Tracking::new(1000.0, 0.0);
        feed(&mut t, 0.0, 1.0, 1000, 500);
        assert_eq!(t.cap(100.0), 100.0);
        let mut rates = vec![];
        for window in 1..=8 {
            let sent = t.rate as u32;
            rates.push(feed(&mut t, f64::from(window), 1.0, sent, 0).unwrap().round());
        }
        assert_eq!(rates, [105.0, 116.0, 139.0, 194.0, 349.0, 500.0, 510.0, 520.0]);
    }

    #[test]
    fn a_window_needs_a_second_and_enough_responses() {
        let mut t = Tracking::new(10.0, 0.0);
        // 19 clean responses in 5 s: not enough to close.
        assert_eq!(feed(&mut t, 0.0, 5.0, 19, 0), None);
        // The 20th closes it.
        assert!(t.record(false, 5.5).is_some());
        // Four throttles close a window of a few responses after a second.
        let mut t = Tracking::new(10.0, 0.0);
        assert_eq!(feed(&mut t, 0.0, 0.9, 6, 4), None, "not before a second");
        let rate = t.record(false, 1.0).unwrap();
        assert!((rate - 0.95 * 7.0 * (3.0 / 7.0)).abs() < 1e-9, "{rate}");
    }

    #[test]
    fn time_going_nowhere_closes_nothing() {
        let mut t = Tracking::new(10.0, 5.0);
        assert_eq!(feed(&mut t, 0.0, 1.0, 100, 50), None, "responses from before the start");
        assert_eq!(t.record(true, f64::NAN), None);
    }
}
