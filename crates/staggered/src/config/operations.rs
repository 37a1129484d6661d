//! Files of several operations: one table per operation, each a whole
//! [`RetryConfig`], read and validated together.

use std::collections::BTreeMap;
use std::path::Path;

use super::{read, LoadError, RetryConfig};

impl RetryConfig {
    /// Reads and validates a TOML file of several operations: each top-level
    /// table is one operation's configuration, by its name.
    ///
    /// ```
    /// use staggered::config::RetryConfig;
    ///
    /// let operations = RetryConfig::operations_from_toml_str(r#"
    ///     [reports.schedule]
    ///     preset = "interactive"
    ///
    ///     [uploads.limits]
    ///     deadline = "30s"
    ///     [uploads.budget]
    ///     kind = "token_bucket"
    /// "#)?;
    /// let reports = operations["reports"].policy()?;
    /// # let _ = reports;
    ///
    /// // Every error names the operation, the field and its line.
    /// let err = RetryConfig::operations_from_toml_str(
    ///     "[reports.schedule]\npreset = \"interactive\"\nbase = \"1h\"",
    /// )
    /// .unwrap_err();
    /// assert_eq!((err.field(), err.line()), ("reports.schedule.base", Some(3)));
    /// # Ok::<(), staggered::config::LoadError>(())
    /// ```
    ///
    /// # Errors
    /// A [`LoadError`] naming the operation, the field at fault and its line.
    pub fn operations_from_toml_str(text: &str) -> Result<BTreeMap<String, RetryConfig>, LoadError> {
        read::read_operations(text, read::Format::Toml)
    }

    /// Reads and validates a JSON file of several operations: an object of
    /// configurations by name.
    ///
    /// # Errors
    /// A [`LoadError`] naming the operation, the field at fault and its line.
    pub fn operations_from_json_str(text: &str) -> Result<BTreeMap<String, RetryConfig>, LoadError> {
        read::read_operations(text, read::Format::Json)
    }

    /// Reads and validates a file of several operations: JSON if its name
    /// ends in `.json`, TOML otherwise.
    ///
    /// # Errors
    /// A [`LoadError`] if the file cannot be read, or as the `operations_from_*_str` functions.
    pub fn operations_from_path(path: impl AsRef<Path>) -> Result<BTreeMap<String, RetryConfig>, LoadError> {
        let (text, format) = read::file(path.as_ref())?;
        read::read_operations(&text, format)
    }
}
