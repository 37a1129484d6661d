//! [`AdaptiveLimiter`]: the rate meter, the CUBIC curve and the token bucket
//! behind one lock, shared by every task of a client.

use core::time::Duration;
use std::sync::PoisonError;

use super::bucket::FillBucket;
use super::cubic::Cubic;
use super::meter::RateMeter;
use super::mode::AdaptiveMode;
use super::quota::{QuotaPacer, MAX_QUOTA_WAIT};
use super::tracking::Tracking;
use crate::classify::quota::Quota;
use crate::error::{ConfigError, Field, Rule};
use crate::sleep::{BlockingSleeper, Clock, Sleeper, StdClock};
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, MutexGuard, Ordering};

/// The AWS SDKs' adaptive retry mode as a client-side rate limiter: every
/// attempt takes a token before it is sent, and the tokens' fill rate
/// follows the server's throttling (see the [module docs](crate::limiter)).
///
/// ```
/// use std::{cell::Cell, rc::Rc, time::Duration};
/// use staggered::limiter::AdaptiveLimiter;
///
/// // Virtual time: a clock that reads a cell, and a sleeper that moves it.
/// let now = Rc::new(Cell::new(Duration::ZERO));
/// let clock = { let now = now.clone(); move || now.get() };
/// let sleep = |wait: Duration| now.set(now.get() + wait);
/// let limiter = AdaptiveLimiter::builder().build_with_clock(clock)?;
///
/// // Until the first throttle, attempts go straight through.
/// for _ in 0..40 {
///     limiter.acquire_blocking(&sleep);
///     limiter.record_response(false);
///     sleep(Duration::from_millis(50)); // 20 attempts a second
/// }
/// assert_eq!(now.get(), Duration::from_secs(2), "no attempt waited");
/// // A throttle: the rate drops to 0.7 times the measured 20 per second.
/// limiter.record_response(true);
/// let metrics = limiter.metrics();
/// assert!(metrics.enabled && (metrics.fill_rate - 14.0).abs() < 0.5, "{metrics:?}");
/// // From now on attempts take tokens, and wait when there are none.
/// for _ in 0..30 {
///     limiter.acquire_blocking(&sleep);
/// }
/// assert!(limiter.metrics().waits > 0);
/// # Ok::<(), staggered::ConfigError>(())
/// ```
///
/// # Default
/// | parameter | default | valid | meaning |
/// |---|---|---|---|
/// | `scale_constant` | 0.4 | above 0, at most 1000 | CUBIC's `C`: how fast the rate grows back |
/// | `beta` | 0.7 | above 0, below 1 | the fraction of the rate kept after a throttle |
/// | `smoothing` | 0.8 | above 0, at most 1 | the weight of the latest bucket in the measured rate |
/// | `rate_bucket` | 500 ms | 1 ms to 60 s | the width of the rate meter's buckets |
/// | `min_rate` | 0.5 per second | at least 0.000001 | the lowest fill rate |
/// | `max_rate_scale` | 2 | 1 to 100 | the fill rate never exceeds this times the measured rate |
/// | `mode` | [`AdaptiveMode::Aws`] | `Aws`, `Tracking` | how the fill rate follows throttles once on |
///
/// The bounds keep every number finite and every parameter meaningful. A
/// `scale_constant` of 1000 (2,500 times the AWS SDKs') already climbs
/// 1000 requests a second within a second of the curve's low point: beyond
/// it the curve is a jump. A `max_rate_scale` of 100 (50 times theirs) lets
/// the fill rate reach 100 times what the client is seen sending: beyond it
/// the cap no longer keeps the fill rate near what the client sends (and
/// with both near `f64::MAX` the fill rate would be infinite and the
/// limiter would admit everything). A `min_rate` of 0.000001 a second is one
/// token every 11.6 days, a client stopped for any purpose; below it a
/// floor changes nothing, and every wait for a token stays a `Duration` a
/// clock can add (below about 5e-20 a second it would not be one at all).
///
/// One limiter per client (per server it talks to): clones share it. Time
/// comes from a [`Clock`] (the system's by default; a mock clock or virtual
/// time in tests and simulations), and waits go through the driver's
/// sleeper, so tests never sleep.
pub struct AdaptiveLimiter<K: Clock = StdClock> {
    inner: Arc<Inner<K>>,
}

