//! Whole numbers on the command line: counts (`--attempts`, `--runs`) and
//! seeds (`--seed`), parsed so that every message says what is accepted.
//!
//! clap's own integer parser answers `-1` with "-1 is not in
//! 0..=4294967295" (and 0 is then refused as a count) and a seed of `-1`
//! with "invalid digit found in string". These parsers, the simulator's
//! own for its parameters, name the real range instead. A count of 0
//! parses, so that the library's validation refuses it with the same
//! message an option and a `--config` file get.

use staggered::config::AttemptLimit;
pub use staggered_sim::values::{count, seed};

/// `--attempts`: a [`count`], or `unlimited` as a `--config` file writes it.
///
/// # Errors
/// A message saying what is accepted.
pub fn attempt_limit(text: &str) -> Result<AttemptLimit, String> {
    if text.trim() == "unlimited" {
        return Ok(AttemptLimit::Unlimited);
    }
    count(text).map(AttemptLimit::Count).map_err(|message| format!("{message}, or `unlimited`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_may_be_unlimited() {
        assert_eq!(attempt_limit("unlimited"), Ok(AttemptLimit::Unlimited));
        assert_eq!(attempt_limit("3"), Ok(AttemptLimit::Count(3)));
        assert_eq!(attempt_limit("-1"), Err("must be at least 1, or `unlimited`".to_owned()));
        assert_eq!(
            attempt_limit("many"),
            Err("must be a whole number from 1 to 4294967295, or `unlimited`".to_owned())
        );
    }
}
