//! Hedging: when an attempt has not answered within a delay, send another
//! copy and take whichever answers first. Retrying answers failures;
//! hedging answers the request that is slow, not failed ("The Tail at
//! Scale", Dean and Barroso, 2013: a hedge after 10 ms took a read's
//! 99.9th percentile from 1,800 ms to 74 ms for 2% more requests).
//!
//! A hedged call sends copy 1 at once and each next copy after the
//! [`Hedging`] delay while none has answered, at most `max_attempts` copies
//! in all (gRPC's retry design, A6, caps them at 5). The first success wins
//! and the other copies are dropped. A failure the classifier calls
//! permanent stops every copy; any other sends the next copy at once (after
//! a server's hint, if it gave one; "never" sends no more). Every copy but
//! the first takes what a retry takes from the budget, so a budget bounds
//! the extra load; the deadline cuts every copy; a rate limiter gives each
//! copy its token.

use core::time::Duration;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{ConfigError, Field, Rule};

/// The most copies a hedged call may send, the first included: gRPC's
/// clients cap hedging there too, since more copies only multiply the load.
pub const MAX_HEDGED_ATTEMPTS: u32 = 5;

/// How to hedge a call: the delay before each next copy, and how many
/// copies at most. A fixed delay ([`Hedging::after`]) or a percentile of
/// the latencies seen so far ([`Hedging::at_percentile`]), learned by the
/// `Hedging` and shared by its clones.
///
/// ```
/// use std::time::Duration;
/// use staggered::Hedging;
///
/// let fixed = Hedging::after(Duration::from_millis(10)).with_max_attempts(3)?;
/// assert_eq!((fixed.delay(), fixed.max_attempts()), (Some(Duration::from_millis(10)), 3));
///
/// // The 95th percentile of recent latencies, once 100 have been seen.
/// let learned = Hedging::at_percentile(0.95)?;
/// assert_eq!(learned.delay(), None, "no hedge until it has seen enough");
/// for ms in 1..=100 {
///     learned.record(Duration::from_millis(ms));
/// }
/// // Read to within 10%, and never below: 95 ms to 104.5 ms.
/// let delay = learned.delay().unwrap();
/// assert!(delay >= Duration::from_millis(95) && delay <= Duration::from_micros(104_500), "{delay:?}");
/// # Ok::<(), staggered::ConfigError>(())
/// ```
///
/// # Default
/// | parameter | default |
/// |---|---|
/// | `max_attempts` | 2: the first copy and one hedge |
/// | `min_samples` (learned) | 100 latencies before the first hedge |
/// | `window` (learned) | 1,000 latencies: the percentile is of the last 1,000 to 2,000 |
#[derive(Debug, Clone)]
pub struct Hedging {
    delay: Delay,
    max_attempts: u32,
}

#[derive(Debug, Clone)]
enum Delay {
    Fixed(Duration),
    Learned(Arc<Learned>),
}

/// The latencies a learned delay is a percentile of.
#[derive(Debug)]
struct Learned {
    percentile: f64,
    min_samples: u32,
    /// Latencies per histogram before it rotates.
    window: u32,
    histograms: Mutex<Rotating>,
}

impl Hedging {
    /// Hedges after `delay` without an answer; `Duration::ZERO` sends every
    /// copy at once.
    pub fn after(delay: Duration) -> Self {
        Hedging { delay: Delay::Fixed(delay), max_attempts: 2 }
    }

    /// Hedges after the `percentile` (0.5 to 0.999) of the latencies this
    /// `Hedging` has seen, and not before it has seen `min_samples` of
    /// them. The drivers record the time from a call's first copy to its
    /// answer: a call a hedge rescued counts as slower than the delay, as
    /// its first copy was, so the percentile stays that of an unhedged call.
    ///
    /// # Errors
    /// A [`ConfigError`] naming `percentile` outside 0.5 to 0.999: a lower
    /// one hedges most calls, a higher one too few to matter.
    pub fn at_percentile(percentile: f64) -> Result<Self, ConfigError> {
        if !(0.5..=0.999).contains(&percentile) {
            return Err(ConfigError::float(Field::Percentile, Rule::Within(0.5, 0.999), percentile));
        }
        let learned = Learned::new(percentile, DEFAULT_MIN_SAMPLES, DEFAULT_WINDOW);
        Ok(Hedging { delay: Delay::Learned(Arc::new(learned)), max_attempts: 2 })
    }

