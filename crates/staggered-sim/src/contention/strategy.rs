//! The strategies of the contention experiment and how the 2015 parameters
//! map onto the library's schedules.

use staggered::{Backoff, Strategy};

use crate::experiment::{ensure, Invalid};
use crate::units::to_duration;
use crate::values::{named, Named};

/// What a client does between a failed write and its next read.
///
/// The 2015 experiment compares "none" with four schedules; any other
/// strategy of the library can be simulated too. Names are the library's
/// ([`Strategy::name`]): `none`, then `constant`, `exponential`, `full`,
/// `equal`, `decorrelated`, `proportional`, `additive`, `smooth`.
///
/// ```
/// use staggered::Strategy;
/// use staggered_sim::ContentionStrategy;
///
/// let full: ContentionStrategy = "full".parse()?;
/// assert_eq!(full, ContentionStrategy::Backoff(Strategy::Full));
/// assert_eq!("none".parse::<ContentionStrategy>()?, ContentionStrategy::NoBackoff);
/// assert_eq!(full.to_string(), "full");
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentionStrategy {
    /// `none`: read again as soon as the failed write's reply arrives (the
    /// library's `constant` schedule with base 0).
    NoBackoff,
    /// One of the library's schedules, with the parameters mapped as
    /// [`ContentionStrategy::backoff`] says.
    Backoff(Strategy),
}

impl ContentionStrategy {
    /// The five strategies of the 2015 experiment, in its order: none,
    /// exponential, equal, full, decorrelated.
    pub const PUBLISHED: [ContentionStrategy; 5] = [
        ContentionStrategy::NoBackoff,
        ContentionStrategy::Backoff(Strategy::Exponential),
        ContentionStrategy::Backoff(Strategy::Equal),
        ContentionStrategy::Backoff(Strategy::Full),
        ContentionStrategy::Backoff(Strategy::Decorrelated),
    ];

    /// The name: `none` or the library strategy's name.
    pub const fn name(self) -> &'static str {
        match self {
            ContentionStrategy::NoBackoff => "none",
            ContentionStrategy::Backoff(strategy) => strategy.name(),
        }
    }

    /// The library schedule a client walks, from the experiment's `base` and
    /// `cap` in 2015 time units (published: 5 and 2000).
    ///
    /// The 2015 code numbers the first retry `n = 1` and uses the ceiling
    /// `min(cap, base * 2^n)`, so its first ceiling is `2 * base`; the library
    /// numbers retries the same way but uses `base * 2^(n-1)`. Hence:
    ///
    /// | strategy | library `base` | `multiplier` | `max_delay` |
    /// |---|---|---|---|
    /// | `none` | 0 (`constant`) | - | `cap` |
    /// | `exponential`, `equal`, `full` | `2 * base` | 2 | `cap` |
    /// | `decorrelated` | `base` (its `sleep` starts at `base`) | - | `cap` |
    /// | `constant`, `proportional`, `additive`, `smooth` | `2 * base`, as the exponential family | 2 | `cap` |
    ///
    /// So `constant` waits `2 * base` every time, `smooth`'s median first
    /// delay is about `2 * base`, and `proportional` and `additive` keep the
    /// library's default factors and hard cap. No attempt limit: clients
    /// retry until their write succeeds. One time unit is one millisecond of
    /// [`Duration`](std::time::Duration) ([`crate::units`]).
    ///
    /// # Errors
    /// An [`Invalid`] naming `base` or `cap` for a value too large for a
    /// `Duration`, and `cap` (then `base`) for a cap below the first delay
    /// or a schedule the library refuses otherwise.
    pub fn backoff(self, base: f64, cap: f64) -> Result<Backoff, Invalid> {
        let too_large = |name, value| {
            format!("invalid {name} {value}: must be a finite number of time units, at least 0")
        };
        let max_delay = to_duration(cap).ok_or_else(|| Invalid::new(&["cap"], too_large("cap", cap)))?;
        to_duration(base).ok_or_else(|| Invalid::new(&["base"], too_large("base", base)))?;
        let (strategy, first) = match self {
            ContentionStrategy::NoBackoff => (Strategy::Constant, 0.0),
            ContentionStrategy::Backoff(Strategy::Decorrelated) => (Strategy::Decorrelated, base),
            ContentionStrategy::Backoff(strategy) => (strategy, 2.0 * base),
        };
        let first_delay =
            to_duration(first).ok_or_else(|| Invalid::new(&["base"], too_large("base", base)))?;
        let (cap_text, first_text) = (crate::view::number(cap), crate::view::number(first));
        let below = format!("invalid cap {cap_text}: below {self}'s first delay, {first_text} time units; the cap must be at least that");
        ensure(cap >= first, &["cap", "base"], below)?;
        Backoff::builder(strategy)
            .with_base(first_delay)
            .with_max_delay(max_delay)
            .without_max_attempts()
            .build()
            .map_err(|err| Invalid::new(&["cap", "base"], format!("invalid schedule for {self}: {err}")))
    }
}

