//! The families of schedules the frontier sweeps, and how a candidate's
//! parameters become one of the library's schedules.

use std::fmt;

use serde::Serialize;
use staggered::{Backoff, Strategy};

use crate::experiment::{ensure, Invalid};
use crate::units::to_duration;
use crate::values::{named, Named};
use crate::view::number;

/// A family of schedules: one of the library's strategies with some of its
/// parameters free. Every candidate is a [`Backoff`] the library builds, so
/// a candidate that wins is a library schedule as written.
///
/// Parameters follow the contention experiment's 2015 convention
/// ([`ContentionStrategy::backoff`](crate::ContentionStrategy::backoff)):
/// with the experiment's `base` b, a candidate of scale s starts where the
/// published strategy would with base `s * b`.
///
/// | family | delay before attempt r+1 | library schedule |
/// |---|---|---|
/// | `full` | `U[0, x(r)]`, `x(r) = min(cap, 2sb * m^(r-1))` | `full`, base `2sb`, multiplier m |
/// | `floored` | `U[a x(r), x(r)]`, the same `x(r)` | `proportional`, factor `f = (1-a)/(1+a)`, base `2sb / (1+f)`, multiplier m |
/// | `decorrelated` | `min(cap, U[sb, 3 * previous])` | `decorrelated`, base `sb` |
/// | `smooth` | Polly's formula with base `2sb` | `smooth`, base `2sb` |
///
/// `floored` is full jitter with a floor: `a = 0` is `full`, `a = 0.5` is
/// `equal` (both with multiplier m); the library draws it as
/// `proportional`, whose range `[x(1-f), x(1+f)]`, held under the cap, is
/// exactly `[a y, y]` for `y = x(1+f)`.
///
/// ```
/// use staggered_sim::frontier::Family;
///
/// let family: Family = "floored".parse()?;
/// assert!(family.reads_multiplier() && family.reads_floor());
/// assert!(!Family::Smooth.reads_multiplier());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Family {
    /// `full`: full jitter with any multiplier and first interval.
    Full,
    /// `floored`: full jitter with a floor, `U[a x(r), x(r)]`.
    Floored,
    /// `decorrelated`: the AWS Architecture Blog's decorrelated jitter, from
    /// any base.
    Decorrelated,
    /// `smooth`: Polly's decorrelated jitter V2, from any base.
    Smooth,
}

impl Family {
    /// Every family, in this order.
    pub const ALL: [Family; 4] = [Family::Full, Family::Floored, Family::Decorrelated, Family::Smooth];

    /// The name: `full`, `floored`, `decorrelated` or `smooth`.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Full => "full",
            Family::Floored => "floored",
            Family::Decorrelated => "decorrelated",
            Family::Smooth => "smooth",
        }
    }

    /// Whether the family's candidates vary the multiplier m (`full` and
    /// `floored`; the others grow by their own rule).
    pub const fn reads_multiplier(self) -> bool {
        matches!(self, Family::Full | Family::Floored)
    }

    /// Whether the family's candidates vary the floor a (`floored` only).
    pub const fn reads_floor(self) -> bool {
        matches!(self, Family::Floored)
    }
}

impl Named for Family {
    const ALL: &'static [Self] = &Family::ALL;
    const KIND: &'static str = "family";

    fn name(self) -> &'static str {
        Family::name(self)
    }
}

named!(Family);

/// One schedule of a family: its scale s, and its multiplier m and floor a
/// where the family reads them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Candidate {
    /// The family.
    pub family: Family,
    /// The scale s of the experiment's base.
    pub scale: f64,
    /// The multiplier m, for `full` and `floored`.
    pub multiplier: Option<f64>,
    /// The floor a, for `floored`.
    pub floor: Option<f64>,
}

impl Candidate {
    /// A candidate of `family`; `multiplier` and `floor` are dropped where
    /// the family does not read them. Checked when a configuration is built.
    pub fn new(family: Family, scale: f64, multiplier: f64, floor: f64) -> Self {
        Candidate {
            family,
            scale,
            multiplier: family.reads_multiplier().then_some(multiplier),
            floor: family.reads_floor().then_some(floor),
        }
    }

