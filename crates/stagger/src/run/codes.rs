//! Exit codes on the command line (`--retry-on-exit 1,2,75-78`), and in a
//! `--config` file's `classification` section. Which of them are worth
//! retrying is the library's rule
//! ([`ClassificationConfig::exit_code_kind`](staggered::config::ClassificationConfig::exit_code_kind)),
//! as for a file.

use std::fmt;

/// A set of exit codes, 0 to 255.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitCodes([u64; 4]);

impl ExitCodes {
    /// No code.
    pub const EMPTY: ExitCodes = ExitCodes([0; 4]);

    /// Adds `code`.
    pub fn insert(&mut self, code: u8) {
        self.0[usize::from(code / 64)] |= 1 << (code % 64);
    }

    /// Whether `code` is in the set.
    pub const fn contains(&self, code: u8) -> bool {
        self.0[(code / 64) as usize] & (1 << (code % 64)) != 0
    }

    /// The codes in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=u8::MAX).filter(|&code| self.contains(code))
    }
}

impl fmt::Debug for ExitCodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ExitCodes({self})")
    }
}

/// Writes the set as it would be typed: `1,2,75-78`.
impl fmt::Display for ExitCodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut codes = self.iter().peekable();
        let mut first = true;
        while let Some(start) = codes.next() {
            let mut end = start;
            while codes.next_if(|&next| u16::from(next) == u16::from(end) + 1).is_some() {
                end += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if start == end {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{end}")?;
            }
        }
        Ok(())
    }
}

/// Why a list of exit codes did not parse. Clap names the option and the
/// text, so the messages say only what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodesError {
    /// An empty list, or an empty item (`1,,2`).
    Empty,
    /// An item that is not a number or a range, such as `x` or `1-2-3`.
    NotACode(String),
    /// A number past 255.
    OutOfRange(String),
    /// A range whose start is after its end, such as `9-3`.
    Backwards(u8, u8),
}

impl fmt::Display for CodesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "expected exit codes and ranges separated by commas, such as 1,2,75-78";
        match self {
            CodesError::Empty => write!(f, "empty exit code: {EXPECTED}"),
            CodesError::NotACode(item) => write!(f, "'{item}' is not an exit code: {EXPECTED}"),
            CodesError::OutOfRange(item) => {
                write!(f, "exit code {item} is out of range: exit codes are 0 to 255")
            }
            CodesError::Backwards(start, end) => {
                write!(f, "the range {start}-{end} is backwards: write {end}-{start}")
            }
        }
    }
}

impl std::error::Error for CodesError {}

/// Parses a comma list of exit codes and inclusive ranges: `3`, `1,2`,
/// `75-78`, `1,2,75-78`. Spaces around items are allowed.
///
/// # Errors
/// A [`CodesError`] for an empty item, a non-number, a code past 255 or a
/// backwards range. It never panics.
pub fn parse(text: &str) -> Result<ExitCodes, CodesError> {
    let mut codes = ExitCodes::EMPTY;
    for item in text.split(',').map(str::trim) {
        let (start, end) = match item.split_once('-') {
            Some((start, end)) => (code(start.trim(), item)?, code(end.trim(), item)?),
            None => {
                let single = code(item, item)?;
                (single, single)
            }
        };
        if start > end {
            return Err(CodesError::Backwards(start, end));
        }
        for code in start..=end {
            codes.insert(code);
        }
    }
    Ok(codes)
}

/// One exit code of `item`.
fn code(text: &str, item: &str) -> Result<u8, CodesError> {
    if text.is_empty() {
        return Err(if item.is_empty() { CodesError::Empty } else { CodesError::NotACode(item.to_owned()) });
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CodesError::NotACode(item.to_owned()));
    }
    text.parse::<u8>().map_err(|_| CodesError::OutOfRange(text.to_owned()))
}

impl ExitCodes {
    /// The non-zero codes, as the library's exit-code lists hold them (0 is
    /// a success, never retried nor stopped on).
    pub fn to_list(self) -> Vec<i32> {
        self.iter().filter(|&code| code != 0).map(i32::from).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(codes: &[u8]) -> ExitCodes {
        let mut set = ExitCodes::EMPTY;
        codes.iter().for_each(|&code| set.insert(code));
        set
    }

    #[test]
    fn parses_codes_and_ranges() {
        assert_eq!(parse("3"), Ok(set(&[3])));
        assert_eq!(parse("1,2,75-78"), Ok(set(&[1, 2, 75, 76, 77, 78])));
        assert_eq!(parse(" 1 , 7 - 8 "), Ok(set(&[1, 7, 8])));
        assert_eq!(parse("0-255"), Ok(set(&(0..=255).collect::<Vec<u8>>())));
        assert_eq!(parse("5-5,5"), Ok(set(&[5])));
        assert_eq!(parse("007"), Ok(set(&[7])));
    }

    #[test]
    fn rejects_bad_lists_without_panicking() {
        let cases = [
            ("", CodesError::Empty),
            ("1,,2", CodesError::Empty),
            ("1,", CodesError::Empty),
            ("x", CodesError::NotACode("x".into())),
            ("-1", CodesError::NotACode("-1".into())),
            ("1-", CodesError::NotACode("1-".into())),
            ("1-2-3", CodesError::NotACode("1-2-3".into())),
            ("+1", CodesError::NotACode("+1".into())),
            ("1.5", CodesError::NotACode("1.5".into())),
            ("300", CodesError::OutOfRange("300".into())),
            ("1-256", CodesError::OutOfRange("256".into())),
            ("99999999999999999999999", CodesError::OutOfRange("99999999999999999999999".into())),
            ("9-3", CodesError::Backwards(9, 3)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), Err(expected), "{text}");
        }
    }

    #[test]
    fn errors_say_what_is_expected() {
        assert_eq!(
            parse("300").unwrap_err().to_string(),
            "exit code 300 is out of range: exit codes are 0 to 255"
        );
        assert!(parse("x").unwrap_err().to_string().contains("1,2,75-78"));
        assert_eq!(parse("9-3").unwrap_err().to_string(), "the range 9-3 is backwards: write 3-9");
    }

    #[test]
    fn displays_as_typed() {
        assert_eq!(parse("78,1,2,75-77,255").unwrap().to_string(), "1-2,75-78,255");
        assert_eq!(parse("0-255").unwrap().to_string(), "0-255");
        assert_eq!(ExitCodes::EMPTY.to_string(), "");
    }

    #[test]
    fn lists_leave_out_success() {
        assert_eq!(parse("0-2,75").unwrap().to_list(), [1, 2, 75]);
        assert_eq!(ExitCodes::EMPTY.to_list(), Vec::<i32>::new());
    }

    proptest! {
        #[test]
        fn display_round_trips(codes in proptest::collection::vec(any::<u8>(), 1..40)) {
            let set = set(&codes);
            prop_assert_eq!(parse(&set.to_string()), Ok(set));
        }

        #[test]
        fn parse_never_panics(text in "[0-9, \\-a-z]{0,24}") {
            let _ = parse(&text);
        }
    }
}
