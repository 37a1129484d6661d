//! Reading a configuration's text: the shape of each section, and the path
//! and line of every error, whether the format's deserializer finds it or a
//! rule checked afterwards does.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::budget::BudgetFields;
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
}

/// The top level: a table (TOML's always is) or a JSON object, never an
/// array, a string, a number or `null`.
struct TopLevel(RawConfig);

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        section(deserializer).map(TopLevel)
    }
}

/// Reads and validates `text` in `format`.
pub(super) fn read(text: &str, format: Format) -> Result<RetryConfig, LoadError> {
    let TopLevel(raw) = match format {
        Format::Toml => {
            let deserializer =
                toml::Deserializer::parse(text).map_err(|error| toml_parse_error(&error, text))?;
            serde_path_to_error::deserialize(deserializer)
                .map_err(|error| toml_error(&error.path().to_string(), error.inner(), text))?
        }
        Format::Json => {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let raw = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                let field = error.path().to_string();
                let field = if field == "." || field == "?" { String::new() } else { field };
                json_error(&field, error.inner())
            })?;
            deserializer.end().map_err(|error| json_error("", &error))?;
            raw
        }
    };
    let checked = raw
        .budget
        .map(BudgetFields::into_config)
        .transpose()
        .map_err(|(field, message)| {
            LoadError::new(LoadErrorKind::Invalid, format!("budget.{field}"), message)
        })
        .and_then(|budget| {
            let config = RetryConfig {
                schedule: raw.schedule,
                limits: raw.limits,
                classification: raw.classification,
                budget,
                rate_limiter: raw.rate_limiter,
                built: super::shared::Built::default(),
            };
            config.validate().map(|()| config)
        });
    checked.map_err(|error| at_its_field(error, text, format))
}

/// `error`, with the line and column of its field's value in `text`, when
/// the text has the field (a rule may blame a default).
fn at_its_field(error: LoadError, text: &str, format: Format) -> LoadError {
    let place = match format {
        Format::Toml => locate::in_toml(text, error.field()),
        Format::Json => locate::in_json(text, error.field()),
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