struct Inner<K: Clock> {
    clock: K,
    origin: K::Instant,
    config: AdaptiveLimiterBuilder,
    /// Set by the first throttle, never cleared: until then attempts skip the
    /// lock entirely.
    enabled: AtomicBool,
    /// Successful responses before the first throttle, counted without the
    /// clock or the lock (see [`AdaptiveLimiter::record_response`]); the
    /// first throttle enters them into the meter.
    unmetered: AtomicU64,
    /// Set by the first announced quota, never cleared: until then
    /// attempts skip the pacer (and its lock).
    announced: AtomicBool,
    state: Mutex<State>,
    waits: AtomicU64,
    waited_nanos: AtomicU64,
}

#[derive(Debug, Clone, Copy)]
struct State {
    meter: RateMeter,
    cubic: Cubic,
    bucket: FillBucket,
    throttles: u64,
    /// The tracking mode's window, from the first throttle on.
    tracking: Option<Tracking>,
    /// When the first of the `unmetered` responses came, in seconds.
    first_response: Option<f64>,
    pacer: QuotaPacer,
}

/// A snapshot of an [`AdaptiveLimiter`], for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LimiterMetrics {
    /// Whether a throttle has turned on the limiter's adaptation: from the
    /// first throttled response on, every attempt takes a token of the
    /// fill rate. A limiter that only paces to an announced quota has not
    /// been throttled, and reads `false` here and `true` in
    /// [`pacing`](LimiterMetrics::pacing).
    pub enabled: bool,
    /// Whether a quota the server announced is in force now: attempts are
    /// paced to the requests it has left over the time to its reset (see
    /// [`AdaptiveLimiter::announce`]), throttled or not.
    pub pacing: bool,
    /// The tokens added per second: the rate attempts may be sent at.
    pub fill_rate: f64,
    /// The measured rate of responses, per second.
    pub measured_rate: f64,
    /// The tokens in the bucket now.
    pub tokens: f64,
    /// The most tokens the bucket holds (one second of the fill rate, at least 1).
    pub capacity: f64,
    /// Throttled responses recorded.
    pub throttles: u64,
    /// Attempts that had to wait for a token.
    pub waits: u64,
    /// The total time attempts waited for tokens.
    pub waited: Duration,
}

/// The largest `scale_constant` (see the bounds under [`AdaptiveLimiter`]'s defaults).
const MAX_SCALE_CONSTANT: f64 = 1000.0;
/// The largest `max_rate_scale`.
const MAX_RATE_SCALE: f64 = 100.0;
/// The smallest `min_rate`, per second.
const MIN_MIN_RATE: f64 = 1e-6;
/// The shortest span the successes before the first throttle are averaged
/// over, in seconds: a hundred a second for each of them at most.
const MIN_SPAN: f64 = 0.01;

/// The parameters of an [`AdaptiveLimiter`]; see its defaults table.
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct AdaptiveLimiterBuilder {
    scale_constant: f64,
    beta: f64,
    smoothing: f64,
    rate_bucket: Duration,
    min_rate: f64,
    max_rate_scale: f64,
    mode: AdaptiveMode,
}

impl AdaptiveLimiterBuilder {
    /// The AWS SDKs' values.
    pub const fn new() -> Self {
        AdaptiveLimiterBuilder {
            scale_constant: 0.4,
            beta: 0.7,
            smoothing: 0.8,
            rate_bucket: Duration::from_millis(500),
            min_rate: 0.5,
            max_rate_scale: 2.0,
            mode: AdaptiveMode::Aws,
        }
    }

