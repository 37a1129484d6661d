//! `ScheduleConfig`: the options of `stagger schedule`, checked together and
//! turned into a [`Backoff`] and a plan for what to show, before anything runs.

use anyhow::{anyhow, Context};
use staggered::{Backoff, Preset};

use super::args::{ScheduleArgs, SAMPLES_FLAG};
use crate::exit::UsageError;
use crate::output::Format;

/// Retries shown for a schedule with no attempt limit (the `google` preset),
/// which would otherwise never end. `--attempts` sets a limit instead.
pub const UNLIMITED_SHOWN_RETRIES: u32 = 10;

/// The most retries a report shows. A longer schedule (`--attempts
/// 4294967295`) is cut there with a note: past a few dozen retries every row
/// is the same capped delay, and nobody reads a billion of them.
pub const MAX_SHOWN_RETRIES: u32 = 1000;

/// The most delays sampling may draw (`--samples` times the retries shown),
/// so memory stays under about 64 MB.
pub const MAX_SAMPLED_DELAYS: u64 = 4_000_000;

/// A validated `stagger schedule` invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleConfig {
    /// The preset the schedule started from, if any.
    pub preset: Option<Preset>,
    /// The schedule, with every option applied.
    pub backoff: Backoff,
    /// How many retries to show, from retry 1.
    pub shown_retries: u32,
    /// What to sample, if anything.
    pub sampling: Option<SamplingPlan>,
    /// The output format.
    pub format: Format,
    /// Options that were accepted but have no effect, explained.
    pub warnings: Vec<String>,
}

/// How many sequences to draw, and from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplingPlan {
    /// The number of sequences, at least 1.
    pub sequences: u32,
    /// The seed from `--seed`; `None` means one from OS entropy.
    pub seed: Option<u64>,
}

impl ScheduleConfig {
    /// Checks the options and builds the schedule.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault, with the library's
    /// [`ConfigError`](staggered::ConfigError) or our own limit as the cause.
    pub fn from_args(args: &ScheduleArgs) -> anyhow::Result<Self> {
        let backoff = args.backoff.build()?;
        let shown_retries = match backoff.max_attempts() {
            Some(attempts) => (attempts - 1).min(MAX_SHOWN_RETRIES),
            None => UNLIMITED_SHOWN_RETRIES,
        };
        let sequences = args.samples.or((args.format == Format::Csv).then_some(1));
        let sampling = sequences.map(|sequences| SamplingPlan { sequences, seed: args.seed });
        if let Some(plan) = sampling {
            let delays = u64::from(plan.sequences) * u64::from(shown_retries);
            if delays > MAX_SAMPLED_DELAYS {
                return Err(anyhow!(
                    "{} sequences of {shown_retries} retries are {delays} delays, more than the limit of \
                     {MAX_SAMPLED_DELAYS}; lower --samples or --attempts",
                    plan.sequences
                ))
                .context(UsageError::option(SAMPLES_FLAG));
            }
        }
        Ok(ScheduleConfig {
            preset: args.backoff.preset,
            backoff,
            shown_retries,
            sampling,
            format: args.format,
            warnings: warnings(args, &backoff, sampling.is_some()),
        })
    }
}

/// Notes on options that were accepted but change nothing here.
fn warnings(args: &ScheduleArgs, backoff: &Backoff, sampling: bool) -> Vec<String> {
    let mut warnings = args.backoff.warnings(backoff);
    if args.seed.is_some() && !sampling {
        warnings.push("--seed has no effect without --samples".to_owned());
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;
    use staggered::Strategy;
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
        let b = c.backoff;
        assert_eq!(b.strategy(), Strategy::Proportional);
        assert_eq!(b.base(), Duration::from_millis(250));
        assert_eq!(b.multiplier(), 1.6);
        assert_eq!(b.max_attempts(), Some(3));
        assert_eq!(c.shown_retries, 2);
        assert_eq!(c.sampling, None);
    }

    #[test]
    fn defaults_are_full_jitter() {
        let c = config(&[]).unwrap();
        assert_eq!(c.backoff, Backoff::builder(Strategy::Full).build().unwrap());
        assert_eq!(c.format, Format::Table);
    }

    #[test]
    fn rows_are_limited() {
        assert_eq!(config(&["--preset", "google"]).unwrap().shown_retries, UNLIMITED_SHOWN_RETRIES);
        assert_eq!(config(&["--preset", "google", "--attempts", "4"]).unwrap().shown_retries, 3);
        assert_eq!(config(&["--attempts", "4294967295"]).unwrap().shown_retries, MAX_SHOWN_RETRIES);
        assert_eq!(config(&["--attempts", "1"]).unwrap().shown_retries, 0);
    }

    #[test]
    fn csv_samples_one_sequence_by_default() {
        let c = config(&["--format", "csv", "--seed", "9"]).unwrap();
        assert_eq!(c.sampling, Some(SamplingPlan { sequences: 1, seed: Some(9) }));
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
        assert!(usage_message(&["--factor", "-0.5"]).starts_with("invalid value for --factor: "));
        assert!(usage_message(&["--cap", "1ms", "--base", "1s"]).starts_with("invalid value for --cap: "));
        assert!(usage_message(&["--attempts", "0"]).starts_with("invalid value for --attempts: "));
        let base = usage_message(&["--base", "2m"]);
        assert!(
            base.starts_with("invalid value for --base: base 2m is above max_delay; raise --cap"),
            "{base}"
        );
    }

    #[test]
    fn too_many_samples_are_refused() {
        let message = usage_message(&["--samples", "1000000", "--attempts", "1000"]);
        assert!(message.starts_with("invalid value for --samples: "), "{message}");
        assert!(config(&["--samples", "1000000", "--attempts", "5"]).is_ok());
    }

    #[test]
    fn ineffective_options_warn() {
        let c =
            config(&["--strategy", "decorrelated", "--factor", "0.2", "--multiplier", "3", "--seed", "1"])
                .unwrap();
        assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
        assert!(config(&["--strategy", "additive", "--factor", "0.2"]).unwrap().warnings.is_empty());
    }
}
