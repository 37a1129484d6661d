//! Reading a configuration's text: the shape of each section, and the path
//! and line of every error, whether the format's deserializer finds it or a
//! rule checked afterwards does.

use core::fmt;
use core::marker::PhantomData;
use std::collections::BTreeMap;
use std::path::Path;

use serde::de::{value::MapAccessDeserializer, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::budget::BudgetFields;
use super::hedging::HedgingConfig;
use super::rate_limiter::RateLimiterConfig;
use super::{
    key_path, locate, ClassificationConfig, LimitsConfig, LoadError, LoadErrorKind, RetryConfig,
    ScheduleConfig,
};

/// The formats a configuration is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Toml,
    Json,
}

/// A configuration as read, before its budget section is checked against
/// its `kind`: that needs the whole section, and should still name the
/// field at fault.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default, deserialize_with = "section")]
    schedule: ScheduleConfig,
    #[serde(default, deserialize_with = "section")]
    limits: LimitsConfig,
    #[serde(default, deserialize_with = "section")]
    classification: ClassificationConfig,
    #[serde(default, deserialize_with = "optional_section")]
    budget: Option<BudgetFields>,
    #[serde(default, deserialize_with = "optional_section")]
    rate_limiter: Option<RateLimiterConfig>,
    #[serde(default, deserialize_with = "optional_section")]
    hedging: Option<HedgingConfig>,
}

/// The top level: a table (TOML's always is) or a JSON object, never an
/// array, a string, a number or `null`.
struct TopLevel(RawConfig);

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        section(deserializer).map(TopLevel)
    }
}

/// A file of several operations: a table of configurations by name.
struct Operations(BTreeMap<String, Operation>);

/// One operation's configuration, which must be a table.
struct Operation(RawConfig);

impl<'de> Deserialize<'de> for Operations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        section(deserializer).map(Operations)
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        section(deserializer).map(Operation)
    }
}

impl RawConfig {
    /// The configuration, validated: the budget's parameters against its
    /// kind, then every rule.
    fn into_config(self) -> Result<RetryConfig, LoadError> {
        let budget = self.budget.map(BudgetFields::into_config).transpose().map_err(|(field, message)| {
            LoadError::new(LoadErrorKind::Invalid, format!("budget.{field}"), message)
        })?;
        let config = RetryConfig {
            schedule: self.schedule,
            limits: self.limits,
            classification: self.classification,
            budget,
            rate_limiter: self.rate_limiter,
            hedging: self.hedging,
            built: super::shared::Built::default(),
        };
        config.validate().map(|()| config)
    }
}

/// The text of the file at `path`, and its format: JSON if its name ends in
/// `.json`, TOML otherwise.
pub(super) fn file(path: &Path) -> Result<(String, Format), LoadError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        LoadError::new(LoadErrorKind::Io, "", format_args!("cannot read {}: {error}", path.display()))
    })?;
    let json = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
    Ok((text, if json { Format::Json } else { Format::Toml }))
}

/// Reads and validates `text` in `format`.
pub(super) fn read(text: &str, format: Format) -> Result<RetryConfig, LoadError> {
    let TopLevel(raw) = deserialize(text, format)?;
    raw.into_config().map_err(|error| at_its_field(error, text, format, None))
}

/// Reads and validates a file of several operations, `text` in `format`:
/// every error names its operation first (`reports.schedule.base`).
pub(super) fn read_operations(
    text: &str,
    format: Format,
) -> Result<BTreeMap<String, RetryConfig>, LoadError> {
    let Operations(operations) = deserialize(text, format)?;
    operations
        .into_iter()
        .map(|(name, Operation(raw))| match raw.into_config() {
            Ok(config) => Ok((name, config)),
            Err(error) => Err(at_its_field(error, text, format, Some(&name)).within(&name)),
        })
        .collect()
}

/// Reads `T` from `text` in `format`; an error names the field at fault,
/// as its path from the top, with its line.
fn deserialize<T: DeserializeOwned>(text: &str, format: Format) -> Result<T, LoadError> {
    match format {
        Format::Toml => {
            let deserializer =
                toml::Deserializer::parse(text).map_err(|error| toml_parse_error(&error, text))?;
            serde_path_to_error::deserialize(deserializer)
                .map_err(|error| toml_error(&error.path().to_string(), error.inner(), text))
        }
        Format::Json => {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                let field = error.path().to_string();
                let field = if field == "." || field == "?" { String::new() } else { field };
                json_error(&field, error.inner())
            })?;
            deserializer.end().map_err(|error| json_error("", &error))?;
            Ok(value)
        }
    }
}

/// `error`, with the line and column of its field's value in `text` (in
/// `operation`'s table, in a file of several), when the text has the
/// field (a rule may blame a default).
fn at_its_field(error: LoadError, text: &str, format: Format, operation: Option<&str>) -> LoadError {
    let place = match format {
        Format::Toml => locate::in_toml(text, operation, error.field()),
        Format::Json => locate::in_json(text, operation, error.field()),
    };
    match place {
        Some((line, column)) => error.at(line, column),
        None => error,
    }
}

/// An error of the TOML parser, which reads the whole text before any
/// field: the key at its place, if one is there (a key given twice, a
/// value nested too deep), is its field.
fn toml_parse_error(error: &toml::de::Error, text: &str) -> LoadError {
    let field = error.span().and_then(|span| key_path::at(text, span.start)).unwrap_or_default();
    toml_error(&field, error, text)
}

/// A TOML error at `field`, with its line and column.
fn toml_error(field: &str, error: &toml::de::Error, text: &str) -> LoadError {
    let loaded = LoadError::new(LoadErrorKind::Syntax, field, error.message().trim_end());
    match error.span() {
        Some(span) => {
            let (line, column) = locate::line_column(text, span.start);
            loaded.at(line, column)
        }
        None => loaded,
    }
}

/// A JSON error at `field`, with its line and column.
fn json_error(field: &str, error: &serde_json::Error) -> LoadError {
    // serde_json's message ends in " at line L column C": keep the message
    // and the place apart.
    let text = error.to_string();
    let message = text.rsplit_once(" at line ").map_or(text.as_str(), |(message, _)| message);
    // A field given twice is reported at its table: name the field.
    let twice = message.strip_prefix("duplicate field `").and_then(|rest| rest.strip_suffix('`'));
    let field = match twice {
        Some(key) if field.is_empty() => key.to_owned(),
        Some(key) => format!("{field}.{key}"),
        None => field.to_owned(),
    };
    let loaded = LoadError::new(LoadErrorKind::Syntax, field, message);
    match error.line() {
        0 => loaded,
        line => loaded.at(line, error.column()),
    }
}

/// A section, which must be a table: without this, serde would also take a
/// list (`schedule = []`) as a section with every field left out.
pub(super) fn section<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(Table(PhantomData))
}

/// A section that may be left out, but if given is a table.
pub(super) fn optional_section<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    section(deserializer).map(Some)
}

/// Reads a table as `T`.
struct Table<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Table<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table of settings (`{ ... }` in JSON)")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }
}