    /// Sends at most `max_attempts` copies, the first included.
    ///
    /// # Errors
    /// A [`ConfigError`] unless it is 2 to [`MAX_HEDGED_ATTEMPTS`].
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Result<Self, ConfigError> {
        if !(2..=MAX_HEDGED_ATTEMPTS).contains(&max_attempts) {
            let rule = Rule::Within(2.0, f64::from(MAX_HEDGED_ATTEMPTS));
            return Err(ConfigError::count(Field::MaxAttempts, rule, max_attempts));
        }
        self.max_attempts = max_attempts;
        Ok(self)
    }

    /// A learned delay waits for `min_samples` latencies before its first
    /// hedge (at least 1); a fixed delay ignores it. Set it before the
    /// `Hedging` records: it starts the learning afresh.
    pub fn with_min_samples(mut self, min_samples: u32) -> Self {
        if let Delay::Learned(learned) = &mut self.delay {
            *learned = Arc::new(Learned::new(learned.percentile, min_samples.max(1), learned.window));
        }
        self
    }

    /// A learned delay is a percentile of the last one to two `window`s of
    /// latencies (10 to 1,000,000 of them), so that it follows the service
    /// as it changes; a fixed delay ignores it. Set it before the
    /// `Hedging` records: it starts the learning afresh.
    ///
    /// # Errors
    /// A [`ConfigError`] naming `window` outside 10 to 1,000,000.
    pub fn with_window(mut self, window: u32) -> Result<Self, ConfigError> {
        if !(10..=1_000_000).contains(&window) {
            return Err(ConfigError::count(Field::Window, Rule::Within(10.0, 1e6), window));
        }
        if let Delay::Learned(learned) = &mut self.delay {
            *learned = Arc::new(Learned::new(learned.percentile, learned.min_samples, window));
        }
        Ok(self)
    }

    /// The most copies a call sends, the first included.
    pub const fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The delay before the next copy now: the fixed delay, or the learned
    /// percentile; `None` while a learned delay has seen too few latencies
    /// (then no copy but the first is sent, unless it fails).
    pub fn delay(&self) -> Option<Duration> {
        match &self.delay {
            Delay::Fixed(delay) => Some(*delay),
            Delay::Learned(learned) => learned.delay(),
        }
    }

    /// The limits of a hedged call: the policy's, with this hedging's count
    /// of copies in place of its attempts.
    pub(crate) fn limits(&self, limits: crate::Limits) -> crate::Limits {
        limits.with_max_attempts(Some(self.max_attempts))
    }

    /// Records a call's latency, for a learned delay (the drivers do it; a
    /// fixed delay ignores it).
    pub fn record(&self, latency: Duration) {
        if let Delay::Learned(learned) = &self.delay {
            learned.record(latency);
        }
    }
}

/// A learned delay's defaults: as many latencies before the first hedge
/// as make a 99th percentile mean something, and a window ten times that.
const DEFAULT_MIN_SAMPLES: u32 = 100;
const DEFAULT_WINDOW: u32 = 1_000;

impl Learned {
    fn new(percentile: f64, min_samples: u32, window: u32) -> Self {
        Learned { percentile, min_samples, window, histograms: Mutex::new(Rotating::default()) }
    }

    fn histograms(&self) -> std::sync::MutexGuard<'_, Rotating> {
        // Plain counts, valid between any two statements.
        self.histograms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, latency: Duration) {
        let mut histograms = self.histograms();
        if histograms.current.count >= u64::from(self.window) {
            histograms.previous = core::mem::take(&mut histograms.current);
        }
        histograms.current.record(latency);
    }

    fn delay(&self) -> Option<Duration> {
        let histograms = self.histograms();
        let seen = histograms.current.count + histograms.previous.count;
        (seen >= u64::from(self.min_samples))
            .then(|| Histogram::percentile([&histograms.current, &histograms.previous], self.percentile))
    }
}

/// Two histograms: the window under way and the one before, so that the
/// percentile always rests on at least a window of latencies once there
/// has been one.
#[derive(Debug, Default)]
struct Rotating {
    current: Histogram,
    previous: Histogram,
}

/// Latencies in buckets 10% wide, from 1 µs to about 3 hours: a percentile
/// is read to within 10%, in constant space. A latency beyond the last
/// bucket's edge lands in it too, and the largest one seen is kept, so
/// that the delay read there is never below every latency recorded.
#[derive(Debug, Clone)]
struct Histogram {
    counts: [u64; BUCKETS],
    count: u64,
    /// The largest latency recorded.
    max: Duration,
}

/// Buckets from 1 µs growing by 10%: the last regular edge, 1.1^243 µs,
/// is 3 h 11 min; the bucket after it holds everything longer.
const BUCKETS: usize = 245;
const GROWTH: f64 = 1.1;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: [0; BUCKETS], count: 0, max: Duration::ZERO }
    }
}

