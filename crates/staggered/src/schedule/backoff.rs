//! `Backoff`: a validated, immutable schedule configuration, and its builder.

use core::num::NonZeroU32;
use core::time::Duration;

use crate::error::{ConfigError, Field, Rule};
use crate::math::to_nanos;
use crate::rng::{FastRng, Rng};
use crate::schedule::plan::Plan;
use crate::{CapMode, Delays, Strategy};

/// A validated schedule: a [`Strategy`] with its parameters.
///
/// `Backoff` is `Copy` and holds no state; [`delays`](Backoff::delays) starts
/// a fresh [`Delays`] iterator, with its own generator, for each operation.
///
/// ```
/// use std::time::Duration;
/// use staggered::{Backoff, Strategy};
///
/// let backoff = Backoff::builder(Strategy::Full)
///     .with_base(Duration::from_millis(100))
///     .with_max_delay(Duration::from_secs(10))
///     .with_max_attempts(4)
///     .build()?;
/// let delays: Vec<Duration> = backoff.delays().collect();
/// assert_eq!(delays.len(), 3); // 4 attempts, so 3 retries
/// assert!(delays.iter().all(|d| *d <= Duration::from_millis(400)));
/// # Ok::<(), staggered::ConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub(crate) strategy: Strategy,
    pub(crate) base: Duration,
    pub(crate) multiplier: f64,
    pub(crate) max_delay: Duration,
    pub(crate) factor: f64,
    pub(crate) cap_mode: CapMode,
    pub(crate) max_attempts: Option<NonZeroU32>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) granularity: Option<Duration>,
    pub(crate) seed: Option<u64>,
    // Derived once at build time, in float nanoseconds, so `Delays::next` only
    // multiplies, compares and draws.
    pub(crate) base_ns: f64,
    pub(crate) max_ns: f64,
    pub(crate) interval_cap_ns: f64,
    pub(crate) granularity_ns: f64,
    /// What producing a delay reads, compiled once.
    pub(crate) plan: Plan,
    /// Whether a delay depends on the generator's draws ([`Plan::jittered`]):
    /// without, [`delays`](Backoff::delays) does not seed.
    #[cfg(feature = "std")]
    pub(crate) jittered: bool,
}

impl Backoff {
    /// A builder for `strategy` with the defaults listed on [`BackoffBuilder`].
    pub const fn builder(strategy: Strategy) -> BackoffBuilder {
        BackoffBuilder::new(strategy)
    }

    /// A builder that starts from this schedule's values, to change some of them.
    pub const fn to_builder(&self) -> BackoffBuilder {
        BackoffBuilder {
            strategy: self.strategy,
            base: self.base,
            multiplier: self.multiplier,
            max_delay: self.max_delay,
            factor: Some(self.factor),
            cap_mode: self.cap_mode,
            max_attempts: match self.max_attempts {
                Some(n) => Some(n.get()),
                None => None,
            },
            deadline: self.deadline,
            granularity: self.granularity,
            seed: self.seed,
        }
    }

    /// The strategy.
    pub const fn strategy(&self) -> Strategy {
        self.strategy
    }
    /// The delay unit (`smooth`: about the median first delay).
    pub const fn base(&self) -> Duration {
        self.base
    }
    /// Growth of the interval per retry.
    pub const fn multiplier(&self) -> f64 {
        self.multiplier
    }
    /// The ceiling on every delay ([`CapMode::Delay`]) or on the interval
    /// ([`CapMode::Interval`]).
    pub const fn max_delay(&self) -> Duration {
        self.max_delay
    }
    /// The randomization (`proportional`) or jitter (`additive`) factor.
    pub const fn factor(&self) -> f64 {
        self.factor
    }
    /// Where the cap applies.
    pub const fn cap_mode(&self) -> CapMode {
        self.cap_mode
    }
    /// The total number of calls, first one included; `None` for no limit.
    pub const fn max_attempts(&self) -> Option<u32> {
        match self.max_attempts {
            Some(n) => Some(n.get()),
            None => None,
        }
    }
    /// The total time budget carried with the schedule, from the start of
    /// attempt 1, the operation's own time included. The
    /// schedule itself knows no clock: the retry decision enforces it.
    pub const fn deadline(&self) -> Option<Duration> {
        self.deadline
    }
    /// The step the interval is truncated to at each retry, if any.
    pub const fn granularity(&self) -> Option<Duration> {
        self.granularity
    }
    /// The explicit seed, if the schedule is reproducible.
    pub const fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// The largest delay this schedule can produce: `max_delay`, or
    /// `max_delay * (1 + f)` for `proportional` and `additive` in
    /// [`CapMode::Interval`].
    pub fn delay_ceiling(&self) -> Duration {
        self.plan.ceiling.duration
    }

