//! The scenarios' flags, from the scenarios' own parameters: every field of
//! a scenario's parameters is a flag, spelled as the field (`arrival_rate`
//! is `--arrival-rate`), its doc comment the help, its default the
//! parameters' default.
//!
//! Scenarios share flag names with different meanings (`--base` counts
//! time units in the contention experiment and is a duration in the
//! overload one), and clap allows one argument per name, so `stagger
//! simulate` takes each name once, as text, with the help of every
//! scenario that has it; the chosen scenario then parses what was given
//! with its own flags.

use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use staggered_sim::frontier::FrontierParams;
use staggered_sim::{ContentionParams, HedgingParams, OverloadParams, Scenario, ThrottlingParams};

/// A scenario's parameters, as flags and as the section of a file.
pub trait Params: staggered_sim::Experiment + Args + FromArgMatches + serde::Serialize + Default {
    /// The scenario they are the parameters of.
    const SCENARIO: Scenario;
}

impl Params for ContentionParams {
    const SCENARIO: Scenario = Scenario::Contention;
}
impl Params for OverloadParams {
    const SCENARIO: Scenario = Scenario::Overload;
}
impl Params for ThrottlingParams {
    const SCENARIO: Scenario = Scenario::Throttling;
}
impl Params for FrontierParams {
    const SCENARIO: Scenario = Scenario::Frontier;
}
impl Params for HedgingParams {
    const SCENARIO: Scenario = Scenario::Hedging;
}

/// The flag of field `field`: `--arrival-rate` for `arrival_rate`.
pub fn flag(field: &str) -> String {
    format!("--{}", field.replace('_', "-"))
}

/// `stagger simulate` with the flags of `P`, as that scenario parses them;
/// every value may start with `-`, so that `--base -1` is refused by its
/// parser, saying why.
pub fn command<P: Params>() -> Command {
    let command = P::augment_args_for_update(Command::new("simulate").bin_name("stagger simulate"));
    command.mut_args(|arg| arg.allow_hyphen_values(true))
}

/// The flags of scenario `scenario`, with their help and defaults.
fn scenario_args(scenario: Scenario) -> (Vec<Arg>, toml::Table) {
    fn of<P: Params>() -> (Vec<Arg>, toml::Table) {
        let defaults = toml::Table::try_from(P::default()).unwrap_or_default();
        (command::<P>().get_arguments().cloned().collect(), defaults)
    }
    match scenario {
        Scenario::Contention => of::<ContentionParams>(),
        Scenario::Overload => of::<OverloadParams>(),
        Scenario::Throttling => of::<ThrottlingParams>(),
        Scenario::Frontier => of::<FrontierParams>(),
        Scenario::Hedging => of::<HedgingParams>(),
    }
}

/// The scenarios that have a flag spelled `long`, in order.
pub fn owners(long: &str) -> Vec<Scenario> {
    let has = |scenario| scenario_args(scenario).0.iter().any(|arg| arg.get_long() == Some(long));
    Scenario::ALL.into_iter().filter(|&scenario| has(scenario)).collect()
}

/// A default as a flag takes it: `none,exponential`, `100ms`, `2015`.
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => text.clone(),
        toml::Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(","),
        toml::Value::Float(x) => x.to_string(),
        other => other.to_string(),
    }
}

/// The prefix of the id of a parameter's flag, which tells it from the
/// command's own options.
const GIVEN: &str = "parameter ";

/// Every scenario's parameters as flags of `stagger simulate`, taken as
/// text: each name once, with the help of every scenario that has it.
#[derive(Debug, Clone, Default)]
pub struct Parameters {
    /// The flags given on the command line, as (`--name`, value), in the
    /// order of the scenarios' fields.
    pub given: Vec<(String, String)>,
}

impl Args for Parameters {
    fn augment_args(command: Command) -> Command {
        // Each flag, in the order the scenarios declare them, with every
        // scenario that has it and what it says there.
        let mut flags: Vec<(String, Vec<Declaration>)> = Vec::new();
        for scenario in Scenario::ALL {
            let (args, defaults) = scenario_args(scenario);
            for arg in args {
                let long = arg.get_long().expect("every field is a long flag").to_owned();
                let help =
                    arg.get_long_help().or(arg.get_help()).map(ToString::to_string).unwrap_or_default();
                let text = match defaults.get(arg.get_id().as_str()).map(shown) {
                    Some(default) => format!("{help} [default: {default}]"),
                    None => help,
                };
                let declared = (scenario.name(), arg, text);
                match flags.iter_mut().find(|(name, _)| *name == long) {
                    Some((_, declarations)) => declarations.push(declared),
                    None => flags.push((long, vec![declared])),
                }
            }
        }
        flags
            .into_iter()
            .fold(command, |command, (long, declarations)| command.arg(merged(long, &declarations)))
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

/// A flag as one scenario declares it: the scenario, the flag, and its help
/// with the scenario's default.
type Declaration = (&'static str, Arg, String);

/// The flag `--long` as every scenario in `declarations` declares it: every
/// value name, the first one's short help, and each one's help, those that
/// say the same together, under the heading of its scenario or scenarios.
fn merged(long: String, declarations: &[Declaration]) -> Arg {
    let scenarios: Vec<&str> = declarations.iter().map(|(scenario, _, _)| *scenario).collect();
    let mut said: Vec<(Vec<&str>, &String)> = Vec::new();
    for (scenario, _, text) in declarations {
        match said.iter_mut().find(|(_, said)| *said == text) {
            Some((who, _)) => who.push(scenario),
            None => said.push((vec![scenario], text)),
        }
    }
    let long_help = match &said[..] {
        [(_, text)] => (*text).clone(),
        _ => said
            .iter()
            .map(|(who, text)| format!("{}: {text}", who.join(", ")))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let (heading, short) = match &scenarios[..] {
        [one] => (format!("{}{} options", one[..1].to_uppercase(), &one[1..]), String::new()),
        _ => ("Options of several scenarios".to_owned(), format!(" ({})", scenarios.join(", "))),
    };
    let help = declarations[0].1.get_help().map(ToString::to_string).unwrap_or_default() + &short;
    let mut value_names: Vec<String> = Vec::new();
    for name in
        declarations.iter().filter_map(|(_, arg, _)| arg.get_value_names()?.first().map(ToString::to_string))
    {
        if !value_names.contains(&name) {
            value_names.push(name);
        }
    }
    let arg = Arg::new(format!("{GIVEN}{long}"))
        .long(long)
        .value_name(value_names.join("|"))
        .help(help)
        .long_help(long_help)
        .help_heading(heading)
        .allow_hyphen_values(true);
    // A switch that may be given alone (`--announce`) means `true`.
    match declarations[0].1.get_num_args() {
        Some(range) if range.min_values() == 0 => {
            arg.num_args(0..=1).default_missing_value("true").allow_hyphen_values(false)
        }
        _ => arg,
    }
}

impl FromArgMatches for Parameters {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for id in matches.ids().map(|id| id.as_str()) {
            let Some(long) = id.strip_prefix(GIVEN) else { continue };
            if matches.value_source(id) == Some(ValueSource::CommandLine) {
                let value = matches.get_one::<String>(id).expect("a parameter's flag is text");
                given.push((format!("--{long}"), value.clone()));
            }
        }
        Ok(Parameters { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}
