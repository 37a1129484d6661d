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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    kind: LoadErrorKind,
    field: String,
    message: String,
}

impl LoadError {
    pub(crate) fn new(kind: LoadErrorKind, field: impl Into<String>, message: impl fmt::Display) -> Self {
        LoadError { kind, field: field.into(), message: message.to_string() }
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

    /// What is wrong, without the field.
    pub fn message(&self) -> &str {
        &self.message
    }
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
