//! The schedule options that `stagger schedule` and `stagger run` share
//! (`--preset --strategy --base --multiplier --cap --factor --cap-mode
//! --attempts`), flattened into each command's options, and their checks:
//! [`BackoffArgs::build`] turns them into a [`Backoff`] or a usage error that
//! names the option at fault. [`BackoffArgs::over`] lays them over a
//! `--config` file's schedule: an option given wins over the file's field,
//! which wins over the preset's value and the default.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use staggered::config::{AttemptLimit, ScheduleConfig};
use staggered::{Backoff, CapMode, ConfigError, Field, Preset, Strategy};

use crate::duration;
use crate::exit::UsageError;

/// The schedule options, as clap parses them. Each command flattens them
/// into its own options with `#[command(flatten)]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BackoffArgs {
    /// Start from a published preset; the other options override its values.
    #[arg(long, value_name = "NAME", value_parser = names::<Preset>(Preset::ALL.map(Preset::name)))]
    pub preset: Option<Preset>,

    /// The strategy [default: full, or the preset's].
    // Parsed as a comma-separated list so that `stagger schedule` can
    // compare strategies (its own help says so); a command that runs one
    // schedule refuses a list, naming this option.
    #[arg(
        long = "strategy",
        value_name = "NAME",
        value_delimiter = ',',
        value_parser = names::<Strategy>(Strategy::ALL.map(Strategy::name))
    )]
    pub strategies: Vec<Strategy>,

    /// The delay unit, the first interval [default: 1s, or the preset's].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true)]
    pub base: Option<Duration>,

    /// The growth of the interval per retry, at least 1 [default: 2, or the preset's].
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub multiplier: Option<f64>,

    /// max_delay: the ceiling on every delay, or on the interval with
    /// `--cap-mode interval` [default: 30s, or the preset's].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true)]
    pub cap: Option<Duration>,

    /// The randomization (proportional) or jitter (additive) factor, in [0, 1]
    /// [default: 0.5 proportional, 0.3 additive, or the preset's].
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub factor: Option<f64>,

    /// Where the cap applies: `delay` (no delay exceeds it) or `interval`
    /// (before randomizing, as google-http-java-client does) [default:
    /// delay, or the preset's].
    #[arg(long, value_name = "MODE", value_parser = names::<CapMode>([CapMode::Delay.name(), CapMode::Interval.name()]))]
    pub cap_mode: Option<CapMode>,

    /// max_attempts: the total number of calls, first one included; N-1
    /// retries, or `unlimited` (then a deadline should bound the run)
    /// [default: 5, or the preset's].
    #[arg(long, value_name = "N", value_parser = crate::numbers::attempt_limit, allow_negative_numbers = true)]
    pub attempts: Option<AttemptLimit>,
}

/// A value parser that lists `names` in `--help` and parses them with `T`'s
/// `FromStr`, so the library stays the one place that knows the names.
fn names<T>(names: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    PossibleValuesParser::new(names).try_map(|name| name.parse::<T>())
}

/// A schedule option that an error message can blame. The spellings are
/// checked against the clap definition of every command by a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// `--base`
    Base,
    /// `--multiplier`
    Multiplier,
    /// `--cap`
    Cap,
    /// `--factor`
    Factor,
    /// `--attempts`
    Attempts,
    /// `--strategy`
    Strategy,
}

impl Opt {
    /// Every option, for the test that checks their spelling.
    #[cfg(test)]
    pub const ALL: [Opt; 6] =
        [Opt::Base, Opt::Multiplier, Opt::Cap, Opt::Factor, Opt::Attempts, Opt::Strategy];

    /// The option as typed on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            Opt::Base => "--base",
            Opt::Multiplier => "--multiplier",
            Opt::Cap => "--cap",
            Opt::Factor => "--factor",
            Opt::Attempts => "--attempts",
            Opt::Strategy => "--strategy",
        }
    }
}

impl BackoffArgs {
    /// The preset's builder (or `full`'s defaults) with each given option
    /// applied, built.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault, with the library's
    /// [`ConfigError`] as the cause; or naming `--strategy` if it lists
    /// more than one strategy.
    pub fn build(&self) -> anyhow::Result<Backoff> {
        self.build_schedule(&self.over(ScheduleConfig::default()), None)
    }

    /// One schedule per strategy of `--strategy` (the preset's or the
    /// default one if none is given), each with every other option applied.
    ///
    /// # Errors
    /// As [`build`](Self::build), or naming `--strategy` when it lists a
    /// strategy twice.
    pub fn build_each(&self) -> anyhow::Result<Vec<Backoff>> {
        for (i, strategy) in self.strategies.iter().enumerate() {
            if self.strategies[..i].contains(strategy) {
                return Err(anyhow::anyhow!("{strategy} is listed twice"))
                    .context(UsageError::option(Opt::Strategy.flag()));
            }
        }
        if self.strategies.len() <= 1 {
            return Ok(vec![self.build()?]);
        }
        self.strategies
            .iter()
            .map(|&strategy| BackoffArgs { strategies: vec![strategy], ..self.clone() }.build())
            .collect()
    }