    /// Sets CUBIC's scale constant `C`; above 0, at most 1000.
    pub const fn with_scale_constant(mut self, scale_constant: f64) -> Self {
        self.scale_constant = scale_constant;
        self
    }
    /// Sets the fraction of the rate kept after a throttle; above 0, below 1.
    pub const fn with_beta(mut self, beta: f64) -> Self {
        self.beta = beta;
        self
    }
    /// Sets the weight of the latest bucket in the measured rate; above 0, at most 1.
    pub const fn with_smoothing(mut self, smoothing: f64) -> Self {
        self.smoothing = smoothing;
        self
    }
    /// Sets the width of the rate meter's buckets; 1 ms to 60 s.
    pub const fn with_rate_bucket(mut self, rate_bucket: Duration) -> Self {
        self.rate_bucket = rate_bucket;
        self
    }
    /// Sets the lowest fill rate, per second; finite and at least 0.000001
    /// (one token every 11.6 days).
    pub const fn with_min_rate(mut self, min_rate: f64) -> Self {
        self.min_rate = min_rate;
        self
    }
    /// Sets how far above the measured rate the fill rate may go, as a
    /// factor; 1 to 100.
    pub const fn with_max_rate_scale(mut self, max_rate_scale: f64) -> Self {
        self.max_rate_scale = max_rate_scale;
        self
    }

    /// Sets how the fill rate follows throttles once on (the AWS SDKs' mode
    /// by default; see [`AdaptiveMode`] for when the other is better).
    pub const fn with_mode(mut self, mode: AdaptiveMode) -> Self {
        self.mode = mode;
        self
    }

    /// How the fill rate follows throttles once on.
    pub const fn mode(&self) -> AdaptiveMode {
        self.mode
    }
    /// CUBIC's scale constant.
    pub const fn scale_constant(&self) -> f64 {
        self.scale_constant
    }
    /// The fraction of the rate kept after a throttle.
    pub const fn beta(&self) -> f64 {
        self.beta
    }
    /// The weight of the latest bucket in the measured rate.
    pub const fn smoothing(&self) -> f64 {
        self.smoothing
    }
    /// The width of the rate meter's buckets.
    pub const fn rate_bucket(&self) -> Duration {
        self.rate_bucket
    }
    /// The lowest fill rate, per second.
    pub const fn min_rate(&self) -> f64 {
        self.min_rate
    }
    /// The most the fill rate may be, as a multiple of the measured rate.
    pub const fn max_rate_scale(&self) -> f64 {
        self.max_rate_scale
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = |field: Field, value: f64| {
            if !value.is_finite() {
                Err(ConfigError::float(field, Rule::Finite, value))
            } else if value <= 0.0 {
                Err(ConfigError::float(field, Rule::Above(0.0), value))
            } else {
                Ok(())
            }
        };
        positive(Field::ScaleConstant, self.scale_constant)?;
        if self.scale_constant > MAX_SCALE_CONSTANT {
            return Err(ConfigError::float(
                Field::ScaleConstant,
                Rule::AtMost(MAX_SCALE_CONSTANT),
                self.scale_constant,
            ));
        }
        positive(Field::Beta, self.beta)?;
        if self.beta >= 1.0 {
            return Err(ConfigError::float(Field::Beta, Rule::Below(1.0), self.beta));
        }
        positive(Field::Smoothing, self.smoothing)?;
        if self.smoothing > 1.0 {
            return Err(ConfigError::float(Field::Smoothing, Rule::Within(0.0, 1.0), self.smoothing));
        }
        if self.rate_bucket < Duration::from_millis(1) || self.rate_bucket > Duration::from_secs(60) {
            return Err(ConfigError::duration(
                Field::RateBucket,
                Rule::Within(0.001, 60.0),
                self.rate_bucket,
            ));
        }
        positive(Field::MinRate, self.min_rate)?;
        if self.min_rate < MIN_MIN_RATE {
            return Err(ConfigError::float(Field::MinRate, Rule::AtLeast(MIN_MIN_RATE), self.min_rate));
        }
        if !self.max_rate_scale.is_finite() {
            return Err(ConfigError::float(Field::MaxRateScale, Rule::Finite, self.max_rate_scale));
        }
        if !(1.0..=MAX_RATE_SCALE).contains(&self.max_rate_scale) {
            return Err(ConfigError::float(
                Field::MaxRateScale,
                Rule::Within(1.0, MAX_RATE_SCALE),
                self.max_rate_scale,
            ));
        }
        Ok(())
    }

