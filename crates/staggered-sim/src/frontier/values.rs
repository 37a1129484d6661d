//! Lists of parameter values as people write them: `1,1.5,2` or a range
//! `1..3/0.5`.

use std::fmt;

/// The most values one list may hold.
pub const MAX_VALUES: usize = 1000;

/// Why a list of values did not parse. The caller names the parameter, so
/// the messages say only what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValuesError {
    /// Nothing was given, or an item between commas is empty.
    Empty,
    /// An item is not a number or `FROM..TO/STEP`.
    Malformed(String),
    /// A range counts down.
    Descending(String),
    /// A range's step is not positive.
    Step(String),
    /// The list holds more than [`MAX_VALUES`] values.
    TooMany,
}

impl fmt::Display for ValuesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "expected numbers and ranges such as 2, 1,1.5,2 or 1..3/0.5";
        match self {
            ValuesError::Empty => write!(f, "empty list item: {EXPECTED}"),
            ValuesError::Malformed(item) => write!(f, "{item:?} is not a number or a range: {EXPECTED}"),
            ValuesError::Descending(item) => write!(f, "range {item} counts down: FROM must not exceed TO"),
            ValuesError::Step(item) => write!(f, "range {item} needs a positive step, such as 1..3/0.5"),
            ValuesError::TooMany => write!(f, "more than {MAX_VALUES} values"),
        }
    }
}

impl std::error::Error for ValuesError {}

/// Parses a list of values: comma-separated items, each a finite number or
/// a range `FROM..TO/STEP` that runs from FROM up to TO, both included
/// (`1..3/0.5` is 1, 1.5, 2, 2.5, 3). Range values are computed as
/// `FROM + k * STEP` and rounded to 12 significant digits, so they print as
/// written; TO is included when it is within a millionth of a step of the
/// last value. The order is kept; whether the values fit the parameter is
/// checked by the configuration.
///
/// ```
/// use staggered_sim::frontier::parse_values;
///
/// assert_eq!(parse_values("1..2/0.25")?, [1.0, 1.25, 1.5, 1.75, 2.0]);
/// assert_eq!(parse_values("0.1..0.3/0.1, 2")?, [0.1, 0.2, 0.3, 2.0]);
/// assert!(parse_values("3..1/1").is_err());
/// # Ok::<(), staggered_sim::frontier::ValuesError>(())
/// ```
///
/// # Errors
/// A [`ValuesError`] for an empty, malformed, descending, zero-step or too
/// long list. It never panics.
pub fn parse_values(text: &str) -> Result<Vec<f64>, ValuesError> {
    let mut values = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(ValuesError::Empty);
        }
        let number = |text: &str| match text.trim().parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(ValuesError::Malformed(item.to_owned())),
        };
        let Some((from, rest)) = item.split_once("..") else {
            values.push(number(item)?);
            continue;
        };
        let (to, step) = rest.split_once('/').map_or((rest, None), |(to, step)| (to, Some(step)));
        let (from, to) = (number(from)?, number(to)?);
        let step = number(step.ok_or_else(|| ValuesError::Step(item.to_owned()))?)?;
        if from > to {
            return Err(ValuesError::Descending(item.to_owned()));
        }
        if step <= 0.0 {
            return Err(ValuesError::Step(item.to_owned()));
        }
        let steps = ((to - from) / step + 1e-6).floor();
        if !steps.is_finite() || values.len() as f64 + steps + 1.0 > MAX_VALUES as f64 {
            return Err(ValuesError::TooMany);
        }
        values.extend((0..=steps as usize).map(|k| round12(from + k as f64 * step)));
    }
    if values.len() > MAX_VALUES {
        return Err(ValuesError::TooMany);
    }
    Ok(values)
}

/// `value` rounded to 12 significant digits: `0.1 + 2 * 0.1` is `0.3`.
fn round12(value: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    format!("{value:.11e}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_ranges() {
        assert_eq!(parse_values("2"), Ok(vec![2.0]));
        assert_eq!(parse_values(" 1 , 1.5 ,2"), Ok(vec![1.0, 1.5, 2.0]));
        assert_eq!(parse_values("1..3/0.5"), Ok(vec![1.0, 1.5, 2.0, 2.5, 3.0]));
        assert_eq!(parse_values("0..0.3/0.1"), Ok(vec![0.0, 0.1, 0.2, 0.3]));
        assert_eq!(parse_values("1..1.9/0.5"), Ok(vec![1.0, 1.5]), "TO is a bound, not a value");
        assert_eq!(parse_values("2..2/1"), Ok(vec![2.0]));
        assert_eq!(parse_values("-1,1e-3"), Ok(vec![-1.0, 0.001]), "the configuration judges the range");
        assert_eq!(parse_values("0..999/1").map(|v| v.len()), Ok(MAX_VALUES));
    }

    #[test]
    fn bad_lists_say_what_is_wrong() {
        assert_eq!(parse_values(""), Err(ValuesError::Empty));
        assert_eq!(parse_values("1,,2"), Err(ValuesError::Empty));
        for garbage in ["x", "1..", "..3/1", "1..3/x", "NaN", "inf", "1..2..3/1"] {
            assert!(matches!(parse_values(garbage), Err(ValuesError::Malformed(_))), "{garbage}");
        }
        assert_eq!(parse_values("1..3"), Err(ValuesError::Step("1..3".into())));
        assert_eq!(parse_values("1..3/0"), Err(ValuesError::Step("1..3/0".into())));
        assert_eq!(parse_values("1..3/-1"), Err(ValuesError::Step("1..3/-1".into())));
        assert_eq!(parse_values("3..1/1"), Err(ValuesError::Descending("3..1/1".into())));
        assert_eq!(parse_values("0..1e300/1e-300"), Err(ValuesError::TooMany));
        assert_eq!(parse_values("0..1000/1"), Err(ValuesError::TooMany));
        assert_eq!(
            parse_values("3..1/1").unwrap_err().to_string(),
            "range 3..1/1 counts down: FROM must not exceed TO"
        );
    }
}
