//! `RunConfig`: the options of `stagger run` and its `--config` file,
//! checked together and turned into a retry policy (a schedule and its
//! limits) and a plan for each attempt, before anything runs.
//!
//! Precedence, field by field: an option given on the command line, else
//! the file's value, else the preset's (`--preset`, else the file's
//! `schedule.preset`), else the default. The file and the options meet in
//! the library's [`RetryConfig`], which derives the limits as it does for
//! any other driver.

use std::path::Path;
use std::time::Duration;

use anyhow::anyhow;
use staggered::config::{ClassificationConfig, RetryConfig};
use staggered::{RetryPolicy, SERVICE_MAX_HINT};

use super::args::{flag, RunArgs};
use super::file;
use super::group::{Isolation, Leftovers};
use super::http::HeaderDump;
use super::log::LogFormat;
use super::spawn::CommandLine;
use super::stdin::StdinMode;
use crate::exit::UsageError;

/// A validated `stagger run` invocation.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The schedule, with the file's fields and every option applied, and
    /// the seed (`--seed`, else `schedule.seed`) if the delays and the
    /// jitter added to server hints are to be reproducible; with its
    /// limits: max_attempts (the schedule's), the deadline (`--deadline`,
    /// else `limits.deadline`, else the schedule's) and the hint limits
    /// (`--max-hint`, else `limits.max_hint`, else the largest delay, at
    /// least a minute with `--http-headers`).
    pub policy: RetryPolicy,
    /// `--attempt-timeout`, else `limits.attempt_timeout`.
    pub attempt_timeout: Option<Duration>,
    /// `--kill-after`.
    pub kill_after: Duration,
    /// Which exit codes are retried: `--retry-on-exit` or `--stop-on-exit`,
    /// else the file's `retry_exit_codes` and `stop_exit_codes`.
    pub classification: ClassificationConfig,
    /// `--http-headers` (and `--http-body`): where the command writes its
    /// HTTP responses, and how they are classified (the file's status
    /// lists and throttling settings, with `--throttle-code` and
    /// `--bare-503-is-throttle`).
    pub http: Option<HeaderDump>,
    /// `--stdin`.
    pub stdin: StdinMode,
    /// `--keep-leftovers`.
    pub leftovers: Leftovers,
    /// The log format.
    pub log_format: LogFormat,
    /// Whether retries go unlogged.
    pub quiet: bool,
    /// Where the command runs.
    pub isolation: Isolation,
    /// The command.
    pub command: CommandLine,
    /// Options and file fields that were accepted but have no effect, explained.
    pub warnings: Vec<String>,
}

