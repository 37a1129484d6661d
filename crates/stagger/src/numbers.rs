//! Whole numbers on the command line: counts (`--attempts`, `--runs`) and
//! seeds (`--seed`), parsed so that every message says what is accepted.
//!
//! clap's own integer parser answers `-1` with "-1 is not in
//! 0..=4294967295" (and 0 is then refused as a count) and a seed of `-1`
//! with "invalid digit found in string". These parsers name the real range
//! instead. A count of 0 parses, so that the library's validation refuses it
//! with the same message an option and a `--config` file get.

use staggered::config::AttemptLimit;

/// A count: a whole number from 0 to [`u32::MAX`]; 0 is left to the
/// validation of what it counts, which says it must be at least 1.
///
/// # Errors
/// A message saying what a count is, for anything else.
pub fn count(text: &str) -> Result<u32, String> {
    match whole(text) {
        Whole::Value(n) => u32::try_from(n).map_err(|_| format!("must be at most {}", u32::MAX)),
        Whole::Negative => Err("must be at least 1".to_owned()),
        Whole::TooLarge => Err(format!("must be at most {}", u32::MAX)),
        Whole::NotANumber => Err(format!("must be a whole number from 1 to {}", u32::MAX)),
    }
}

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

/// `--seed`: a whole number from 0 to [`u64::MAX`].
///
/// # Errors
/// A message giving the range, for anything else.
pub fn seed(text: &str) -> Result<u64, String> {
    match whole(text) {
        Whole::Value(n) => Ok(n),
        _ => Err(format!("a seed is a whole number from 0 to {}", u64::MAX)),
    }
}

/// What a piece of text is as a whole number.
enum Whole {
    Value(u64),
    Negative,
    TooLarge,
    NotANumber,
}

/// Reads digits (spaces around them allowed), telling a negative number and
/// one past [`u64::MAX`] from text that is no number at all.
fn whole(text: &str) -> Whole {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Whole::NotANumber;
    }
    if negative {
        return if digits.bytes().all(|b| b == b'0') { Whole::Value(0) } else { Whole::Negative };
    }
    digits.parse().map_or(Whole::TooLarge, Whole::Value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_their_range() {
        assert_eq!(count("5"), Ok(5));
        assert_eq!(count(" 7 "), Ok(7));
        assert_eq!(count("0"), Ok(0), "left to the validation, which says at least 1");
        assert_eq!(count("4294967295"), Ok(u32::MAX));
        assert_eq!(count("-1"), Err("must be at least 1".to_owned()));
        assert_eq!(count("4294967296"), Err("must be at most 4294967295".to_owned()));
        assert_eq!(count("99999999999999999999999"), Err("must be at most 4294967295".to_owned()));
        assert_eq!(count("x"), Err("must be a whole number from 1 to 4294967295".to_owned()));
        assert_eq!(count("1.5").unwrap_err(), "must be a whole number from 1 to 4294967295");
    }

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

    #[test]
    fn seeds_take_every_u64() {
        assert_eq!(seed("0"), Ok(0));
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        for bad in ["-1", "18446744073709551616", "seed", ""] {
            assert_eq!(seed(bad), Err("a seed is a whole number from 0 to 18446744073709551615".to_owned()));
        }
    }
}