impl Histogram {
    fn bucket(latency: Duration) -> usize {
        let micros = latency.as_secs_f64() * 1e6;
        if micros <= 1.0 {
            return 0;
        }
        // `as` saturates: huge values land in the last bucket.
        ((libm::log(micros) / libm::log(GROWTH)).ceil() as usize).min(BUCKETS - 1)
    }

    /// The upper edge of `bucket`.
    fn upper(bucket: usize) -> Duration {
        Duration::from_secs_f64(libm::pow(GROWTH, bucket as f64) / 1e6)
    }

    fn record(&mut self, latency: Duration) {
        self.counts[Histogram::bucket(latency)] += 1;
        self.count += 1;
        self.max = self.max.max(latency);
    }

    /// The upper edge of the bucket holding the `percentile` latency of
    /// `histograms` taken together; in the last bucket, which has no upper
    /// edge, the largest latency they recorded.
    fn percentile(histograms: [&Histogram; 2], percentile: f64) -> Duration {
        let count: u64 = histograms.iter().map(|h| h.count).sum();
        let rank = (percentile * count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for bucket in 0..BUCKETS - 1 {
            seen += histograms.iter().map(|h| h.counts[bucket]).sum::<u64>();
            if seen >= rank {
                return Histogram::upper(bucket);
            }
        }
        histograms.iter().map(|h| h.max).max().unwrap_or(Duration::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_percentile_is_read_within_ten_percent() {
        let mut histogram = Histogram::default();
        for ms in 1..=1000 {
            histogram.record(MS * ms);
        }
        let empty = Histogram::default();
        for (percentile, exact) in [(0.5, 500), (0.95, 950), (0.99, 990)] {
            let read = Histogram::percentile([&histogram, &empty], percentile).as_secs_f64() * 1e3;
            assert!(read >= f64::from(exact) && read <= f64::from(exact) * 1.1, "{percentile}: {read}");
        }
        let mut odd = Histogram::default();
        odd.record(Duration::ZERO);
        odd.record(Duration::MAX);
        assert_eq!(Histogram::percentile([&odd, &empty], 0.5), Histogram::upper(0));
        assert_eq!(Histogram::percentile([&empty, &odd], 0.99), Duration::MAX);
    }

    #[test]
    fn a_learned_delay_covers_three_hours_and_is_never_below_every_latency() {
        // Within the range, to within 10% and never below: up to 3 hours.
        for latency in [Duration::from_secs(3_000), Duration::from_secs(7_200), Duration::from_secs(10_800)] {
            let hedging = Hedging::at_percentile(0.95).unwrap().with_min_samples(10);
            for _ in 0..10 {
                hedging.record(latency);
            }
            let delay = hedging.delay().unwrap();
            assert!(delay >= latency && delay <= latency.mul_f64(1.1), "{latency:?}: {delay:?}");
        }
        // Beyond it, the largest latency seen, not an edge below them all.
        for latency in [Duration::from_secs(20_000), Duration::from_secs(86_400 * 365), Duration::MAX] {
            let hedging = Hedging::at_percentile(0.5).unwrap().with_min_samples(1);
            hedging.record(latency);
            assert_eq!(hedging.delay(), Some(latency));
        }
    }

    #[test]
    fn a_learned_delay_waits_for_its_samples_and_follows_the_service() {
        let hedging = Hedging::at_percentile(0.9).unwrap().with_min_samples(10).with_window(10).unwrap();
        for _ in 0..9 {
            hedging.record(MS * 10);
        }
        assert_eq!(hedging.delay(), None);
        hedging.record(MS * 10);
        let ten = hedging.delay().unwrap();
        assert!(ten >= MS * 10 && ten <= MS * 11, "{ten:?}");
        // Two windows later, the service is ten times slower, and so is the delay.
        for _ in 0..20 {
            hedging.record(MS * 100);
        }
        let hundred = hedging.delay().unwrap();
        assert!(hundred >= MS * 100 && hundred <= MS * 110, "{hundred:?}");
        // A fixed delay ignores what it records.
        let fixed = Hedging::after(MS);
        fixed.record(MS * 100);
        assert_eq!(fixed.delay(), Some(MS));
    }

    #[test]
    fn bad_parameters_are_named() {
        assert_eq!(Hedging::at_percentile(0.2).unwrap_err().field(), Field::Percentile);
        assert_eq!(Hedging::at_percentile(f64::NAN).unwrap_err().field(), Field::Percentile);
        assert_eq!(Hedging::after(MS).with_max_attempts(1).unwrap_err().field(), Field::MaxAttempts);
        assert_eq!(Hedging::after(MS).with_max_attempts(6).unwrap_err().field(), Field::MaxAttempts);
        assert_eq!(Hedging::after(MS).with_window(9).unwrap_err().field(), Field::Window);
    }
}
