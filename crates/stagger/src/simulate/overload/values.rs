//! The value parsers of the overload flags that are not plain numbers or
//! durations: rates, probabilities and shares, the trigger's window and its
//! capacity. Each checks what it can alone (a rate above 0, a window that
//! starts before it ends); the simulator checks the rest.

use std::time::Duration;

use crate::duration;

/// `--trigger`: when the server loses capacity, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerWindow {
    /// `none`: the server keeps its capacity.
    None,
    /// `START..END`, since the run began; `start < end`.
    Between(Duration, Duration),
}

/// `--trigger-capacity`: the capacity during the trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TriggerCapacity {
    /// Requests per second (`500`, `500/s`).
    Rate(f64),
    /// A share of `--capacity` (`0.5x`, `50%`).
    Share(f64),
}

impl TriggerCapacity {
    /// The share of `capacity` (requests per second) that this leaves.
    pub fn share_of(self, capacity: f64) -> f64 {
        match self {
            TriggerCapacity::Rate(rate) => rate / capacity,
            TriggerCapacity::Share(share) => share,
        }
    }
}

/// A rate in requests per second: a number, optionally followed by `/s`
/// (`700`, `700/s`), finite and above 0.
pub fn rate(text: &str) -> Result<f64, String> {
    let number = text.trim().strip_suffix("/s").unwrap_or(text.trim());
    match parse_number(number) {
        Some(rate) if rate > 0.0 => Ok(rate),
        Some(_) => Err("the rate must be above 0 requests per second".to_owned()),
        None => Err("expected requests per second, such as 700 or 700/s".to_owned()),
    }
}

/// A probability: a number from 0 to 1 (`0.01`) or a percentage from 0% to
/// 100% (`1%`).
pub fn probability(text: &str) -> Result<f64, String> {
    match fraction(text) {
        Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Some(_) => Err("must be between 0 and 1 (0% and 100%)".to_owned()),
        None => Err("expected a fraction such as 0.05 or a percentage such as 5%".to_owned()),
    }
}

/// A share that may exceed 1: a number (`0.2`) or a percentage (`20%`),
/// finite and at least 0.
pub fn share(text: &str) -> Result<f64, String> {
    match fraction(text) {
        Some(s) if s >= 0.0 => Ok(s),
        Some(_) => Err("must be at least 0".to_owned()),
        None => Err("expected a fraction such as 0.2 or a percentage such as 20%".to_owned()),
    }
}

/// `START..END` with two durations (`10s..15s`), START before END; or `none`.
pub fn trigger_window(text: &str) -> Result<TriggerWindow, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(TriggerWindow::None);
    }
    let Some((start, end)) = text.split_once("..") else {
        return Err("expected START..END, such as 10s..15s, or none".to_owned());
    };
    let start = duration::parse(start.trim()).map_err(|err| format!("the start: {err}"))?;
    let end = duration::parse(end.trim()).map_err(|err| format!("the end: {err}"))?;
    if start >= end {
        let (start, end) = (duration::format(start), duration::format(end));
        return Err(format!("the trigger must start before it ends: {start} is not before {end}"));
    }
    Ok(TriggerWindow::Between(start, end))
}

/// A rate (`500`, `500/s`) or a share (`0.5x`, `50%`), above 0.
pub fn trigger_capacity(text: &str) -> Result<TriggerCapacity, String> {
    let text = text.trim();
    let parsed = if text.ends_with('x') || text.ends_with('%') {
        fraction(text.strip_suffix('x').unwrap_or(text)).map(|share| (TriggerCapacity::Share(share), share))
    } else {
        parse_number(text.strip_suffix("/s").unwrap_or(text)).map(|rate| (TriggerCapacity::Rate(rate), rate))
    };
    match parsed {
        Some((capacity, value)) if value > 0.0 => Ok(capacity),
        Some(_) => Err("the capacity must be above 0".to_owned()),
        None => Err("expected a rate such as 500/s or a share of --capacity such as 0.5x or 50%".to_owned()),
    }
}

/// A finite number (`0.5`), or a percentage (`50%`) as a fraction.
fn fraction(text: &str) -> Option<f64> {
    let text = text.trim();
    match text.strip_suffix('%') {
        Some(percent) => parse_number(percent).map(|p| p / 100.0),
        None => parse_number(text),
    }
}

/// A finite decimal number, sign and exponent allowed; not `inf` or `NaN`.
fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_parsers_say_what_is_wrong() {
        assert_eq!((rate("700"), rate(" 2.5e3/s ")), (Ok(700.0), Ok(2500.0)));
        assert_eq!(rate("0").unwrap_err(), "the rate must be above 0 requests per second");
        for bad in ["-1", "abc", "700/min", "inf", "NaN", "", "/s"] {
            assert!(rate(bad).is_err(), "{bad}");
        }
        assert_eq!((probability("1%"), probability("100%"), share("3")), (Ok(0.01), Ok(1.0), Ok(3.0)));
        assert_eq!(probability("2").unwrap_err(), "must be between 0 and 1 (0% and 100%)");
        for bad in ["-0.1", "101%", "x", "NaN", "%"] {
            assert!(probability(bad).is_err(), "{bad}");
        }
        assert!(share("-1").is_err());
        let s = Duration::from_secs;
        assert_eq!(trigger_window("10s..15s"), Ok(TriggerWindow::Between(s(10), s(15))));
        assert_eq!(trigger_window("None"), Ok(TriggerWindow::None));
        assert_eq!(
            trigger_window("15s..10s").unwrap_err(),
            "the trigger must start before it ends: 15s is not before 10s"
        );
        assert!(trigger_window("10s").unwrap_err().contains("START..END"));
        assert!(trigger_window("10..15s").unwrap_err().starts_with("the start: missing unit"));
        assert_eq!(trigger_capacity("500/s"), Ok(TriggerCapacity::Rate(500.0)));
        assert_eq!(trigger_capacity("50%"), Ok(TriggerCapacity::Share(0.5)));
        assert_eq!(trigger_capacity("0x").unwrap_err(), "the capacity must be above 0");
        for bad in ["0", "-5", "x", "half", "NaNx"] {
            assert!(trigger_capacity(bad).is_err(), "{bad}");
        }
        assert_eq!(TriggerCapacity::Rate(250.0).share_of(1000.0), 0.25);
    }
}