    /// Builds the limiter on the system clock.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the parameter out of range.
    pub fn build(self) -> Result<AdaptiveLimiter, ConfigError> {
        self.build_with_clock(StdClock)
    }

    /// Builds the limiter on `clock` (tokio's, a mock clock in tests,
    /// virtual time in a simulation).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the parameter out of range.
    pub fn build_with_clock<K: Clock>(self, clock: K) -> Result<AdaptiveLimiter<K>, ConfigError> {
        self.validate()?;
        let origin = clock.now();
        // As in the AWS SDKs: the curve starts from a rate of 0 at creation,
        // and the bucket from a rate of 1 per second, unused until enabled.
        let state = State {
            meter: RateMeter::new(self.rate_bucket.as_secs_f64(), self.smoothing, 0.0),
            cubic: Cubic::new(self.scale_constant, self.beta, 0.0, 0.0),
            bucket: FillBucket::new(1.0, self.min_rate, 0.0),
            throttles: 0,
            tracking: None,
            first_response: None,
            pacer: QuotaPacer::default(),
        };
        Ok(AdaptiveLimiter {
            inner: Arc::new(Inner {
                clock,
                origin,
                config: self,
                enabled: AtomicBool::new(false),
                unmetered: AtomicU64::new(0),
                announced: AtomicBool::new(false),
                state: Mutex::new(state),
                waits: AtomicU64::new(0),
                waited_nanos: AtomicU64::new(0),
            }),
        })
    }
}

impl Default for AdaptiveLimiterBuilder {
    fn default() -> Self {
        AdaptiveLimiterBuilder::new()
    }
}

impl AdaptiveLimiter {
    /// A limiter with the AWS SDKs' values on the system clock.
    pub fn new() -> Self {
        AdaptiveLimiterBuilder::new().build().unwrap_or_else(|_| unreachable!("the defaults are valid"))
    }

    /// A builder, to change the defaults.
    pub const fn builder() -> AdaptiveLimiterBuilder {
        AdaptiveLimiterBuilder::new()
    }
}

impl Default for AdaptiveLimiter {
    fn default() -> Self {
        AdaptiveLimiter::new()
    }
}

impl<K: Clock> Clone for AdaptiveLimiter<K> {
    fn clone(&self) -> Self {
        AdaptiveLimiter { inner: Arc::clone(&self.inner) }
    }
}

impl<K: Clock> core::fmt::Debug for AdaptiveLimiter<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AdaptiveLimiter").field("metrics", &self.metrics()).finish_non_exhaustive()
    }
}

impl<K: Clock> AdaptiveLimiter<K> {
    /// The parameters it was built with.
    pub fn config(&self) -> &AdaptiveLimiterBuilder {
        &self.inner.config
    }

    /// Seconds since the limiter was built, on its clock.
    fn now(&self) -> f64 {
        self.inner.clock.since(self.inner.origin).as_secs_f64()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is plain numbers, valid between any two statements: a
        // panic elsewhere while holding the lock cannot leave it broken.
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a throttle has turned the limiter on.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.inner.enabled.load(Ordering::Acquire)
    }

    /// Takes a token for an attempt about to be sent, or says how long to
    /// wait before asking again. Always `Ok` while disabled.
    #[inline]
    pub fn try_acquire(&self) -> Result<(), Duration> {
        if self.inner.announced.load(Ordering::Acquire) {
            return self.try_acquire_paced();
        }
        if !self.is_enabled() {
            return Ok(());
        }
        self.try_acquire_enabled()
    }

