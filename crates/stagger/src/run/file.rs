//! `--config FILE`: a retry configuration in TOML or JSON, read and
//! validated by the library ([`RetryConfig`]), and what in it `stagger run`
//! ignores, named. Every error starts with the file's path and names the
//! field, and exits 2.

use std::path::Path;

use anyhow::anyhow;
use staggered::config::{LoadErrorKind, RetryConfig};

use crate::exit::UsageError;

/// A `--config` file, loaded and checked.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The configuration, validated by the library.
    pub config: RetryConfig,
    /// Sections and fields that are valid but change nothing for `stagger
    /// run`, explained.
    pub warnings: Vec<String>,
}

/// The format a file is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Toml,
    Json,
    /// No `.toml` or `.json` extension: TOML, else JSON.
    Either,
}

impl Format {
    fn of(path: &Path) -> Format {
        match path.extension().and_then(|ext| ext.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("toml") => Format::Toml,
            Some(ext) if ext.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Either,
        }
    }
}

/// Reads, parses and checks the file at `path`; `speaks_http` says whether
/// `--http-headers` gives the run server responses, which the hint limits
/// and the status lists apply to.
///
/// # Errors
/// A [`UsageError`] blaming the file, such as
/// `retry.toml: schedule.multiplier: invalid multiplier 0.5: must be at least 1`
/// or `retry.toml: No such file or directory (os error 2)`.
pub fn load(path: &Path, speaks_http: bool) -> anyhow::Result<ConfigFile> {
    let blame = |err: anyhow::Error| err.context(UsageError::file(path));
    let text = std::fs::read_to_string(path).map_err(|err| blame(err.into()))?;
    let config = parse(&text, Format::of(path)).map_err(blame)?;
    let warnings =
        ignored(&config, speaks_http).into_iter().map(|note| format!("{}: {note}", path.display())).collect();
    Ok(ConfigFile { config, warnings })
}

/// Parses `text` in `format`. A file with neither extension is read as
/// TOML, then as JSON; if both fail, the error shown is that of the format
/// the text is in (JSON if it starts with `{`, which TOML cannot), when the
/// text parsed far enough to name a field or break a rule, or else both.
fn parse(text: &str, format: Format) -> anyhow::Result<RetryConfig> {
    match format {
        Format::Toml => Ok(RetryConfig::from_toml_str(text)?),
        Format::Json => Ok(RetryConfig::from_json_str(text)?),
        Format::Either => {
            let as_toml = match RetryConfig::from_toml_str(text) {
                Ok(config) => return Ok(config),
                Err(err) => err,
            };
            let as_json = match RetryConfig::from_json_str(text) {
                Ok(config) => return Ok(config),
                Err(err) => err,
            };
            let likely = if text.trim_start().starts_with('{') { &as_json } else { &as_toml };
            if likely.kind() == LoadErrorKind::Invalid || !likely.field().is_empty() {
                return Err(likely.clone().into());
            }
            Err(anyhow!(
                "neither TOML nor JSON (name the file .toml or .json to choose); \
                 as TOML: {as_toml}; as JSON: {as_json}"
            ))
        }
    }
}

