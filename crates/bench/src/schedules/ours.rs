//! staggered, once per jitter shape that a peer uses.

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use staggered::{CapMode, Delays, Strategy};

use super::{Contender, Info, Role, Shape, BASE, DELAYS_PER_SEQUENCE, MAX_DELAY, MULTIPLIER};

/// The staggered configuration for `shape`, and the row describing it.
/// Where the peer caps the interval rather than the delay (backon, backoff),
/// [`CapMode::Interval`] gives the very same distribution.
fn configure(shape: Shape) -> (staggered::Backoff, Info) {
    let (strategy, factor, cap_mode, slug, jitter) = match shape {
        Shape::Full => (Strategy::Full, 0.0, CapMode::Delay, "staggered-full", "full: U[0, x]"),
        Shape::Additive => (
            Strategy::Additive,
            1.0,
            CapMode::Interval,
            "staggered-additive",
            "additive f=1, cap on x: x + U[0, x]",
        ),
        Shape::Proportional => (
            Strategy::Proportional,
            0.5,
            CapMode::Interval,
            "staggered-proportional",
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
        name: "staggered",
        slug,
        role: Role::Staggered,
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
        let (backoff, info) = configure(shape);
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