    /// `schedule` (a `--config` file's) with each option given here in
    /// place of its field: `--preset` replaces `preset`, `--cap` replaces
    /// `max_delay`, `--attempts` replaces `max_attempts`, and so on. The
    /// library's [`ScheduleConfig::builder`] then starts from the preset and
    /// applies every field set, so an option wins over the file, and the
    /// file over the preset and the defaults.
    pub fn over(&self, mut schedule: ScheduleConfig) -> ScheduleConfig {
        fn set<T>(field: &mut Option<T>, option: Option<T>) {
            if option.is_some() {
                *field = option;
            }
        }
        set(&mut schedule.preset, self.preset);
        set(&mut schedule.strategy, self.strategies.first().copied());
        set(&mut schedule.base, self.base);
        set(&mut schedule.multiplier, self.multiplier);
        set(&mut schedule.max_delay, self.cap);
        set(&mut schedule.factor, self.factor);
        set(&mut schedule.cap_mode, self.cap_mode);
        set(&mut schedule.max_attempts, self.attempts);
        schedule
    }

    /// Builds `schedule`, the result of [`over`](Self::over).
    ///
    /// # Errors
    /// A [`UsageError`] naming the option that set the field at fault, or
    /// else the `file` the schedule came from and the field
    /// (`retry.toml: schedule.max_delay: ...`), with the library's
    /// [`ConfigError`] as the cause.
    pub fn build_schedule(&self, schedule: &ScheduleConfig, file: Option<&Path>) -> anyhow::Result<Backoff> {
        if let [_, _, ..] = self.strategies[..] {
            let names: Vec<&str> = self.strategies.iter().map(|s| s.name()).collect();
            let names = names.join(",");
            return Err(anyhow::anyhow!(
                "{names}: this command runs one schedule; `stagger schedule --strategy {names}` compares them"
            ))
            .context(UsageError::option(Opt::Strategy.flag()));
        }
        schedule.builder().build().map_err(|err| self.usage_error(err, file))
    }

    /// The library's error, blamed on the option that set the field, or
    /// else on the file's field.
    fn usage_error(&self, err: ConfigError, file: Option<&Path>) -> anyhow::Error {
        let opt = match err.field() {
            Field::Base => self.base.map(|_| Opt::Base),
            Field::Multiplier => self.multiplier.map(|_| Opt::Multiplier),
            Field::MaxDelay => self.cap.map(|_| Opt::Cap),
            Field::Factor => self.factor.map(|_| Opt::Factor),
            Field::MaxAttempts => self.attempts.map(|_| Opt::Attempts),
            _ => None,
        };
        let field = err.field();
        match (opt, self.base) {
            // A `--base` above the cap of the default, the preset or the
            // file: the user never typed `--cap`, so blame `--base` and say
            // how to fix it.
            (None, Some(base)) if field == Field::MaxDelay => anyhow::Error::new(err)
                .context(format!("base {} is above max_delay; raise --cap as well", duration::format(base)))
                .context(UsageError::option(Opt::Base.flag())),
            (Some(opt), _) => anyhow::Error::new(err).context(UsageError::option(opt.flag())),
            (None, _) => match file {
                Some(path) => anyhow::Error::new(err)
                    .context(format!("schedule.{field}"))
                    .context(UsageError::file(path)),
                None => anyhow::Error::new(err).context(UsageError::options()),
            },
        }
    }

    /// Notes on schedule options that were accepted but change nothing for
    /// `backoff`, the schedule they built.
    pub fn warnings(&self, backoff: &Backoff) -> Vec<String> {
        self.warnings_for(std::slice::from_ref(backoff))
    }

    /// Notes on schedule options that were accepted but change nothing for
    /// any of `backoffs`, the schedules they built.
    pub fn warnings_for(&self, backoffs: &[Backoff]) -> Vec<String> {
        let none_uses = |uses: fn(Strategy) -> bool| -> Option<String> {
            let strategies: Vec<&str> = backoffs.iter().map(|b| b.strategy().name()).collect();
            let used = backoffs.iter().any(|b| uses(b.strategy()));
            (!used).then(|| staggered_sim::view::list(strategies))
        };
        let mut warnings = Vec::new();
        if let Some(names) = none_uses(Strategy::uses_factor).filter(|_| self.factor.is_some()) {
            warnings
                .push(format!("--factor has no effect on {names}: only proportional and additive use it"));
        }
        if let Some(names) = none_uses(Strategy::uses_factor).filter(|_| self.cap_mode.is_some()) {
            let its = if backoffs.len() == 1 { "its delays never pass" } else { "their delays never pass" };
            warnings.push(format!(
                "--cap-mode has no effect on {names}: {its} the interval, so both modes agree"
            ));
        }
        if let Some(names) = none_uses(Strategy::uses_multiplier).filter(|_| self.multiplier.is_some()) {
            warnings.push(format!("--multiplier has no effect on {names}"));
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_opt_is_a_real_flag_of_every_command_that_shares_them() {
        let cli = crate::cli::Cli::command();
        for name in ["schedule", "run"] {
            let command = cli.find_subcommand(name).expect("subcommand");
            for opt in Opt::ALL {
                let long = opt.flag().trim_start_matches("--");
                assert!(
                    command.get_arguments().any(|arg| arg.get_long() == Some(long)),
                    "{} is not an option of stagger {name}",
                    opt.flag()
                );
            }
        }
    }

    #[test]
    fn default_args_build_full_jitter() {
        assert_eq!(
            BackoffArgs::default().build().unwrap(),
            Backoff::builder(Strategy::Full).build().unwrap()
        );
    }
}