/// What in `config` is valid but changes nothing for `stagger run`, so
/// that nobody believes it does: the budget and the rate limiter, and
/// without server responses (`speaks_http`) what only they use.
fn ignored(config: &RetryConfig, speaks_http: bool) -> Vec<String> {
    let mut notes = Vec::new();
    if config.budget.is_some() {
        notes.push(
            "budget is ignored: a budget bounds the retries of many operations, and one stagger run is \
             one operation"
                .to_owned(),
        );
    }
    if config.rate_limiter.is_some() {
        notes.push(
            "rate_limiter is ignored: an adaptive limiter paces the attempts of many operations to one \
             server, and one stagger run is one operation"
                .to_owned(),
        );
    }
    if speaks_http {
        return notes;
    }
    let limits = &config.limits;
    for (field, set) in
        [("limits.max_hint", limits.max_hint.is_some()), ("limits.hint_jitter", limits.hint_jitter.is_some())]
    {
        if set {
            notes.push(format!(
                "{field} has no effect without --http-headers: a command gives no server hints"
            ));
        }
    }
    let classification = &config.classification;
    for (field, list) in
        [("retry_statuses", &classification.retry_statuses), ("stop_statuses", &classification.stop_statuses)]
    {
        if !list.is_empty() {
            notes.push(format!(
                "classification.{field} has no effect without --http-headers: stagger run classifies exit \
                 codes, not HTTP statuses"
            ));
        }
    }
    for (field, set) in [
        ("throttling_codes", !classification.throttling_codes.is_empty()),
        ("bare_503_is_throttle", classification.bare_503_is_throttle),
    ] {
        if set {
            notes.push(format!(
                "classification.{field} has no effect without --http-headers: only an HTTP response says it \
                 is throttled"
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use staggered::config::AttemptLimit;

    const TOML: &str = "[schedule]\nmax_attempts = 3\n";
    const JSON: &str = r#"{"schedule": {"max_attempts": 3}}"#;

    fn attempts(config: &RetryConfig) -> Option<AttemptLimit> {
        config.schedule.max_attempts
    }

    #[test]
    fn the_extension_picks_the_format_and_no_extension_tries_both() {
        assert_eq!(Format::of(Path::new("a/retry.toml")), Format::Toml);
        assert_eq!(Format::of(Path::new("retry.JSON")), Format::Json);
        assert_eq!(Format::of(Path::new("retry.conf")), Format::Either);
        assert_eq!(Format::of(Path::new("retry")), Format::Either);
        for (text, format) in
            [(TOML, Format::Toml), (JSON, Format::Json), (TOML, Format::Either), (JSON, Format::Either)]
        {
            assert_eq!(attempts(&parse(text, format).unwrap()), Some(AttemptLimit::Count(3)), "{format:?}");
        }
        // The extension is obeyed: JSON in a .toml file is a TOML error.
        assert!(parse(JSON, Format::Toml).is_err());
        assert!(parse(TOML, Format::Json).is_err());
    }

    #[test]
    fn without_an_extension_the_error_is_that_of_the_format_the_text_is_in() {
        let err = parse("[schedule]\nmultiplier = 0.5\n", Format::Either).unwrap_err();
        assert_eq!(
            err.to_string(),
            "schedule.multiplier: invalid multiplier 0.5: must be at least 1 at line 2 column 14"
        );
        let err = parse(r#"{"schedule": {"retries": 3}}"#, Format::Either).unwrap_err();
        assert!(err.to_string().starts_with("schedule.retries: unknown field `retries`"), "{err}");
        let err = parse("garbage {{", Format::Either).unwrap_err().to_string();
        assert!(
            err.starts_with("neither TOML nor JSON")
                && err.contains("as TOML: ")
                && err.contains("as JSON: "),
            "{err}"
        );
    }

    #[test]
    fn errors_start_with_the_path_and_exit_2() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.toml");
        let err = load(&missing, false).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert!(format!("{err:#}").starts_with(&format!("{}: ", missing.display())), "{err:#}");

        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"{"classification": {"stop_exit_codes": [1, 256]}}"#).unwrap();
        let err = load(&bad, false).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert_eq!(
            format!("{err:#}"),
            format!(
                "{}: classification.stop_exit_codes[1]: invalid exit code 256: must be between 1 and 255 \
                 at line 1 column 46",
                bad.display()
            )
        );
    }

    #[test]
    fn a_zero_deadline_is_refused_naming_its_field() {
        // The library refuses it, as `--deadline 0` is refused.
        for field in ["schedule", "limits"] {
            let message =
                parse(&format!("[{field}]\ndeadline = \"0\"\n"), Format::Toml).unwrap_err().to_string();
            assert!(
                message.starts_with(&format!("{field}.deadline: invalid deadline 0s: must be more than 0")),
                "{message}"
            );
        }
    }

    #[test]
    fn what_a_command_cannot_use_is_named() {
        let config = RetryConfig::from_toml_str(
            "[limits]\nhint_jitter = 0.2\n[classification]\nretry_statuses = [503]\n\
             [budget]\nkind = \"throttle\"\n",
        )
        .unwrap();
        let notes = ignored(&config, false);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("budget is ignored"));
        assert_eq!(
            notes[1],
            "limits.hint_jitter has no effect without --http-headers: a command gives no server hints"
        );
        assert!(notes[2].starts_with("classification.retry_statuses has no effect without --http-headers"));
        assert!(ignored(&RetryConfig::from_toml_str(TOML).unwrap(), false).is_empty());
        let throttling = RetryConfig::from_toml_str(
            "[classification]\nthrottling_codes = [\"Busy\"]\nbare_503_is_throttle = true\n",
        )
        .unwrap();
        assert_eq!(
            ignored(&throttling, false),
            ["throttling_codes", "bare_503_is_throttle"].map(|field| format!(
                "classification.{field} has no effect without --http-headers: only an HTTP response says it is \
                 throttled"
            ))
        );
        assert!(ignored(&throttling, true).is_empty());
        // With server responses, only the budget is left out.
        let notes = ignored(&config, true);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("budget is ignored"));
    }

    #[test]
    fn a_rate_limiter_is_named_as_ignored() {
        let config = RetryConfig::from_toml_str("[rate_limiter]\nbeta = 0.5\n").unwrap();
        for speaks_http in [false, true] {
            assert_eq!(
                ignored(&config, speaks_http),
                ["rate_limiter is ignored: an adaptive limiter paces the attempts of many operations \
                     to one server, and one stagger run is one operation"]
            );
        }
    }
}
