//! The error of loading a configuration: which field, and what is wrong.

use core::fmt;

/// What kind of problem a [`LoadError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// The text is not valid TOML or JSON, or a value has the wrong type or
    /// form (an unknown field, `"1.5 parsecs"`).
    Syntax,
    /// The values are well-formed but break a rule (`multiplier = 0.5`).
    Invalid,
    /// The configuration could not be written (TOML cannot hold a seed past 2^63 - 1).
    Serialize,
    /// The file could not be read.
    Io,
}

/// A configuration could not be loaded, validated or written. The message
/// starts with the field's path, as in
/// `schedule.multiplier: invalid multiplier 0.5: must be at least 1`.
///
/// Every value it quotes is cut to a short prefix (a 1 MB value gives a
/// short message), and, when the error comes from the text, it ends with the
/// line and column of the value at fault ([`line`](LoadError::line)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    kind: LoadErrorKind,
    field: String,
    message: String,
    place: Option<(usize, usize)>,
}

/// The most characters of a value an error quotes.
const QUOTED_CHARS: usize = 40;

/// The most characters of a message, its line and column aside: enough for
/// every message with its values cut, and a bound for a value no quote
/// marks (serde quotes names in backticks, and a name may hold backticks).
const MESSAGE_CHARS: usize = 280;

impl LoadError {
    pub(crate) fn new(kind: LoadErrorKind, field: impl Into<String>, message: impl fmt::Display) -> Self {
        LoadError {
            kind,
            field: short_field(field.into()),
            message: short_message(short_quotes(&message.to_string())),
            place: None,
        }
    }

    /// The same error, found at `line` and `column` of the text.
    pub(crate) fn at(mut self, line: usize, column: usize) -> Self {
        if self.place.is_none() {
            self.message = format!("{} at line {line} column {column}", self.message);
            self.place = Some((line, column));
        }
        self
    }

    /// The same error in a file of several operations: its field in
    /// `operation`'s table (`reports.schedule.base`).
    pub(crate) fn within(mut self, operation: &str) -> Self {
        let field =
            if self.field.is_empty() { operation.to_owned() } else { format!("{operation}.{}", self.field) };
        self.field = short_field(field);
        self
    }

    /// A builder's [`ConfigError`](crate::ConfigError) in `section`: the
    /// field is `section.<the error's field>`.
    pub(crate) fn invalid_value(section: &str, error: &crate::ConfigError) -> Self {
        LoadError::new(LoadErrorKind::Invalid, format!("{section}.{}", error.field()), error)
    }

    /// What kind of problem this is.
    pub const fn kind(&self) -> LoadErrorKind {
        self.kind
    }

    /// The path of the field at fault (`schedule.multiplier`,
    /// `classification.retry_statuses[2]`), empty when no field is (a
    /// syntax error in the middle of the text).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// What is wrong, without the field, with the line and column when the
    /// error comes from the text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The line (from 1) of the value at fault, when the error comes from
    /// the text and the text has the field (a rule may blame a value left
    /// to its default).
    pub fn line(&self) -> Option<usize> {
        self.place.map(|(line, _)| line)
    }

    /// The column (from 1) of the value at fault, with [`line`](LoadError::line).
    pub fn column(&self) -> Option<usize> {
        self.place.map(|(_, column)| column)
    }
}

/// A field's path cut to its first characters: a field is named by the
/// text too (an unknown table, an operation), and a 1 MB name gives a
/// short message.
fn short_field(mut field: String) -> String {
    if let Some((cut, _)) = field.char_indices().nth(2 * QUOTED_CHARS) {
        field.truncate(cut);
        field.push('…');
    }
    field
}

/// `message` cut to its first [`MESSAGE_CHARS`] characters.
fn short_message(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(MESSAGE_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    message
}

/// `message` with every quoted value (in `"` or, as serde quotes names, in
/// `` ` ``) longer than [`QUOTED_CHARS`] cut to its first characters:
/// `"aaaa…" (1048576 characters)`.
fn short_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(512));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = if rest[open..].starts_with('"') { '"' } else { '`' };
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        // The closing quote: the next one not escaped by a backslash.
        let mut close = None;
        let mut escaped = false;
        for (i, c) in rest.char_indices() {
            match c {
                '\\' if quote == '"' && !escaped => escaped = true,
                c if c == quote && !escaped => {
                    close = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(close) = close else {
            out.push_str(rest);
            return out;
        };
        let quoted = &rest[..close];
        let chars = quoted.chars().count();
        if chars > QUOTED_CHARS {
            let cut = quoted.char_indices().nth(QUOTED_CHARS).map_or(quoted.len(), |(i, _)| i);
            out.push_str(&quoted[..cut]);
            out.push_str(&format!("…{quote} ({chars} characters)"));
        } else {
            out.push_str(quoted);
            out.push(quote);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for LoadError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_values_are_cut() {
        let long = "x".repeat(1 << 20);
        let error = LoadError::new(
            LoadErrorKind::Syntax,
            "schedule.base",
            format!("invalid duration \"{long}\": no"),
        );
        assert!(error.message().len() < 120, "{}", error.message());
        assert!(
            error.message().ends_with(&format!("…\" ({} characters): no", 1 << 20)),
            "{}",
            error.message()
        );
        let short = LoadError::new(LoadErrorKind::Syntax, "", "unknown unit \"x\" and \"a\\\"b\"");
        assert_eq!(short.message(), "unknown unit \"x\" and \"a\\\"b\"");
        let open = LoadError::new(LoadErrorKind::Syntax, "", "half \"open");
        assert_eq!(open.message(), "half \"open");
        let name =
            LoadError::new(LoadErrorKind::Syntax, "", format!("unknown variant `{long}`, expected `ratio`"));
        assert!(name.message().ends_with(" characters), expected `ratio`"), "{}", &name.message()[..100]);
    }
}