    /// The delays of one operation, with a generator seeded from the explicit
    /// seed if one was set, or else from OS entropy. Delays without jitter
    /// (`constant`, or no randomization) never draw: their generator is
    /// seeded only if [`Delays::into_rng`] asks for it.
    #[cfg(feature = "std")]
    #[inline]
    pub fn delays(&self) -> Delays<FastRng> {
        // One construction after the branches, so the plan is copied once,
        // straight into place.
        let (rng, seed_later): (FastRng, Option<fn() -> FastRng>) = match self.seed {
            Some(seed) => (FastRng::seed(seed), None),
            None if !self.jittered => (FastRng::seed(0), Some(FastRng::from_entropy)),
            None => (FastRng::from_entropy(), None),
        };
        Delays::with_seed_later(self.plan, rng, seed_later)
    }

    /// The delays of one operation, drawing from a generator seeded with `seed`.
    #[inline]
    pub fn delays_seeded(&self, seed: u64) -> Delays<FastRng> {
        Delays::new(self.plan, FastRng::seed(seed))
    }

    /// The delays of one operation, drawing jitter from `rng`.
    #[inline]
    pub fn delays_with_rng<R: Rng>(&self, rng: R) -> Delays<R> {
        Delays::new(self.plan, rng)
    }
}

/// Builds a [`Backoff`], checking every parameter.
///
/// # Default
/// | parameter | default |
/// |---|---|
/// | `base` | 1 s |
/// | `multiplier` | 2 |
/// | `max_delay` | 30 s |
/// | `factor` | 0.5 for `proportional` (Google's default), 0.3 for `additive` (the `standard` preset's), unused by the others |
/// | `cap_mode` | [`CapMode::Delay`]: no delay exceeds `max_delay` |
/// | `max_attempts` | 5 |
/// | `deadline` | none |
/// | `granularity` | none |
/// | `seed` | none: each [`Backoff::delays`] is seeded from OS entropy |
///
/// Parameters a strategy does not read (the factor for `full`, the multiplier
/// for `constant`, `decorrelated` and `smooth`) are still validated, and
/// otherwise ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct BackoffBuilder {
    strategy: Strategy,
    base: Duration,
    multiplier: f64,
    max_delay: Duration,
    factor: Option<f64>,
    cap_mode: CapMode,
    max_attempts: Option<u32>,
    deadline: Option<Duration>,
    granularity: Option<Duration>,
    seed: Option<u64>,
}

impl BackoffBuilder {
    /// A builder for `strategy` with the defaults above.
    pub const fn new(strategy: Strategy) -> Self {
        BackoffBuilder {
            strategy,
            base: Duration::from_secs(1),
            multiplier: 2.0,
            max_delay: Duration::from_secs(30),
            factor: None,
            cap_mode: CapMode::Delay,
            max_attempts: Some(5),
            deadline: None,
            granularity: None,
            seed: None,
        }
    }

