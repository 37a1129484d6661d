//! The raw options of `stagger simulate`, as clap parses them. Lists and
//! strategy names stay text here: the scenario reads them, because what a
//! valid value is depends on the scenario
//! ([`SimulateConfig`](super::config::SimulateConfig) checks them all).

use std::path::PathBuf;

use crate::output::Format;

/// The most runs `--runs` may ask for per point.
pub const MAX_RUNS: u32 = 1_000_000;

/// The experiments `stagger simulate` can run. A new scenario is one variant
/// here and one module beside `contention`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// N clients race to update one row with optimistic concurrency (SPEC
    /// section 8, the AWS 2015 experiment).
    Contention,
}

/// The options of `stagger simulate` (its help text is on
/// [`Command::Simulate`](crate::cli::Command::Simulate)).
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The experiment to run.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = Scenario::Contention)]
    pub scenario: Scenario,

    /// Client counts, one point each: `100`, `10,50,100`, or `FROM..TO/STEP`
    /// with both ends included (`10..190/10`); items combine with commas
    /// [default: 10..190/10].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub clients: Option<String>,

    /// Independent runs averaged into each point [default: 100].
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub runs: Option<u32>,

    /// Strategies to compare, comma-separated: `none` or a SPEC name
    /// (constant, exponential, full, equal, decorrelated, proportional,
    /// additive, smooth) [default: none,exponential,equal,full,decorrelated].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true)]
    pub strategies: Option<Vec<String>>,

    /// Seed of every run's generators: the same seed gives the same output on
    /// every machine [default: 2015].
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The backoff base, a positive number of time units, in the 2015
    /// convention: the exponential family's first ceiling is 2 x base,
    /// decorrelated's sleep starts at base [default: 5].
    #[arg(long, value_name = "UNITS", allow_negative_numbers = true)]
    pub base: Option<f64>,

    /// The backoff cap, a number of time units, at least --base [default: 2000].
    #[arg(long, value_name = "UNITS", allow_negative_numbers = true)]
    pub cap: Option<f64>,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Also write a chart to FILE.svg: calls and completion time against the
    /// client count, one line per strategy.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// An option of `stagger simulate` that an error message can blame. The
/// spellings are checked against the clap definition by a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// `--clients`
    Clients,
    /// `--runs`
    Runs,
    /// `--strategies`
    Strategies,
    /// `--base`
    Base,
    /// `--cap`
    Cap,
    /// `--plot`
    Plot,
}

impl Opt {
    /// Every option, for the test that checks their spelling.
    #[cfg(test)]
    pub const ALL: [Opt; 6] = [Opt::Clients, Opt::Runs, Opt::Strategies, Opt::Base, Opt::Cap, Opt::Plot];

    /// The option as typed on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            Opt::Clients => "--clients",
            Opt::Runs => "--runs",
            Opt::Strategies => "--strategies",
            Opt::Base => "--base",
            Opt::Cap => "--cap",
            Opt::Plot => "--plot",
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
        let simulate = cli.find_subcommand("simulate").expect("simulate subcommand");
        for opt in Opt::ALL {
            let long = opt.flag().trim_start_matches("--");
            assert!(
                simulate.get_arguments().any(|arg| arg.get_long() == Some(long)),
                "{} is not an option of stagger simulate",
                opt.flag()
            );
        }
    }
}
