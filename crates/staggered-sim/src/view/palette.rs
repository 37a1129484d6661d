//! The color of each strategy and policy, fixed by its name: `decorrelated`
//! is the same red in every chart, whatever order `--strategy` lists it in.

use super::Color;

/// How many colors the palette has; [`Color::Series`] repeats past them.
pub const PALETTE_LEN: usize = 10;

/// Each name a chart draws as a series, and its palette color: the
/// renderer's blue, orange, red, teal, green, yellow, purple, pink, brown
/// and grey are 0 to 9. The strong colors go to the strategies most often
/// drawn together (the guide's comparison, the contention experiment) and
/// to those drawn alone (`additive` in the chapter on the cap); grey is
/// for no backoff (`none`, the contention experiment's) and no retry;
/// yellow is left to what is not a strategy (the frontier's target).
/// `floored`, the frontier search's family, is equal jitter's (equal is
/// floored at half the interval), and never drawn with it as a series.
/// Policies are never drawn with strategies, so they reuse the palette: a
/// budget's color says nothing about a strategy's.
const NAMED: [(&str, usize); 16] = [
    ("full", 0),
    ("equal", 1),
    ("decorrelated", 2),
    ("smooth", 3),
    ("exponential", 4),
    ("proportional", 6),
    ("constant", 7),
    ("additive", 8),
    ("none", 9),
    ("floored", 1),
    ("retry+token-bucket", 0),
    ("retry+ratio", 1),
    ("retry", 2),
    ("retry+throttle", 6),
    ("adaptive", 4),
    ("no-retry", 9),
];

/// The palette color of the strategy or policy `name`, the same in every
/// chart. A name this table does not know (a policy added since) gets one
/// from its letters: the same in every chart too, but it may be another
/// name's, so a new series should be added to the table.
///
/// ```
/// use staggered_sim::view::{palette_color, Color};
///
/// assert_eq!(palette_color("decorrelated"), palette_color("decorrelated"));
/// assert_ne!(palette_color("full"), palette_color("equal"));
/// assert_eq!(Color::of("full"), Color::Series(palette_color("full")));
/// ```
pub fn palette_color(name: &str) -> usize {
    match NAMED.iter().find(|(known, _)| *known == name) {
        Some(&(_, color)) => color,
        None => (fnv1a(name) % PALETTE_LEN as u64) as usize,
    }
}

impl Color {
    /// The line color of the strategy or policy `name`: its
    /// [`palette_color`].
    pub fn of(name: &str) -> Color {
        Color::Series(palette_color(name))
    }
}

/// The 64-bit FNV-1a hash of `text`: a fixed function of its bytes, the
/// same on every machine and in every release (unlike the standard
/// library's hasher, which may change).
fn fnv1a(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::Family;
    use crate::ContentionStrategy;
    use staggered::Strategy;

    /// Whether the names have a color each from the table, no two alike.
    fn distinct(names: &[&str]) -> bool {
        let colors: Vec<usize> = names.iter().map(|name| palette_color(name)).collect();
        let known = names.iter().all(|name| NAMED.iter().any(|(n, _)| n == name));
        known && (1..colors.len()).all(|i| !colors[..i].contains(&colors[i]))
    }

    #[test]
    fn every_strategy_and_policy_has_its_own_color() {
        let mut strategies: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        strategies.push(ContentionStrategy::NoBackoff.name());
        assert!(distinct(&strategies), "{strategies:?}");
        let families = Family::ALL.map(Family::name);
        assert!(distinct(&families), "{families:?}");
        assert_eq!(palette_color("floored"), palette_color("equal"), "equal jitter's family");
        let policies =
            ["no-retry", "retry", "retry+token-bucket", "retry+ratio", "retry+throttle", "adaptive"];
        assert!(distinct(&policies));
        assert!(NAMED.iter().all(|&(_, color)| color < PALETTE_LEN));
    }

    #[test]
    fn an_unknown_name_gets_a_fixed_color_from_its_letters() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c, "the published FNV-1a test vector");
        let color = palette_color("hedge+learned");
        assert!(color < PALETTE_LEN);
        assert_eq!(palette_color("hedge+learned"), color);
        assert_eq!(Color::of("full"), Color::Series(0));
    }
}
