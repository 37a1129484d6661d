//! `RunConfig`: the options of `stagger run`, checked together and turned
//! into a schedule, the decision's limits and a plan for each attempt,
//! before anything runs.

use std::time::Duration;

use anyhow::anyhow;
use staggered::config::ClassificationConfig;
use staggered::{Backoff, Limits};

use super::args::{flag, RunArgs};
use super::child::{CommandLine, Isolation};
use super::log::LogFormat;
use crate::exit::UsageError;

/// A validated `stagger run` invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    /// The schedule, with every option applied.
    pub backoff: Backoff,
    /// The seed for the jitter, if the delays are to be reproducible.
    pub seed: Option<u64>,
    /// max_attempts (the schedule's) and the deadline (`--deadline`, or the
    /// schedule's), for the retry decision.
    pub limits: Limits,
    /// `--attempt-timeout`.
    pub attempt_timeout: Option<Duration>,
    /// `--kill-after`.
    pub kill_after: Duration,
    /// Which exit codes are retried, by the library's rule
    /// ([`ClassificationConfig::exit_code_kind`]).
    pub classification: ClassificationConfig,
    /// The log format.
    pub log_format: LogFormat,
    /// Whether retries go unlogged.
    pub quiet: bool,
    /// Where the command runs.
    pub isolation: Isolation,
    /// The command.
    pub command: CommandLine,
    /// Options that were accepted but have no effect, explained.
    pub warnings: Vec<String>,
}

impl RunConfig {
    /// Checks the options and builds the schedule.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let backoff = args.backoff.build()?;
        let deadline = args.deadline.or(backoff.deadline());
        positive(args.deadline, flag::DEADLINE)?;
        positive(args.attempt_timeout, flag::ATTEMPT_TIMEOUT)?;
        let mut classification = ClassificationConfig::default();
        if let Some(codes) = args.retry_on_exit {
            classification.retry_exit_codes = codes.to_list();
        } else if let Some(codes) = args.stop_on_exit {
            classification.stop_exit_codes = codes.to_list();
        }
        let mut warnings = args.backoff.warnings(&backoff);
        if let Some(codes) = args.retry_on_exit {
            if codes.contains(0) {
                warnings.push(format!("{} 0 has no effect: exit code 0 is success", flag::RETRY_ON_EXIT));
            }
        }
        let (program, rest) = args.command.split_first().ok_or_else(|| anyhow!("no command to run"))?;
        Ok(RunConfig {
            backoff,
            seed: args.seed,
            limits: Limits::NONE.with_max_attempts(backoff.max_attempts()).with_deadline(deadline),
            attempt_timeout: args.attempt_timeout,
            kill_after: args.kill_after,
            classification,
            log_format: args.log_format,
            quiet: args.quiet,
            isolation: if args.foreground { Isolation::Foreground } else { Isolation::ProcessGroup },
            command: CommandLine { program: program.clone(), args: rest.to_vec() },
            warnings,
        })
    }
}

/// Refuses a zero duration for `option`: it would stop every attempt at once.
fn positive(value: Option<Duration>, option: &'static str) -> anyhow::Result<()> {
    match value {
        Some(Duration::ZERO) => Err(anyhow!("must be more than 0, or every attempt is stopped at once")
            .context(UsageError::option(option))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;
    use staggered::Strategy;

    /// `stagger run`'s options alone, to parse them as the CLI does.
    #[derive(Debug, Parser)]
    struct Options {
        #[command(flatten)]
        args: RunArgs,
    }

    fn config(options: &[&str]) -> anyhow::Result<RunConfig> {
        let options = Options::try_parse_from(["run"].iter().chain(options)).expect("clap accepts");
        RunConfig::from_args(&options.args)
    }

    #[test]
    fn schedule_options_build_the_schedule_and_the_limits() {
        let c =
            config(&["--strategy", "constant", "--base", "10ms", "--attempts", "3", "--", "true"]).unwrap();
        assert_eq!(c.backoff.strategy(), Strategy::Constant);
        assert_eq!(c.limits, Limits::NONE.with_max_attempts(Some(3)));
        assert_eq!(c.classification, ClassificationConfig::default());
        assert_eq!(c.isolation, Isolation::ProcessGroup);
        assert_eq!(c.kill_after, Duration::from_secs(2));
        assert_eq!(c.command, CommandLine { program: "true".into(), args: vec![] });
    }

    #[test]
    fn the_deadline_comes_from_the_option_or_the_preset() {
        let google = config(&["--preset", "google", "--", "true"]).unwrap();
        assert_eq!(google.limits.deadline, Some(Duration::from_secs(15 * 60)));
        assert_eq!(google.limits.max_attempts, None);
        let mine = config(&["--preset", "google", "--deadline", "300ms", "--", "true"]).unwrap();
        assert_eq!(mine.limits.deadline, Some(Duration::from_millis(300)));
    }

    #[test]
    fn the_command_keeps_its_own_options() {
        let c = config(&["--quiet", "--", "sh", "-c", "exit 3", "--quiet"]).unwrap();
        assert!(c.quiet);
        assert_eq!(c.command.program, "sh");
        assert_eq!(c.command.args, ["-c", "exit 3", "--quiet"]);
        // Without `--`, everything from the first word on is the command's.
        let c = config(&["curl", "-f", "--attempts", "9"]).unwrap();
        assert_eq!(c.command.args, ["-f", "--attempts", "9"]);
        assert_eq!(c.limits.max_attempts, Some(5));
    }

    #[test]
    fn exit_code_rules() {
        let c = config(&["--stop-on-exit", "2,4", "--", "true"]).unwrap();
        assert_eq!(
            (c.classification.retry_exit_codes, c.classification.stop_exit_codes),
            (vec![], vec![2, 4])
        );
        let c = config(&["--retry-on-exit", "0-3", "--", "true"]).unwrap();
        assert_eq!(c.classification.retry_exit_codes, [1, 2, 3]);
        assert_eq!(c.warnings, ["--retry-on-exit 0 has no effect: exit code 0 is success"]);
    }

    #[test]
    fn zero_durations_are_refused_naming_the_option() {
        for option in ["--attempt-timeout", "--deadline"] {
            let err = config(&[option, "0", "--", "true"]).unwrap_err();
            assert_eq!(Exit::of_error(&err), Exit::Usage);
            assert!(
                format!("{err:#}").starts_with(&format!("invalid value for {option}: must be more than 0"))
            );
        }
        assert_eq!(config(&["--kill-after", "0", "--", "true"]).unwrap().kill_after, Duration::ZERO);
    }

    #[test]
    fn schedule_errors_name_the_option() {
        let err = config(&["--multiplier", "0.5", "--", "true"]).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert!(format!("{err:#}").starts_with("invalid value for --multiplier"));
    }
}
