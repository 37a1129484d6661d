//! The raw options of `stagger schedule`, as clap parses them. Nothing here
//! is checked against the others yet: [`ScheduleConfig`](super::ScheduleConfig)
//! does that.

use std::str::FromStr;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use staggered::{CapMode, Preset, Strategy};

use crate::duration;
use crate::output::Format;

/// The most sequences `--samples` may ask for.
pub const MAX_SAMPLES: u32 = 1_000_000;

/// The options of `stagger schedule` (its help text is on
/// [`Command::Schedule`](crate::cli::Command::Schedule)).
#[derive(Debug, Clone, clap::Args)]
pub struct ScheduleArgs {
    /// Start from a published preset; the other options override its values.
    #[arg(long, value_name = "NAME", value_parser = names::<Preset>(Preset::ALL.map(Preset::name)))]
    pub preset: Option<Preset>,

    /// The strategy [default: full, or the preset's].
    #[arg(long, value_name = "NAME", value_parser = names::<Strategy>(Strategy::ALL.map(Strategy::name)))]
    pub strategy: Option<Strategy>,

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
    /// (before randomizing, as seed 002) [default: delay, or the preset's].
    #[arg(long, value_name = "MODE", value_parser = names::<CapMode>([CapMode::Delay.name(), CapMode::Interval.name()]))]
    pub cap_mode: Option<CapMode>,

    /// max_attempts: the total number of calls, first one included; N-1
    /// retries [default: 5, or the preset's].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub attempts: Option<u32>,

    /// Draw K sequences and add sampled percentiles (p50, p90, p99) and the
    /// mean per retry. With `--format csv` the default is 1.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SAMPLES)))]
    pub samples: Option<u32>,

    /// Seed for sampling: the same seed gives the same output on every
    /// machine [default: from OS entropy, printed so it can be reused].
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,
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

/// An option of `stagger schedule` that an error message can blame. The
/// spellings are checked against the clap definition by a test.
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
    /// `--samples`
    Samples,
}

impl Opt {
    /// Every option, for the test that checks their spelling.
    #[cfg(test)]
    pub const ALL: [Opt; 6] =
        [Opt::Base, Opt::Multiplier, Opt::Cap, Opt::Factor, Opt::Attempts, Opt::Samples];

    /// The option as typed on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            Opt::Base => "--base",
            Opt::Multiplier => "--multiplier",
            Opt::Cap => "--cap",
            Opt::Factor => "--factor",
            Opt::Attempts => "--attempts",
            Opt::Samples => "--samples",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_opt_is_a_real_flag() {
        let cli = crate::cli::Cli::command();
        let schedule = cli.find_subcommand("schedule").expect("schedule subcommand");
        for opt in Opt::ALL {
            let long = opt.flag().trim_start_matches("--");
            assert!(
                schedule.get_arguments().any(|arg| arg.get_long() == Some(long)),
                "{} is not an option of stagger schedule",
                opt.flag()
            );
        }
    }
}