    /// Sets the strategy, keeping every other parameter.
    pub const fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }
    /// Sets `base`, the delay unit.
    pub const fn with_base(mut self, base: Duration) -> Self {
        self.base = base;
        self
    }
    /// Sets the growth of the interval per retry; must be finite and at least 1.
    pub const fn with_multiplier(mut self, multiplier: f64) -> Self {
        self.multiplier = multiplier;
        self
    }
    /// Sets `max_delay`; must not be below `base`.
    pub const fn with_max_delay(mut self, max_delay: Duration) -> Self {
        self.max_delay = max_delay;
        self
    }
    /// Sets the randomization or jitter factor `f`; must lie in `[0, 1]`.
    pub const fn with_factor(mut self, factor: f64) -> Self {
        self.factor = Some(factor);
        self
    }
    /// Sets where the cap applies.
    pub const fn with_cap_mode(mut self, cap_mode: CapMode) -> Self {
        self.cap_mode = cap_mode;
        self
    }
    /// Sets the total number of calls, first one included; must be at least 1
    /// (1 means no retry at all).
    pub const fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = Some(max_attempts);
        self
    }
    /// Removes the limit on attempts: the schedule never ends by itself, so
    /// pair it with a deadline.
    pub const fn without_max_attempts(mut self) -> Self {
        self.max_attempts = None;
        self
    }
    /// Sets the total time budget, from the start of attempt 1.
    pub const fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }
    /// Removes the deadline.
    pub const fn without_deadline(mut self) -> Self {
        self.deadline = None;
        self
    }
    /// Truncates the interval to a whole number of `step`s at every retry, as
    /// google-http-java-client does with milliseconds; must not be zero.
    /// `constant` has no growing interval and always waits exactly `base`.
    pub const fn with_granularity(mut self, step: Duration) -> Self {
        self.granularity = Some(step);
        self
    }
    /// Removes the granularity.
    pub const fn without_granularity(mut self) -> Self {
        self.granularity = None;
        self
    }
    /// Makes every [`Backoff::delays`] draw the same sequence, from `seed`.
    pub const fn with_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Seeds every [`Backoff::delays`] from OS entropy (the default).
    pub const fn without_seed(mut self) -> Self {
        self.seed = None;
        self
    }

    /// Checks every parameter and builds the schedule.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first parameter that breaks its rule.
    pub fn build(self) -> Result<Backoff, ConfigError> {
        let multiplier = self.multiplier;
        if !multiplier.is_finite() {
            return Err(ConfigError::float(Field::Multiplier, Rule::Finite, multiplier));
        }
        if multiplier < 1.0 {
            return Err(ConfigError::float(Field::Multiplier, Rule::AtLeast(1.0), multiplier));
        }
        if self.max_delay < self.base {
            return Err(ConfigError::duration(
                Field::MaxDelay,
                Rule::NotBelowBase(self.base),
                self.max_delay,
            ));
        }
        let factor = self.factor.unwrap_or(match self.strategy {
            Strategy::Additive => 0.3,
            _ => 0.5,
        });
        if !factor.is_finite() {
            return Err(ConfigError::float(Field::Factor, Rule::Finite, factor));
        }
        if !(0.0..=1.0).contains(&factor) {
            return Err(ConfigError::float(Field::Factor, Rule::Within(0.0, 1.0), factor));
        }
        let max_attempts = match self.max_attempts {
            Some(n) => match NonZeroU32::new(n) {
                Some(n) => Some(n),
                None => return Err(ConfigError::count(Field::MaxAttempts, Rule::AtLeast(1.0), n)),
            },
            None => None,
        };
        let granularity_ns = match self.granularity {
            Some(step) if step.is_zero() => {
                return Err(ConfigError::duration(Field::Granularity, Rule::NonZero, step))
            }
            Some(step) => to_nanos(step),
            None => 0.0,
        };
        let max_ns = to_nanos(self.max_delay);
        let interval_cap_ns = if self.cap_mode == CapMode::Delay && self.strategy.uses_factor() {
            max_ns / (1.0 + factor)
        } else {
            max_ns
        };
        let mut backoff = Backoff {
            strategy: self.strategy,
            base: self.base,
            multiplier,
            max_delay: self.max_delay,
            factor,
            cap_mode: self.cap_mode,
            max_attempts,
            deadline: self.deadline,
            granularity: self.granularity,
            seed: self.seed,
            base_ns: to_nanos(self.base),
            max_ns,
            interval_cap_ns,
            granularity_ns,
            plan: Plan::ZERO,
            #[cfg(feature = "std")]
            jittered: true,
        };
        backoff.plan = Plan::new(&backoff);
        #[cfg(feature = "std")]
        {
            backoff.jittered = backoff.plan.jittered();
        }
        Ok(backoff)
    }
}

