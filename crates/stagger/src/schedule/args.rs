//! The raw options of `stagger schedule`, as clap parses them: the shared
//! schedule options ([`BackoffArgs`]) and its own. Nothing here is checked
//! against the others yet: [`ScheduleConfig`](super::ScheduleConfig) does that.

use std::path::PathBuf;

use crate::backoff_args::BackoffArgs;
use crate::output::Format;

/// The most sequences `--samples` may ask for.
pub const MAX_SAMPLES: u32 = 1_000_000;

/// The options of `stagger schedule` (its help text is on
/// [`Command::Schedule`](crate::cli::Command::Schedule)).
#[derive(Debug, Clone, clap::Args)]
pub struct ScheduleArgs {
    /// The schedule options, shared with `stagger run`.
    #[command(flatten)]
    pub backoff: BackoffArgs,

    /// Draw K sequences and add sampled percentiles (p50, p90, p99) and the
    /// mean per retry. With `--format csv` the default is 1.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SAMPLES)))]
    pub samples: Option<u32>,

    /// Seed for sampling: the same seed gives the same output on every
    /// machine [default: from OS entropy, printed so it can be reused].
    #[arg(long, value_name = "S", value_parser = crate::numbers::seed, allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Also write a chart to FILE.svg: per retry the range of the delay (min
    /// to max) as a band, its median and, with --samples, the sampled p50,
    /// p90 and p99; beside it the worst-case total wait. One color per
    /// strategy.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// The options of `stagger schedule` besides the shared schedule options that
/// an error message can blame.
pub const SAMPLES_FLAG: &str = "--samples";
/// See [`SAMPLES_FLAG`].
pub const PLOT_FLAG: &str = "--plot";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn samples_and_plot_flags_are_real_flags() {
        let cli = crate::cli::Cli::command();
        let schedule = cli.find_subcommand("schedule").expect("schedule subcommand");
        for flag in [SAMPLES_FLAG, PLOT_FLAG] {
            let long = flag.trim_start_matches("--");
            assert!(schedule.get_arguments().any(|arg| arg.get_long() == Some(long)), "{flag}");
        }
    }
}