    fn try_acquire_enabled(&self) -> Result<(), Duration> {
        let now = self.now();
        self.state().bucket.take(now).map_err(token_wait)
    }

    /// Paced to the announced quota first, then the token if enabled.
    fn try_acquire_paced(&self) -> Result<(), Duration> {
        let (now, enabled) = (self.now(), self.is_enabled());
        let state = &mut *self.state();
        let bucket = &mut state.bucket;
        state.pacer.take(now, MAX_QUOTA_WAIT, || {
            if enabled {
                bucket.take(now).map_err(token_wait)
            } else {
                Ok(())
            }
        })
    }

    /// Tells the limiter what the server announced of its rate limit on a
    /// response: from then on attempts are paced to it, before any throttle
    /// (see [`quota`](crate::limiter::quota) for the rule and which values
    /// it ignores); the throttles still cut the rate as before.
    pub fn announce(&self, quota: Quota) {
        let now = self.now();
        self.state().pacer.announce(quota, now);
        self.inner.announced.store(true, Ordering::Release);
    }

    /// Takes a token for an attempt, blocking with `sleeper` while there is
    /// none. Returns at once while disabled.
    pub fn acquire_blocking<Z: BlockingSleeper + ?Sized>(&self, sleeper: &Z) {
        let mut waited = Duration::ZERO;
        while let Err(wait) = self.try_acquire() {
            sleeper.sleep(wait);
            waited = waited.saturating_add(wait);
        }
        self.count_wait(waited);
    }

    /// Takes a token for an attempt, waiting on `sleeper` while there is
    /// none. Dropping the future while it waits takes no token. Ready at
    /// once while disabled.
    pub async fn acquire<Z: Sleeper + ?Sized>(&self, sleeper: &Z) {
        let mut waited = Duration::ZERO;
        while let Err(wait) = self.try_acquire() {
            sleeper.sleep(wait).await;
            waited = waited.saturating_add(wait);
        }
        self.count_wait(waited);
    }

