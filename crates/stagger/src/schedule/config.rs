//! `ScheduleConfig`: the options of `stagger schedule`, checked together and
//! turned into the simulator's [`ScheduleQuery`]s (one per strategy) before
//! anything runs.

use std::path::PathBuf;

use anyhow::{anyhow, Context};
use staggered_sim::ScheduleQuery;

use super::args::{ScheduleArgs, PLOT_FLAG, SAMPLES_FLAG};
use crate::exit::UsageError;
use crate::output::{self, Format};

/// A validated `stagger schedule` invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleConfig {
    /// What to report, per strategy: the schedule, the retries shown, what
    /// to sample.
    pub queries: Vec<ScheduleQuery>,
    /// The output format.
    pub format: Format,
    /// Where to write the chart, if anywhere.
    pub plot: Option<PathBuf>,
    /// Options that were accepted but have no effect, explained.
    pub warnings: Vec<String>,
}

impl ScheduleConfig {
    /// Checks the options and builds the schedule.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault, with the library's
    /// [`ConfigError`](staggered::ConfigError) or the sampling limit as the
    /// cause.
    pub fn from_args(args: &ScheduleArgs) -> anyhow::Result<Self> {
        let backoffs = args.backoff.build_each()?;
        if let Some(path) = &args.plot {
            output::check_plot_path(path).context(UsageError::option(PLOT_FLAG))?;
            if backoffs.iter().all(|b| b.max_attempts() == Some(1)) {
                return Err(anyhow!("max_attempts 1 is a single call: there is no retry to plot"))
                    .context(UsageError::option(PLOT_FLAG));
            }
        }
        let sequences = args.samples.or((args.format == Format::Csv).then_some(1));
        let mut queries = Vec::with_capacity(backoffs.len());
        for &backoff in &backoffs {
            let mut query = ScheduleQuery::new(backoff).with_preset(args.backoff.preset);
            // CSV is the samples: one sequence unless told otherwise, and no
            // medians, unless the chart draws them.
            if args.format == Format::Csv && args.plot.is_none() {
                query = query.without_median_estimates();
            }
            if let Some(sequences) = sequences {
                query =
                    query.with_sampling(sequences, args.seed).context(UsageError::option(SAMPLES_FLAG))?;
            }
            queries.push(query);
        }
        let mut warnings = args.backoff.warnings_for(&backoffs);
        if args.seed.is_some() && sequences.is_none() {
            warnings.push("--seed has no effect without --samples".to_owned());
        }
        Ok(ScheduleConfig { queries, format: args.format, plot: args.plot.clone(), warnings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;
    use staggered::{Backoff, Strategy};
    use staggered_sim::Sampling;
    use std::time::Duration;

    /// `stagger schedule`'s options alone, to parse them as the CLI does.
    #[derive(Debug, Parser)]
    struct Options {
        #[command(flatten)]
        args: ScheduleArgs,
    }

    fn config(options: &[&str]) -> anyhow::Result<ScheduleConfig> {
        let options = Options::try_parse_from(["schedule"].iter().chain(options)).expect("clap accepts");
        ScheduleConfig::from_args(&options.args)
    }

    fn usage_message(options: &[&str]) -> String {
        let err = config(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn options_override_the_preset() {
        let c = config(&["--preset", "grpc", "--base", "250ms", "--attempts", "3"]).unwrap();
        let b = c.queries[0].backoff();
        assert_eq!(
            (b.strategy(), b.base(), b.multiplier()),
            (Strategy::Proportional, Duration::from_millis(250), 1.6)
        );
        assert_eq!((b.max_attempts(), c.queries[0].retries(), c.queries[0].sampling()), (Some(3), 2, None));
        assert_eq!(
            config(&[]).unwrap().queries[0].backoff(),
            &Backoff::builder(Strategy::Full).build().unwrap()
        );
    }

    #[test]
    fn csv_samples_one_sequence_by_default() {
        let c = config(&["--format", "csv", "--seed", "9"]).unwrap();
        assert_eq!(c.queries[0].sampling(), Some(Sampling { sequences: 1, seed: Some(9) }));
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn library_errors_name_the_option() {
        assert_eq!(
            usage_message(&["--multiplier", "0.5"]),
            "invalid value for --multiplier: invalid multiplier 0.5: must be at least 1"
        );
        assert!(usage_message(&["--factor", "2"]).starts_with("invalid value for --factor: "));
        assert!(usage_message(&["--factor", "NaN"]).contains("must be a finite number"));
        assert!(usage_message(&["--cap", "1ms", "--base", "1s"]).starts_with("invalid value for --cap: "));
        assert!(usage_message(&["--attempts", "0"]).starts_with("invalid value for --attempts: "));
        let base = usage_message(&["--base", "2m"]);
        assert!(
            base.starts_with("invalid value for --base: base 2m is above max_delay; raise --cap"),
            "{base}"
        );
        let samples = usage_message(&["--samples", "1000000", "--attempts", "1000"]);
        assert!(
            samples.starts_with("invalid value for --samples: 1000000 sequences of 999 retries"),
            "{samples}"
        );
    }

    #[test]
    fn a_list_of_strategies_is_a_query_each_with_the_same_parameters() {
        let c = config(&["--preset", "grpc", "--strategy", "full,decorrelated", "--samples", "4"]).unwrap();
        let strategies: Vec<Strategy> = c.queries.iter().map(|q| q.backoff().strategy()).collect();
        assert_eq!(strategies, [Strategy::Full, Strategy::Decorrelated]);
        assert!(c.queries.iter().all(|q| q.backoff().multiplier() == 1.6 && q.sampling().is_some()));
        assert_eq!(
            usage_message(&["--strategy", "full,full"]),
            "invalid value for --strategy: full is listed twice"
        );
        // No strategy of the list reads the factor: a warning naming them all.
        let c = config(&["--strategy", "full,equal", "--factor", "0.2"]).unwrap();
        assert_eq!(
            c.warnings,
            ["--factor has no effect on full and equal: only proportional and additive use it"]
        );
        assert!(config(&["--strategy", "full,additive", "--factor", "0.2"]).unwrap().warnings.is_empty());
    }

    #[test]
    fn plot_paths_and_schedules_without_retries_are_refused() {
        assert!(usage_message(&["--plot", "chart.png"])
            .starts_with("invalid value for --plot: chart.png does not end in .svg"));
        assert_eq!(
            usage_message(&["--plot", "chart.svg", "--attempts", "1"]),
            "invalid value for --plot: max_attempts 1 is a single call: there is no retry to plot"
        );
        let c = config(&["--plot", "chart.svg", "--format", "csv", "--strategy", "decorrelated"]).unwrap();
        assert_eq!(c.plot.as_deref(), Some(std::path::Path::new("chart.svg")));
        assert!(c.queries[0].report(0).has_estimates(), "the chart draws the medians, even with CSV");
    }

    #[test]
    fn ineffective_options_warn() {
        let options = ["--strategy", "decorrelated", "--factor", "0.2", "--multiplier", "3", "--seed", "1"];
        assert_eq!(config(&options).unwrap().warnings.len(), 3);
        assert!(config(&["--strategy", "additive", "--factor", "0.2"]).unwrap().warnings.is_empty());
    }
}