impl Named for ContentionStrategy {
    const ALL: &'static [Self] = &[
        ContentionStrategy::NoBackoff,
        ContentionStrategy::Backoff(Strategy::Constant),
        ContentionStrategy::Backoff(Strategy::Exponential),
        ContentionStrategy::Backoff(Strategy::Full),
        ContentionStrategy::Backoff(Strategy::Equal),
        ContentionStrategy::Backoff(Strategy::Decorrelated),
        ContentionStrategy::Backoff(Strategy::Proportional),
        ContentionStrategy::Backoff(Strategy::Additive),
        ContentionStrategy::Backoff(Strategy::Smooth),
    ];
    const KIND: &'static str = "strategy";

    fn name(self) -> &'static str {
        ContentionStrategy::name(self)
    }
}

named!(ContentionStrategy);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::to_units;

    fn first_delays(strategy: ContentionStrategy, base: f64, cap: f64) -> Vec<f64> {
        let backoff = strategy.backoff(base, cap).unwrap();
        assert_eq!(backoff.max_attempts(), None, "clients retry until they succeed");
        backoff.delays_seeded(1).take(12).map(to_units).collect()
    }

    #[test]
    fn published_parameters_reproduce_the_2015_ceilings() {
        // 2015: min(2000, 5 * 2^n) for n = 1, 2, ...: 10, 20, 40, ..., 1280, 2000, 2000.
        let expected: Vec<f64> = (1..=12).map(|n| (5.0 * 2f64.powi(n)).min(2000.0)).collect();
        let exponential = first_delays(ContentionStrategy::Backoff(Strategy::Exponential), 5.0, 2000.0);
        assert_eq!(exponential, expected);
        for (strategy, low) in [(Strategy::Full, 0.0), (Strategy::Equal, 0.5)] {
            let delays = first_delays(ContentionStrategy::Backoff(strategy), 5.0, 2000.0);
            for (d, x) in delays.iter().zip(&expected) {
                assert!(*d >= low * x && d <= x, "{strategy}: {d} outside [{}, {x}]", low * x);
            }
        }
        assert!(first_delays(ContentionStrategy::NoBackoff, 5.0, 2000.0).iter().all(|d| *d == 0.0));
    }

    #[test]
    fn decorrelated_keeps_sleep_from_base() {
        // sleep = min(cap, U[5, 3 * sleep]), sleep starting at 5.
        let delays = first_delays(ContentionStrategy::Backoff(Strategy::Decorrelated), 5.0, 2000.0);
        let mut sleep = 5.0_f64;
        for d in delays {
            assert!((5.0..=(3.0 * sleep).min(2000.0) + 1e-6).contains(&d), "{d} after {sleep}");
            sleep = d;
        }
    }

    #[test]
    fn other_strategies_use_twice_base() {
        let constant = first_delays(ContentionStrategy::Backoff(Strategy::Constant), 5.0, 2000.0);
        assert!(constant.iter().all(|d| *d == 10.0), "{constant:?}");
    }

    #[test]
    fn refuses_bad_parameters() {
        let full = ContentionStrategy::Backoff(Strategy::Full);
        let err = full.backoff(-1.0, 2000.0).unwrap_err();
        assert_eq!(
            (err.fields(), err.to_string().as_str()),
            (&["base"][..], "invalid base -1: must be a finite number of time units, at least 0")
        );
        assert_eq!(
            full.backoff(5.0, f64::NAN).unwrap_err().to_string(),
            "invalid cap NaN: must be a finite number of time units, at least 0"
        );
        let err = full.backoff(5.0, 8.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid cap 8: below full's first delay, 10 time units; the cap must be at least that"
        );
        assert_eq!(err.fields(), ["cap", "base"]);
        // Decorrelated starts at base, not 2 * base, so a cap of 8 is fine there.
        assert!(ContentionStrategy::Backoff(Strategy::Decorrelated).backoff(5.0, 8.0).is_ok());
    }

    #[test]
    fn names_round_trip() {
        for strategy in
            Strategy::ALL.map(ContentionStrategy::Backoff).into_iter().chain([ContentionStrategy::NoBackoff])
        {
            assert_eq!(strategy.name().parse::<ContentionStrategy>(), Ok(strategy));
        }
        assert_eq!("NONE".parse::<ContentionStrategy>(), Ok(ContentionStrategy::NoBackoff));
        assert_eq!(ContentionStrategy::NoBackoff.to_string(), "none");
        let err = "fibonacci".parse::<ContentionStrategy>().unwrap_err();
        assert!(
            err.to_string().starts_with("unknown strategy \"fibonacci\": expected one of none,"),
            "{err}"
        );
    }
}
