//! `ScheduleConfig`: the options of `stagger schedule`, checked together and
//! turned into the simulator's [`ScheduleQuery`] before anything runs.

use anyhow::Context;
use staggered_sim::ScheduleQuery;

use super::args::{ScheduleArgs, SAMPLES_FLAG};
use crate::exit::UsageError;
use crate::output::Format;

/// A validated `stagger schedule` invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleConfig {
    /// What to report: the schedule, the retries shown, what to sample.
    pub query: ScheduleQuery,
    /// The output format.
    pub format: Format,
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
        let backoff = args.backoff.build()?;
        let mut query = ScheduleQuery::new(backoff).with_preset(args.backoff.preset);
        // CSV is the samples: one sequence unless told otherwise, and no medians.
        if args.format == Format::Csv {
            query = query.without_median_estimates();
        }
        let sequences = args.samples.or((args.format == Format::Csv).then_some(1));
        if let Some(sequences) = sequences {
            query = query.with_sampling(sequences, args.seed).context(UsageError::option(SAMPLES_FLAG))?;
        }
        let mut warnings = args.backoff.warnings(&backoff);
        if args.seed.is_some() && sequences.is_none() {
            warnings.push("--seed has no effect without --samples".to_owned());
        }
        Ok(ScheduleConfig { query, format: args.format, warnings })
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
        let b = c.query.backoff();
        assert_eq!(
            (b.strategy(), b.base(), b.multiplier()),
            (Strategy::Proportional, Duration::from_millis(250), 1.6)
        );
        assert_eq!((b.max_attempts(), c.query.retries(), c.query.sampling()), (Some(3), 2, None));
        assert_eq!(config(&[]).unwrap().query.backoff(), &Backoff::builder(Strategy::Full).build().unwrap());
    }

    #[test]
    fn csv_samples_one_sequence_by_default() {
        let c = config(&["--format", "csv", "--seed", "9"]).unwrap();
        assert_eq!(c.query.sampling(), Some(Sampling { sequences: 1, seed: Some(9) }));
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
    fn ineffective_options_warn() {
        let options = ["--strategy", "decorrelated", "--factor", "0.2", "--multiplier", "3", "--seed", "1"];
        assert_eq!(config(&options).unwrap().warnings.len(), 3);
        assert!(config(&["--strategy", "additive", "--factor", "0.2"]).unwrap().warnings.is_empty());
    }
}