impl RunConfig {
    /// Reads the `--config` file, if any, checks the options and builds the
    /// schedule.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault, or the file and its field.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let (mut config, mut warnings) = match &args.config {
            Some(path) => {
                let file = file::load(path, args.http_headers.is_some())?;
                (file.config, file.warnings)
            }
            None => (RetryConfig::default(), Vec::new()),
        };
        let path = args.config.as_deref();

        config.schedule = args.backoff.over(config.schedule);
        if args.seed.is_some() {
            config.schedule.seed = args.seed;
        }
        let backoff = args.backoff.build_schedule(&config.schedule, path)?;
        positive(args.deadline, flag::DEADLINE)?;
        positive(args.attempt_timeout, flag::ATTEMPT_TIMEOUT)?;
        if args.deadline.is_some() {
            config.limits.deadline = args.deadline;
        }
        if args.attempt_timeout.is_some() {
            config.limits.attempt_timeout = args.attempt_timeout;
        }
        if args.max_hint.is_some() {
            config.limits.max_hint = args.max_hint;
        }
        // Either option replaces both of the file's lists: together they are
        // one rule, and the two options cannot be combined either.
        let classification = &mut config.classification;
        if let Some(codes) = args.retry_on_exit {
            classification.retry_exit_codes = codes.to_list();
            classification.stop_exit_codes.clear();
        } else if let Some(codes) = args.stop_on_exit {
            classification.stop_exit_codes = codes.to_list();
            classification.retry_exit_codes.clear();
        }
        // The codes of both only add to the AWS SDKs' list: nothing to override.
        classification.throttling_codes.extend(args.throttle_codes.iter().cloned());
        if args.bare_503_is_throttle {
            classification.bare_503_is_throttle = true;
        }
        let limits = config.limits().map_err(|err| blame(err.into(), path))?;
        let http = match &args.http_headers {
            Some(file) => {
                let mut dump = HeaderDump::new(file.clone(), config.classification.http());
                dump.check()
                    .map_err(|message| anyhow!(message).context(UsageError::option(flag::HTTP_HEADERS)))?;
                if let Some(body) = &args.http_body {
                    dump = dump.with_body(body.clone());
                    dump.check_body()
                        .map_err(|message| anyhow!(message).context(UsageError::option(flag::HTTP_BODY)))?;
                }
                Some(dump)
            }
            None => None,
        };
        // A command that speaks HTTP gets the HTTP integrations' default:
        // servers ask for seconds to a minute, whatever the schedule's cap.
        let limits = match (&http, config.limits.max_hint) {
            (Some(_), None) => limits.with_max_hint(limits.max_hint.map(|max| max.max(SERVICE_MAX_HINT))),
            _ => limits,
        };

        warnings.extend(args.backoff.warnings(&backoff));
        if let Some(codes) = args.retry_on_exit {
            if codes.contains(0) {
                warnings.push(format!("{} 0 has no effect: exit code 0 is success", flag::RETRY_ON_EXIT));
            }
        }
        if limits.max_attempts.is_none() && limits.deadline.is_none() {
            warnings.push(
                "no max_attempts and no deadline: the command is retried until it succeeds or stagger is \
                 stopped"
                    .to_owned(),
            );
        }
        let (program, rest) = args.command.split_first().ok_or_else(|| anyhow!("no command to run"))?;
        let policy = RetryPolicy::new(backoff).with_limits(limits).map_err(|err| blame(err.into(), path))?;
        Ok(RunConfig {
            policy,
            attempt_timeout: config.attempt_timeout(),
            kill_after: args.kill_after,
            classification: config.classification,
            http,
            stdin: args.stdin,
            leftovers: if args.keep_leftovers { Leftovers::Keep } else { Leftovers::End },
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

/// An error of the options and the file together: the file's, if there is one.
fn blame(err: anyhow::Error, file: Option<&Path>) -> anyhow::Error {
    match file {
        Some(path) => err.context(UsageError::file(path)),
        None => err.context(UsageError::options()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;
    use staggered::{Schedule, Strategy};

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
        assert_eq!(c.policy.schedule().strategy(), Strategy::Constant);
        assert_eq!((c.policy.limits().max_attempts, c.policy.limits().deadline), (Some(3), None));
        assert_eq!(c.classification, ClassificationConfig::default());
        assert_eq!(c.policy.schedule().seed(), None);
        assert_eq!(c.isolation, Isolation::ProcessGroup);
        assert_eq!(c.kill_after, Duration::from_secs(2));
        assert_eq!(c.command, CommandLine { program: "true".into(), args: vec![] });
    }

    #[test]
    fn the_deadline_comes_from_the_option_or_the_preset() {
        let google = config(&["--preset", "google", "--", "true"]).unwrap();
        assert_eq!(google.policy.limits().deadline, Some(Duration::from_secs(15 * 60)));
        assert_eq!(google.policy.limits().max_attempts, None);
        let mine = config(&["--preset", "google", "--deadline", "300ms", "--", "true"]).unwrap();
        assert_eq!(mine.policy.limits().deadline, Some(Duration::from_millis(300)));
    }

    /// A file holding every field `stagger run` reads, none at its default.
    const EVERY_FIELD: &str = r#"
        [schedule]
        preset = "batch"
        strategy = "proportional"
        base = "20ms"
        multiplier = 3
        max_delay = "1s"
        factor = 0.25
        cap_mode = "interval"
        max_attempts = 7
        deadline = "1m"
        granularity = "5ms"
        seed = 42

        [limits]
        deadline = "30s"
        attempt_timeout = "4s"

        [classification]
        retry_exit_codes = [75, 111]
        stop_exit_codes = [3]
    "#;

    /// `options` with `--config` naming a file that holds `text`.
    fn with_file(name: &str, text: &str, options: &[&str]) -> anyhow::Result<RunConfig> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let mut all = vec!["--config", path];
        all.extend(options);
        all.extend(["--", "true"]);
        config(&all)
    }

    #[test]
    fn every_field_of_the_file_takes_effect_as_the_library_reads_it() {
        let library = RetryConfig::from_toml_str(EVERY_FIELD).unwrap();
        let c = with_file("retry.toml", EVERY_FIELD, &[]).unwrap();
        assert_eq!(c.policy.schedule(), &library.backoff().unwrap());
        assert_eq!(c.policy.schedule().seed(), Some(42));
        assert_eq!(c.policy.schedule().granularity(), Some(Duration::from_millis(5)));
        assert_eq!(c.policy.limits(), &library.limits().unwrap());
        assert_eq!(
            (c.policy.limits().max_attempts, c.policy.limits().deadline),
            (Some(7), Some(Duration::from_secs(30)))
        );
        assert_eq!(c.attempt_timeout, Some(Duration::from_secs(4)));
        assert_eq!(c.classification, library.classification);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn options_override_the_file_field_by_field() {
        let c = with_file(
            "retry.toml",
            EVERY_FIELD,
            &[
                "--preset",
                "interactive",
                "--strategy",
                "exponential",
                "--base",
                "30ms",
                "--multiplier",
                "2",
                "--cap",
                "2s",
                "--factor",
                "0.5",
                "--cap-mode",
                "delay",
                "--attempts",
                "2",
                "--seed",
                "9",
                "--deadline",
                "10s",
                "--attempt-timeout",
                "1s",
                "--stop-on-exit",
                "9",
            ],
        )
        .unwrap();
        let b = c.policy.schedule();
        assert_eq!(
            (b.strategy(), b.base(), b.multiplier()),
            (Strategy::Exponential, Duration::from_millis(30), 2.0)
        );
        assert_eq!(
            (b.max_delay(), b.factor(), b.cap_mode()),
            (Duration::from_secs(2), 0.5, staggered::CapMode::Delay)
        );
        assert_eq!((b.max_attempts(), b.seed()), (Some(2), Some(9)));
        // Not on the command line: still the file's.
        assert_eq!(
            (b.granularity(), b.deadline()),
            (Some(Duration::from_millis(5)), Some(Duration::from_secs(60)))
        );
        assert_eq!(
            (c.policy.limits().max_attempts, c.policy.limits().deadline),
            (Some(2), Some(Duration::from_secs(10)))
        );
        assert_eq!(c.attempt_timeout, Some(Duration::from_secs(1)));
        // Either exit-code option replaces both of the file's lists.
        assert_eq!((c.classification.retry_exit_codes, c.classification.stop_exit_codes), (vec![], vec![9]));
        let c = with_file("retry.toml", EVERY_FIELD, &["--retry-on-exit", "1"]).unwrap();
        assert_eq!((c.classification.retry_exit_codes, c.classification.stop_exit_codes), (vec![1], vec![]));
    }

    #[test]
    fn the_file_overrides_the_preset_and_a_preset_option_only_the_files_preset() {
        // The file's preset is batch; its base wins over the preset's.
        let file = "[schedule]\npreset = \"batch\"\nbase = \"20ms\"\n";
        let c = with_file("retry.toml", file, &[]).unwrap();
        let batch = staggered::Preset::Batch.builder().build().unwrap();
        assert_eq!(
            (c.policy.schedule().strategy(), c.policy.schedule().base()),
            (batch.strategy(), Duration::from_millis(20))
        );
        // --preset replaces the file's preset, and the file's base still wins over it.
        let c = with_file("retry.toml", file, &["--preset", "aws"]).unwrap();
        let aws = staggered::Preset::Aws.builder().build().unwrap();
        assert_eq!(
            (c.policy.schedule().strategy(), c.policy.schedule().base()),
            (aws.strategy(), Duration::from_millis(20))
        );
        assert_eq!(c.policy.schedule().max_delay(), aws.max_delay());
    }

    #[test]
    fn the_limits_deadline_wins_over_the_schedules_and_the_option_over_both() {
        let file = "[schedule]\ndeadline = \"1m\"\n";
        assert_eq!(
            with_file("r.toml", file, &[]).unwrap().policy.limits().deadline,
            Some(Duration::from_secs(60))
        );
        let file = "[schedule]\ndeadline = \"1m\"\n[limits]\ndeadline = \"2s\"\n";
        assert_eq!(
            with_file("r.toml", file, &[]).unwrap().policy.limits().deadline,
            Some(Duration::from_secs(2))
        );
        let c = with_file("r.toml", file, &["--deadline", "1s"]).unwrap();
        assert_eq!(c.policy.limits().deadline, Some(Duration::from_secs(1)));
    }

    #[test]
    fn errors_of_options_over_a_file_blame_the_option_else_the_file() {
        let file = "[schedule]\nmax_delay = \"5s\"\n";
        let err = with_file("r.toml", file, &["--base", "10s"]).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert!(
            format!("{err:#}").starts_with("invalid value for --base: base 10s is above max_delay"),
            "{err:#}"
        );
        // The file's base is above the cap of the preset the option chose.
        let err =
            with_file("r.toml", "[schedule]\nbase = \"20s\"\n", &["--preset", "interactive"]).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert!(format!("{err:#}").contains("r.toml: schedule.max_delay: invalid max_delay"), "{err:#}");
    }

    #[test]
    fn fields_that_do_nothing_for_a_command_are_warned_about() {
        let file = "[limits]\nmax_hint = \"1s\"\n[classification]\nstop_statuses = [501]\n\
                    [budget]\nkind = \"token_bucket\"\n";
        let c = with_file("r.toml", file, &[]).unwrap();
        assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
        assert!(c.warnings[0].ends_with("r.toml: budget is ignored: a budget bounds the retries of many operations, and one stagger run is one operation"));
        assert!(c.warnings[1].ends_with(
            "r.toml: limits.max_hint has no effect without --http-headers: a command gives no server hints"
        ));
        assert!(c.warnings[2].contains("classification.stop_statuses has no effect"));
        let c = with_file("r.toml", "[schedule]\nmax_attempts = \"unlimited\"\n", &[]).unwrap();
        assert_eq!(c.warnings, ["no max_attempts and no deadline: the command is retried until it succeeds or stagger is stopped"]);
        assert!(with_file("r.toml", "[schedule]\nmax_attempts = \"unlimited\"\n", &["--deadline", "1m"])
            .unwrap()
            .warnings
            .is_empty());
    }

    #[test]
    fn http_headers_bring_the_hint_limits_and_status_lists_into_play() {
        let dir = tempfile::tempdir().unwrap();
        let headers = dir.path().join("headers");
        let headers = headers.to_str().unwrap();
        let file = "[limits]\nmax_hint = \"2m\"\nhint_jitter = 0\n[classification]\nretry_statuses = [409]\n";
        let c = with_file("r.toml", file, &["--http-headers", headers, "--seed", "7"]).unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(
            (c.policy.limits().max_hint, c.policy.limits().hint_jitter),
            (Some(Duration::from_secs(120)), 0.0)
        );
        assert_eq!(c.policy.schedule().hint_seed(), Some(7));
        let http = c.http.expect("--http-headers");
        assert_eq!(http.path(), std::path::Path::new(headers));
        assert_eq!(
            http,
            HeaderDump::new(headers.into(), staggered::http::ClassifyHttp::new().with_retry_status(409))
        );
        // --max-hint wins over the file; without either, the largest delay
        // or a minute, whichever is longer, as the HTTP integrations do.
        let c = with_file("r.toml", file, &["--http-headers", headers, "--max-hint", "5s"]).unwrap();
        assert_eq!(c.policy.limits().max_hint, Some(Duration::from_secs(5)));
        let c = config(&["--cap", "7s", "--http-headers", headers, "--", "true"]).unwrap();
        assert_eq!(c.policy.limits().max_hint, Some(Duration::from_secs(60)));
        let c = config(&["--cap", "2m", "--http-headers", headers, "--", "true"]).unwrap();
        assert_eq!(c.policy.limits().max_hint, Some(Duration::from_secs(120)));
        // Without --http-headers, the same file is warned about.
        assert_eq!(with_file("r.toml", file, &[]).unwrap().warnings.len(), 3);
    }

    #[test]
    fn throttling_options_join_the_files_settings() {
        let dir = tempfile::tempdir().unwrap();
        let headers = dir.path().join("headers");
        let body = dir.path().join("body");
        let (headers, body) = (headers.to_str().unwrap(), body.to_str().unwrap());
        let file = "[classification]\nthrottling_codes = [\"QuotaExceeded\"]\n";
        let c = with_file(
            "r.toml",
            file,
            &[
                "--http-headers",
                headers,
                "--http-body",
                body,
                "--throttle-code",
                "Busy",
                "--bare-503-is-throttle",
            ],
        )
        .unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.classification.throttling_codes, ["QuotaExceeded", "Busy"]);
        let expected = staggered::http::ClassifyHttp::new()
            .with_throttling_codes(["QuotaExceeded", "Busy"])
            .with_bare_503_as_throttle(true);
        assert_eq!(c.http, Some(HeaderDump::new(headers.into(), expected).with_body(body.into())));
        // The file's setting holds without the option; neither is on by default.
        let c = with_file(
            "r.toml",
            "[classification]\nbare_503_is_throttle = true\n",
            &["--http-headers", headers],
        )
        .unwrap();
        assert!(c.classification.bare_503_is_throttle);
        assert!(
            !config(&["--http-headers", headers, "--", "true"]).unwrap().classification.bare_503_is_throttle
        );
        // A directory cannot be the body's file.
        let err =
            config(&["--http-headers", headers, "--http-body", dir.path().to_str().unwrap(), "--", "true"])
                .unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert!(format!("{err:#}").starts_with("invalid value for --http-body: "), "{err:#}");
    }

    #[test]
    fn stdin_and_leftovers_default_to_inherit_and_end() {
        let c = config(&["--", "true"]).unwrap();
        assert_eq!((c.stdin, c.leftovers, c.http), (StdinMode::Inherit, Leftovers::End, None));
        let c = config(&["--stdin", "replay", "--keep-leftovers", "--", "true"]).unwrap();
        assert_eq!((c.stdin, c.leftovers), (StdinMode::Replay, Leftovers::Keep));
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
        assert_eq!(c.policy.limits().max_attempts, Some(5));
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
