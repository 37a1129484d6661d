//! staggered, once per jitter shape that a peer uses, and the same
//! configurations run through [`crate::sketch`].

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use staggered::{CapMode, Delays, Strategy};

use super::{Contender, Info, Role, Shape, BASE, DELAYS_PER_SEQUENCE, MAX_DELAY, MULTIPLIER};
use crate::sketch::{SketchBackoff, SketchDelays};

/// The staggered configuration for `shape`, and the row describing it.
/// Where the peer caps the interval rather than the delay (backon, backoff),
/// [`CapMode::Interval`] gives the very same distribution.
fn configure(shape: Shape, role: Role) -> (staggered::Backoff, Info) {
    let (strategy, factor, cap_mode, slug, jitter) = match (shape, role) {
        (Shape::Full, Role::Sketch) => (Strategy::Full, 0.0, CapMode::Delay, "sketch-full", "full: U[0, x]"),
        (Shape::Full, _) => (Strategy::Full, 0.0, CapMode::Delay, "staggered-full", "full: U[0, x]"),
        (Shape::Additive, role) => (
            Strategy::Additive,
            1.0,
            CapMode::Interval,
            if role == Role::Sketch { "sketch-additive" } else { "staggered-additive" },
            "additive f=1, cap on x: x + U[0, x]",
        ),
        (Shape::Proportional, role) => (
            Strategy::Proportional,
            0.5,
            CapMode::Interval,
            if role == Role::Sketch { "sketch-proportional" } else { "staggered-proportional" },
            "proportional f=0.5, cap on x: U[x/2, 3x/2]",
        ),
    };
    let attempts = DELAYS_PER_SEQUENCE as u32 + 1;
    let backoff = staggered::Backoff::builder(strategy)
        .with_base(black_box(BASE))
        .with_multiplier(black_box(f64::from(MULTIPLIER)))
        .with_max_delay(black_box(MAX_DELAY))
        .with_factor(black_box(factor))
        .with_cap_mode(cap_mode)
        .with_max_attempts(black_box(attempts))
        .build()
        .expect("a valid configuration");
    let info = Info {
        name: if role == Role::Sketch { "sketch" } else { "staggered" },
        slug,
        role,
        shape,
        jitter,
        per_sequence: "fresh iterator, entropy-seeded: backoff.delays()",
        clamped: cap_mode == CapMode::Delay,
    };
    (backoff, info)
}

/// staggered with the strategy matching `shape`.
#[derive(Debug)]
pub struct Staggered {
    info: Info,
    backoff: staggered::Backoff,
    delays: Delays,
}

impl Staggered {
    /// The schedule for `shape`.
    ///
    /// # Panics
    /// Never for the constants of this module: they are a valid configuration.
    pub fn new(shape: Shape) -> Self {
        let (backoff, info) = configure(shape, Role::Staggered);
        Staggered { info, delays: backoff.delays(), backoff }
    }
}

impl Contender for Staggered {
    type Output = Option<Duration>;

    fn info(&self) -> Info {
        self.info
    }

    #[inline]
    fn start(&mut self) {
        self.delays = self.backoff.delays();
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        self.delays.next()
    }

    fn delay(output: &Option<Duration>, _: SystemTime) -> Option<Duration> {
        *output
    }
}

/// The same configuration as [`Staggered`], run through [`crate::sketch`].
#[derive(Debug)]
pub struct Sketch {
    info: Info,
    backoff: SketchBackoff,
    delays: SketchDelays,
}

impl Sketch {
    /// The sketched schedule for `shape`.
    ///
    /// # Panics
    /// Never: every shape here is a linear strategy, which the sketch covers.
    pub fn new(shape: Shape) -> Self {
        let (backoff, info) = configure(shape, Role::Sketch);
        let backoff = SketchBackoff::from_backoff(&backoff).expect("a linear strategy");
        Sketch { info, delays: backoff.delays(), backoff }
    }
}

impl Contender for Sketch {
    type Output = Option<Duration>;

    fn info(&self) -> Info {
        self.info
    }

    #[inline]
    fn start(&mut self) {
        self.delays = self.backoff.delays();
    }

    #[inline]
    fn next_delay(&mut self) -> Option<Duration> {
        self.delays.next()
    }

    fn delay(output: &Option<Duration>, _: SystemTime) -> Option<Duration> {
        *output
    }
}