    /// Its name: the family and the parameters it varies, as
    /// `floored(scale 4.5, multiplier 1.5, floor 0.1)`.
    pub fn name(&self) -> String {
        let mut parameters = vec![format!("scale {}", number(self.scale))];
        parameters.extend(self.multiplier.map(|m| format!("multiplier {}", number(m))));
        parameters.extend(self.floor.map(|a| format!("floor {}", number(a))));
        format!("{}({})", self.family, parameters.join(", "))
    }

    /// The first delay's upper end, in time units, for the experiment's
    /// `base`: `2sb`, or `sb` for `decorrelated`.
    pub fn first_ceiling(&self, base: f64) -> f64 {
        match self.family {
            Family::Decorrelated => self.scale * base,
            _ => 2.0 * self.scale * base,
        }
    }

    /// The library schedule its clients walk, from the experiment's `base`
    /// and `cap` in time units, with no attempt limit.
    ///
    /// # Errors
    /// An [`Invalid`] naming `scales`, `multipliers` or `floors` for a
    /// parameter out of its range (a scale must be positive; a multiplier
    /// at least 1; a floor in `[0, 1]`), or `scales` (then `cap` and
    /// `base`) when the first interval is above the cap or the library
    /// refuses the schedule otherwise.
    pub fn backoff(&self, base: f64, cap: f64) -> Result<Backoff, Invalid> {
        let scale = self.scale;
        let positive = format!("invalid scale {}: must be a positive number", number(scale));
        ensure(scale.is_finite() && scale > 0.0, &["scales"], &positive)?;
        let multiplier = self.multiplier.unwrap_or(2.0);
        let at_least_1 =
            format!("invalid multiplier {}: must be a finite number, at least 1", number(multiplier));
        ensure(multiplier.is_finite() && multiplier >= 1.0, &["multipliers"], at_least_1)?;
        let floor = self.floor.unwrap_or(0.0);
        ensure(
            (0.0..=1.0).contains(&floor),
            &["floors"],
            format!("invalid floor {}: must be between 0 and 1", number(floor)),
        )?;
        let first = self.first_ceiling(base);
        let name = self.name();
        let above = format!(
            "invalid scale for {name}: its first interval, {} time units, is above the cap, {}",
            number(first),
            number(cap)
        );
        ensure(first <= cap, &["scales", "cap", "base"], above)?;
        let (strategy, library_base, factor) = match self.family {
            Family::Full => (Strategy::Full, first, None),
            Family::Floored => {
                let factor = (1.0 - floor) / (1.0 + floor);
                (Strategy::Proportional, first / (1.0 + factor), Some(factor))
            }
            Family::Decorrelated => (Strategy::Decorrelated, first, None),
            Family::Smooth => (Strategy::Smooth, first, None),
        };
        let too_large = || Invalid::new(&["scales"], &positive);
        let cap_too_large =
            || Invalid::new(&["cap"], format!("invalid cap {}: too large for a duration", number(cap)));
        let mut builder = Backoff::builder(strategy)
            .with_base(to_duration(library_base).ok_or_else(too_large)?)
            .with_max_delay(to_duration(cap).ok_or_else(cap_too_large)?)
            .with_multiplier(multiplier)
            .without_max_attempts();
        if let Some(factor) = factor {
            builder = builder.with_factor(factor);
        }
        builder.build().map_err(|err| {
            Invalid::new(&["scales", "cap", "base"], format!("invalid schedule for {name}: {err}"))
        })
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::to_units;
    use crate::ContentionStrategy;

    fn delays(backoff: &Backoff, n: usize) -> Vec<f64> {
        backoff.delays_seeded(3).take(n).map(to_units).collect()
    }

    #[test]
    fn scale_one_is_the_published_strategy() {
        for (family, strategy) in [
            (Family::Full, Strategy::Full),
            (Family::Decorrelated, Strategy::Decorrelated),
            (Family::Smooth, Strategy::Smooth),
        ] {
            let candidate = Candidate::new(family, 1.0, 2.0, 0.0);
            let published = ContentionStrategy::Backoff(strategy).backoff(5.0, 2000.0).unwrap();
            assert_eq!(candidate.backoff(5.0, 2000.0).unwrap(), published, "{family}");
        }
    }

    #[test]
    fn floored_draws_between_the_floor_and_the_interval() {
        let candidate = Candidate::new(Family::Floored, 3.0, 1.5, 0.2);
        let backoff = candidate.backoff(5.0, 2000.0).unwrap();
        assert_eq!(backoff.strategy(), Strategy::Proportional);
        let mut saw_floor_region = false;
        for seed in 0..200 {
            let drawn: Vec<f64> = backoff.delays_seeded(seed).take(20).map(to_units).collect();
            for (r, d) in drawn.iter().enumerate() {
                let x = (30.0 * 1.5_f64.powi(r as i32)).min(2000.0);
                assert!(
                    *d >= 0.2 * x * (1.0 - 1e-9) && *d <= x * (1.0 + 1e-9),
                    "retry {}: {d} outside [{}, {x}]",
                    r + 1,
                    0.2 * x
                );
                saw_floor_region |= *d < 0.25 * x;
            }
        }
        assert!(saw_floor_region, "the draws reach down to the floor");
        // A floor of 0 is full jitter; a floor of 1 waits the interval itself.
        let full = Candidate::new(Family::Floored, 1.0, 2.0, 0.0).backoff(5.0, 2000.0).unwrap();
        let exact = Candidate::new(Family::Full, 1.0, 2.0, 0.0).backoff(5.0, 2000.0).unwrap();
        for (a, b) in delays(&full, 12).iter().zip(delays(&exact, 12)) {
            assert!((a - b).abs() <= 1e-6 * b.max(1.0), "{a} vs {b}");
        }
        let exponential = Candidate::new(Family::Floored, 1.0, 2.0, 1.0).backoff(5.0, 2000.0).unwrap();
        assert_eq!(delays(&exponential, 3), [10.0, 20.0, 40.0]);
    }

    #[test]
    fn names_show_what_the_family_varies() {
        assert_eq!(
            Candidate::new(Family::Floored, 4.5, 1.5, 0.1).name(),
            "floored(scale 4.5, multiplier 1.5, floor 0.1)"
        );
        assert_eq!(Candidate::new(Family::Smooth, 2.0, 1.5, 0.1).name(), "smooth(scale 2)");
        assert_eq!(Candidate::new(Family::Full, 1.0, 1.75, 0.3).floor, None);
        for family in Family::ALL {
            assert_eq!(family.name().to_uppercase().parse::<Family>(), Ok(family));
        }
        assert_eq!(
            "mixed".parse::<Family>().unwrap_err().to_string(),
            "unknown family \"mixed\": expected one of full, floored, decorrelated, smooth"
        );
    }

    #[test]
    fn refuses_parameters_out_of_range() {
        let bad = |c: Candidate| c.backoff(5.0, 2000.0).unwrap_err().fields()[0];
        assert_eq!(bad(Candidate::new(Family::Full, 0.0, 2.0, 0.0)), "scales");
        assert_eq!(bad(Candidate::new(Family::Full, 1.0, 0.5, 0.0)), "multipliers");
        assert_eq!(bad(Candidate::new(Family::Floored, 1.0, 2.0, 1.5)), "floors");
        let above = Candidate::new(Family::Full, 300.0, 2.0, 0.0).backoff(5.0, 2000.0).unwrap_err();
        assert_eq!(above.fields(), ["scales", "cap", "base"]);
        // Decorrelated starts at s * b, the others at 2 s b.
        assert!(Candidate::new(Family::Decorrelated, 300.0, 2.0, 0.0).backoff(5.0, 2000.0).is_ok());
        // Parameters a family does not read are not checked.
        assert!(Candidate::new(Family::Smooth, 1.0, 0.5, 7.0).backoff(5.0, 2000.0).is_ok());
    }
}