    /// Counts an attempt that waited `waited` for its token, for
    /// [`metrics`](AdaptiveLimiter::metrics) (a driver that waits itself, through
    /// [`try_acquire`](AdaptiveLimiter::try_acquire), reports here).
    pub(crate) fn count_wait(&self, waited: Duration) {
        if !waited.is_zero() {
            self.inner.waits.fetch_add(1, Ordering::Relaxed);
            let nanos = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
            let _ = self.inner.waited_nanos.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
                Some(total.saturating_add(nanos))
            });
        }
    }

    /// Records the response to an attempt: `throttled` if the server said
    /// to slow down. Every response counts toward the measured rate; a
    /// throttle cuts the fill rate (and turns the limiter on), any other
    /// response moves it along the curve.
    ///
    /// Once the limiter is on, every response is entered as it comes, at
    /// the time it comes, as the AWS SDKs do: a clock read and the lock.
    ///
    /// Before the first throttle nothing is limited, so a success is only
    /// counted, with a relaxed load and store: no clock, no lock, on the
    /// path of every attempt of a client that is never throttled. The
    /// first throttle takes the mean rate of those successes, from the
    /// first of them to the throttle, as the rate it happened at (where the
    /// AWS SDKs' meter, fed every response, would give the rate of the last
    /// second or two: the same for a client sending steadily, lower for one
    /// that was slower before; the curve then climbs back within seconds).
    /// Two threads counting in the same few nanoseconds may count one
    /// success between them: at real request rates such collisions are
    /// rare, and the count only sets the rate the first throttle cuts from.
    #[inline]
    pub fn record_response(&self, throttled: bool) {
        if throttled {
            self.record_throttle();
        } else if self.is_enabled() {
            self.record_success();
        } else {
            let unmetered = &self.inner.unmetered;
            let count = unmetered.load(Ordering::Relaxed).wrapping_add(1);
            unmetered.store(count, Ordering::Relaxed);
            if count == 1 {
                self.note_first_response();
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn note_first_response(&self) {
        let now = self.now();
        self.state().first_response.get_or_insert(now);
    }

    fn record_success(&self) {
        let now = self.now();
        let mut state = self.state();
        if self.inner.config.mode == AdaptiveMode::Tracking {
            self.track(&mut state, false, now);
            return;
        }
        let measured = state.meter.record(now);
        let rate = state.cubic.on_success(now);
        self.set_rate(&mut state, rate, measured, now);
    }

    fn record_throttle(&self) {
        let now = self.now();
        let mut state = self.state();
        // Read under the lock: one throttle turns the limiter on.
        let enabled = self.inner.enabled.load(Ordering::Acquire);
        if !enabled {
            self.enter_unmetered(&mut state, now);
        }
        if self.inner.config.mode == AdaptiveMode::Tracking {
            state.throttles = state.throttles.saturating_add(1);
            self.track(&mut state, true, now);
            self.inner.enabled.store(true, Ordering::Release);
            return;
        }
        let measured = state.meter.record(now);
        // Once on, the client sends at most at the fill rate.
        let sending = if enabled { measured.min(state.bucket.rate()) } else { measured };
        state.throttles = state.throttles.saturating_add(1);
        let rate = state.cubic.on_throttle(sending, now);
        self.set_rate(&mut state, rate, measured, now);
        self.inner.enabled.store(true, Ordering::Release);
    }

    /// Enters the successes counted before the first throttle as their mean
    /// rate from the first of them to `now`, and sets the fill rate from the
    /// curve and the meter as a success would. The rate is what was really
    /// sent: `n` successes and the throttle are `n` intervals over the span
    /// (taken as [`MIN_SPAN`] at least, so that a few responses in the same
    /// microsecond are no endless rate). A client sending 400 a second
    /// whose first throttle comes 0.1 s in measures 400, not the 80 an
    /// average over a half-second bucket would make of it.
    fn enter_unmetered(&self, state: &mut State, now: f64) {
        let responses = self.inner.unmetered.load(Ordering::Relaxed);
        let since = state.first_response.unwrap_or(now);
        let span = (now - since).max(MIN_SPAN);
        let measured = responses as f64 / span;
        state.meter.assume(measured, responses, now);
        let rate = state.cubic.on_success(now);
        self.set_rate(state, rate, measured, now);
    }

    /// The tracking mode's response at `now`. The first throttle starts it
    /// from the rate measured until then, uncut: the windows that follow
    /// measure how much of it the server admits.
    fn track(&self, state: &mut State, throttled: bool, now: f64) {
        let tracking = state.tracking.get_or_insert_with(|| {
            let measured = state.meter.rate();
            state.bucket.set_rate(measured, now);
            Tracking::new(measured, now)
        });
        if tracking.record(throttled, now).is_some() {
            let rate = tracking.cap(self.inner.config.max_rate_scale * tracking.sending());
            state.bucket.set_rate(rate, now);
        }
    }

    /// The curve's `rate`, never above `max_rate_scale` times the measured rate.
    fn set_rate(&self, state: &mut State, rate: f64, measured: f64, now: f64) {
        state.bucket.set_rate(rate.min(self.inner.config.max_rate_scale * measured), now);
    }

    /// A snapshot of the limiter's state now. Before the first throttle,
    /// what it would start from: the successes so far as their mean rate,
    /// and the fill rate the curve and that rate give. Reading it changes
    /// nothing.
    pub fn metrics(&self) -> LimiterMetrics {
        let now = self.now();
        // Whether it is on is read under the lock, where the first throttle
        // turns it on: a snapshot never shows it on with no throttle counted.
        let (mut state, enabled) = {
            let state = self.state();
            (*state, self.is_enabled())
        };
        if !enabled {
            self.enter_unmetered(&mut state, now);
        }
        LimiterMetrics {
            enabled,
            pacing: state.pacer.is_live(now),
            fill_rate: state.bucket.rate(),
            measured_rate: state.tracking.map_or(state.meter.rate(), |tracking| tracking.sending()),
            tokens: state.bucket.level(now),
            capacity: state.bucket.capacity(),
            throttles: state.throttles,
            waits: self.inner.waits.load(Ordering::Relaxed),
            waited: Duration::from_nanos(self.inner.waited_nanos.load(Ordering::Relaxed)),
        }
    }
}

/// The wait for a token `seconds` away, rounded up so that the token is
/// there after it. A wait too long for a `Duration` (which the bound on
/// `min_rate` rules out) is the longest `Duration`, never a shorter one: a
/// driver compares it with its deadline and stops.
fn token_wait(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds).map_or(Duration::MAX, |d| d.saturating_add(Duration::from_nanos(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::MockClock;

    fn limiter() -> (AdaptiveLimiter<MockClock>, MockClock) {
        let clock = MockClock::new();
        (AdaptiveLimiter::builder().build_with_clock(clock.clone()).unwrap(), clock)
    }

    #[test]
    fn disabled_until_the_first_throttle() {
        let (limiter, clock) = limiter();
        for _ in 0..100 {
            assert_eq!(limiter.try_acquire(), Ok(()));
            limiter.record_response(false);
            clock.advance(Duration::from_millis(10));
        }
        assert!(!limiter.metrics().enabled);
        limiter.record_response(true);
        assert!(limiter.metrics().enabled);
    }

    #[test]
    fn the_fill_rate_is_capped_at_twice_the_measured_rate() {
        // botocore: a curve at 100 per second with a measured 20 gives 40.
        let (limiter, clock) = limiter();
        // 20 responses a second for 10 s: the meter converges to 20.
        for _ in 0..200 {
            limiter.record_response(false);
            clock.advance(Duration::from_millis(50));
        }
        let metrics = limiter.metrics();
        assert!((metrics.measured_rate - 20.0).abs() < 1e-6, "{metrics:?}");
        // The curve, from 0 at creation, is at 0.4 * 10^3 = 400 by now.
        assert!((metrics.fill_rate - 40.0).abs() < 1e-6, "{metrics:?}");
    }

    #[test]
    fn a_throttle_cuts_to_beta_times_the_measured_rate_and_waits_follow() {
        let (limiter, clock) = limiter();
        for _ in 0..200 {
            limiter.record_response(false);
            clock.advance(Duration::from_millis(50));
        }
        limiter.record_response(true);
        let metrics = limiter.metrics();
        assert!(metrics.enabled);
        // The throttle's response closed no new bucket: measured is still 20.
        assert!((metrics.fill_rate - 14.0).abs() < 1e-9, "{metrics:?}");
        assert!((metrics.capacity - 14.0).abs() < 1e-9);
        // The bucket kept what it had earned, clipped to the new capacity.
        assert!(metrics.tokens <= metrics.capacity);
        // Drain it, then the next attempt waits 1 / 14 s.
        while limiter.try_acquire().is_ok() {}
        let Err(wait) = limiter.try_acquire() else { unreachable!() };
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs_f64(1.0 / 14.0) + Duration::from_nanos(1)
        );
        clock.advance(wait);
        assert_eq!(limiter.try_acquire(), Ok(()));
    }

    #[test]
    fn the_tracking_mode_starts_uncut_and_follows_the_admitted_rate() {
        let clock = MockClock::new();
        let builder = AdaptiveLimiter::builder().with_mode(AdaptiveMode::Tracking);
        let limiter = builder.build_with_clock(clock.clone()).unwrap();
        assert_eq!(limiter.config().mode(), AdaptiveMode::Tracking);
        for _ in 0..200 {
            limiter.record_response(false);
            clock.advance(Duration::from_millis(50));
        }
        // The first throttle turns it on at the rate measured, not 0.7 of it.
        limiter.record_response(true);
        let metrics = limiter.metrics();
        assert!(metrics.enabled && (metrics.fill_rate - 20.0).abs() < 1e-9, "{metrics:?}");
        // A second of 20 responses, a quarter of them throttled: 15 a
        // second admitted, the rate 0.95 of that.
        for i in 0..20 {
            clock.advance(Duration::from_millis(50));
            limiter.record_response(i % 4 == 0);
        }
        let metrics = limiter.metrics();
        assert!((metrics.fill_rate - 0.95 * 15.0).abs() < 0.3, "{metrics:?}");
        assert!((metrics.measured_rate - 20.0).abs() < 1.1, "{metrics:?}");
        assert_eq!(metrics.throttles, 6);
        // A clean window raises it by 5% of what was sent.
        for _ in 0..20 {
            clock.advance(Duration::from_millis(50));
            limiter.record_response(false);
        }
        let raised = limiter.metrics().fill_rate;
        assert!((raised - 1.05 * 20.0).abs() < 1.1, "{raised}");
    }

    #[test]
    fn a_first_throttle_early_in_a_burst_starts_from_what_was_really_sent() {
        // 400 a second, the first throttle 0.1 s in (nginx's burst of 20
        // spent at twice its rate): both modes start from 400 a second, not
        // from 40 responses spread over a half-second bucket (80).
        for (mode, kept) in [(AdaptiveMode::Aws, 0.7), (AdaptiveMode::Tracking, 1.0)] {
            let clock = MockClock::new();
            let limiter = AdaptiveLimiter::builder().with_mode(mode).build_with_clock(clock.clone()).unwrap();
            for _ in 0..40 {
                limiter.record_response(false);
                clock.advance(Duration::from_micros(2_500));
            }
            limiter.record_response(true);
            let metrics = limiter.metrics();
            assert!((metrics.fill_rate - kept * 400.0).abs() < 0.05 * 400.0, "{mode:?}: {metrics:?}");
        }
    }

    #[test]
    fn the_rate_never_falls_below_the_minimum() {
        let (limiter, _clock) = limiter();
        limiter.record_response(true); // measured 0: the rate would be 0
        let metrics = limiter.metrics();
        assert_eq!((metrics.fill_rate, metrics.capacity), (0.5, 1.0));
    }

    #[test]
    fn bad_parameters_are_named() {
        let cases = [
            (AdaptiveLimiter::builder().with_scale_constant(0.0), "scale_constant"),
            (AdaptiveLimiter::builder().with_beta(1.0), "beta"),
            (AdaptiveLimiter::builder().with_beta(f64::NAN), "beta"),
            (AdaptiveLimiter::builder().with_smoothing(1.5), "smoothing"),
            (AdaptiveLimiter::builder().with_rate_bucket(Duration::ZERO), "rate_bucket"),
            (AdaptiveLimiter::builder().with_min_rate(-1.0), "min_rate"),
            (AdaptiveLimiter::builder().with_min_rate(1e-21), "min_rate"),
            (AdaptiveLimiter::builder().with_max_rate_scale(0.5), "max_rate_scale"),
            (AdaptiveLimiter::builder().with_scale_constant(f64::MAX), "scale_constant"),
            (AdaptiveLimiter::builder().with_max_rate_scale(f64::MAX), "max_rate_scale"),
        ];
        for (builder, field) in cases {
            let err = builder.build_with_clock(MockClock::new()).unwrap_err();
            assert_eq!(err.field().name(), field, "{err}");
            assert!(err.to_string().starts_with(&format!("invalid {field} ")), "{err}");
        }
    }

    #[test]
    fn a_wait_too_long_for_a_duration_is_the_longest_one() {
        assert_eq!(token_wait(0.5), Duration::from_millis(500) + Duration::from_nanos(1));
        assert_eq!(token_wait(1e30), Duration::MAX);
        assert_eq!(token_wait(f64::INFINITY), Duration::MAX);
        assert_eq!(token_wait(f64::NAN), Duration::MAX);
    }

    #[test]
    fn it_is_send_and_sync() {
        fn shared<T: Send + Sync + Clone>() {}
        shared::<AdaptiveLimiter>();
    }
}