impl Default for BackoffBuilder {
    /// `full` jitter with the defaults above.
    fn default() -> Self {
        BackoffBuilder::new(Strategy::Full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters_naming_the_field() {
        let b = Backoff::builder(Strategy::Proportional);
        let cases = [
            (
                b.with_multiplier(f64::NAN),
                Field::Multiplier,
                "invalid multiplier NaN: must be a finite number",
            ),
            (b.with_multiplier(0.5), Field::Multiplier, "invalid multiplier 0.5: must be at least 1"),
            (
                b.with_multiplier(f64::INFINITY),
                Field::Multiplier,
                "invalid multiplier inf: must be a finite number",
            ),
            (b.with_factor(-0.1), Field::Factor, "invalid factor -0.1: must be between 0 and 1"),
            (b.with_factor(1.5), Field::Factor, "invalid factor 1.5: must be between 0 and 1"),
            (b.with_factor(f64::NAN), Field::Factor, "invalid factor NaN: must be a finite number"),
            (
                b.with_max_delay(Duration::from_millis(10)),
                Field::MaxDelay,
                "invalid max_delay 10ms: must not be below base (1s)",
            ),
            (b.with_max_attempts(0), Field::MaxAttempts, "invalid max_attempts 0: must be at least 1"),
            (
                b.with_granularity(Duration::ZERO),
                Field::Granularity,
                "invalid granularity 0ns: must not be zero",
            ),
        ];
        for (builder, field, message) in cases {
            let err = builder.build().unwrap_err();
            assert_eq!(err.field(), field);
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    fn extreme_values_build() {
        let b = Backoff::builder(Strategy::Full)
            .with_base(Duration::MAX)
            .with_max_delay(Duration::MAX)
            .with_multiplier(f64::MAX)
            .with_max_attempts(u32::MAX)
            .build()
            .unwrap();
        assert_eq!(b.max_attempts(), Some(u32::MAX));
        let zero = Backoff::builder(Strategy::Exponential).with_base(Duration::ZERO).build().unwrap();
        assert!(zero.delays_seeded(1).all(|d| d.is_zero()));
    }

    #[test]
    fn to_builder_round_trips() {
        let b = Backoff::builder(Strategy::Additive)
            .with_seed(7)
            .with_deadline(Duration::from_secs(9))
            .build()
            .unwrap();
        assert_eq!(b.to_builder().build().unwrap(), b);
    }

    #[cfg(feature = "std")]
    #[test]
    fn delays_without_jitter_seed_only_when_their_generator_is_taken() {
        let unjittered = [
            Backoff::builder(Strategy::Constant),
            Backoff::builder(Strategy::Exponential),
            Backoff::builder(Strategy::Proportional).with_factor(0.0),
        ];
        for builder in unjittered {
            let b = builder.with_base(Duration::from_millis(100)).with_max_attempts(6).build().unwrap();
            assert!(!b.jittered, "{:?}", b.strategy());
            // No draw changes a delay: the same as from any seed.
            assert_eq!(b.delays().collect::<Vec<_>>(), b.delays_seeded(7).collect::<Vec<_>>());
            // The generator, when taken, is seeded from entropy all the same.
            let mut taken = b.delays();
            taken.next();
            assert_ne!(taken.into_rng(), b.delays().into_rng(), "{:?}", b.strategy());
        }
        let jittered = Backoff::builder(Strategy::Full).build().unwrap();
        assert!(jittered.jittered);
        assert_ne!(jittered.delays().into_rng(), jittered.delays().into_rng());
        // An explicit seed is kept, jitter or not.
        let seeded = Backoff::builder(Strategy::Constant).with_seed(7).build().unwrap();
        assert_eq!(seeded.delays().into_rng(), FastRng::seed(7));
    }
}
