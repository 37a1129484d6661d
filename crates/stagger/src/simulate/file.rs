//! An experiment as a file: the scenario, and its parameters in a section
//! of their own, in TOML, as `--print-config` writes it and `--config`
//! reads it.
//!
//! ```toml
//! scenario = "overload"
//!
//! [overload]
//! duration = "30s"
//! policies = ["retry", "retry+ratio"]
//! ```

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use serde::{Deserialize, Serialize};
use staggered_sim::frontier::FrontierParams;
use staggered_sim::{ContentionParams, HedgingParams, OverloadParams, Scenario, ThrottlingParams};

use super::flags::Params;
use crate::exit::UsageError;

/// What a file holds: the scenario to run (by default the one section
/// present), and the parameters of any scenario, each left out keeping its
/// defaults. An unknown key is an error, so a typo is never ignored.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario: Option<Scenario>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    contention: Option<ContentionParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    overload: Option<OverloadParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    throttling: Option<ThrottlingParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    frontier: Option<FrontierParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hedging: Option<HedgingParams>,
}

/// The section of the parameters `P` in a file.
pub trait Section: Sized {
    /// The section.
    fn section(file: &mut Experiment) -> &mut Option<Self>;
}

impl Section for ContentionParams {
    fn section(file: &mut Experiment) -> &mut Option<Self> {
        &mut file.contention
    }
}
impl Section for OverloadParams {
    fn section(file: &mut Experiment) -> &mut Option<Self> {
        &mut file.overload
    }
}
impl Section for ThrottlingParams {
    fn section(file: &mut Experiment) -> &mut Option<Self> {
        &mut file.throttling
    }
}
impl Section for FrontierParams {
    fn section(file: &mut Experiment) -> &mut Option<Self> {
        &mut file.frontier
    }
}
impl Section for HedgingParams {
    fn section(file: &mut Experiment) -> &mut Option<Self> {
        &mut file.hedging
    }
}

/// A file as read: its path as given, its text and what it holds.
#[derive(Debug)]
pub struct Loaded {
    /// The path, as the user wrote it.
    pub path: PathBuf,
    text: String,
    experiment: Experiment,
}

/// Reads the experiment file at `path`.
///
/// # Errors
/// A usage error starting with the path, naming the key at fault and its
/// line, for text that is not TOML, an unknown key or a value its
/// parameter does not take.
pub fn load(path: &Path) -> anyhow::Result<Loaded> {
    let fail = || UsageError::file(path);
    let text = std::fs::read_to_string(path).context("cannot read it").with_context(fail)?;
    let located = |key: String, err: &toml::de::Error| {
        let line = err.span().map_or(0, |span| text[..span.start].matches('\n').count() + 1);
        let place = if key.is_empty() { format!("line {line}") } else { format!("{key} at line {line}") };
        anyhow!("{}", err.message().trim_end()).context(place)
    };
    let deserializer = toml::Deserializer::parse(&text).map_err(|err| located(String::new(), &err));
    let experiment = deserializer.and_then(|deserializer| {
        serde_path_to_error::deserialize(deserializer)
            .map_err(|err| located(err.path().to_string(), err.inner()))
    });
    Ok(Loaded { path: path.to_owned(), experiment: experiment.with_context(fail)?, text })
}

impl Loaded {
    /// The scenario the file names, or the one whose section it has.
    pub fn scenario(&self) -> Option<Scenario> {
        let e = &self.experiment;
        let present = [
            (Scenario::Contention, e.contention.is_some()),
            (Scenario::Overload, e.overload.is_some()),
            (Scenario::Throttling, e.throttling.is_some()),
            (Scenario::Frontier, e.frontier.is_some()),
            (Scenario::Hedging, e.hedging.is_some()),
        ];
        let mut sections = present.into_iter().filter(|&(_, present)| present);
        match (sections.next(), sections.next()) {
            (Some((only, _)), None) => e.scenario.or(Some(only)),
            _ => e.scenario,
        }
    }

    /// The parameters of `P`'s section, if the file has one.
    pub fn take<P: Section>(&mut self) -> Option<P> {
        P::section(&mut self.experiment).take()
    }

    /// The line of `key` in the section of `scenario`, if the file sets it.
    pub fn line_of(&self, scenario: Scenario, key: &str) -> Option<usize> {
        let mut section = "";
        for (i, line) in self.text.lines().enumerate() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                section = header.trim_end_matches(']').trim();
            } else if section == scenario.name()
                && line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='))
            {
                return Some(i + 1);
            }
        }
        None
    }
}

/// `params` as a file that `--config` reads back equal.
///
/// # Errors
/// When TOML cannot hold a value (a seed past 2^63 - 1).
pub fn write<P: Params + Section>(params: P) -> anyhow::Result<String> {
    let mut experiment = Experiment { scenario: Some(P::SCENARIO), ..Experiment::default() };
    *P::section(&mut experiment) = Some(params);
    toml::to_string(&experiment).context("cannot write the experiment as TOML")
}
