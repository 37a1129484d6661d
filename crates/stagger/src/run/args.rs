//! The raw options of `stagger run`, as clap parses them: the shared
//! schedule options ([`BackoffArgs`]) and its own. [`RunConfig`](super::RunConfig)
//! checks them together, with the `--config` file's values beneath them.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::codes::{self, ExitCodes};
use super::log::LogFormat;
use super::stdin::StdinMode;
use crate::backoff_args::BackoffArgs;
use crate::duration;

/// The options of `stagger run` (its help text is on
/// [`Command::Run`](crate::cli::Command::Run)).
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Read the schedule, limits and exit codes from a TOML or JSON file;
    /// options given override its values.
    ///
    /// The format is the extension's, `.toml` or `.json`; a file with
    /// neither is read as TOML, then as JSON. Each option given on the
    /// command line overrides the file's value, which overrides the
    /// preset's and the default: options > file > preset > defaults.
    /// `--retry-on-exit` or `--stop-on-exit` replaces both of the file's
    /// exit-code lists. Fields are those of the library's `RetryConfig`:
    /// `[schedule]` (preset, strategy, base, multiplier, max_delay, factor,
    /// cap_mode, max_attempts, deadline, granularity, seed), `[limits]`
    /// (deadline, attempt_timeout), `[classification]` (retry_exit_codes,
    /// stop_exit_codes). An unknown field is an error, naming it.
    /// `--throttle-code` adds to the file's `throttling_codes`.
    ///
    /// Accepted but ignored, with a warning: a `[budget]` and a
    /// `[rate_limiter]`, since each bounds the attempts of many operations
    /// and one `stagger run` is one operation; and without --http-headers, `limits.max_hint`,
    /// `limits.hint_jitter` and the HTTP `retry_statuses`,
    /// `stop_statuses`, `throttling_codes` and `bare_503_is_throttle`,
    /// which only a server's response uses. They are still
    /// checked, so a file shared with a service is valid for both.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The schedule options, shared with `stagger schedule`.
    #[command(flatten)]
    pub backoff: BackoffArgs,

    /// Seed for the jitter: the same seed gives the same delays [default:
    /// the file's schedule.seed, else from OS entropy].
    #[arg(long, value_name = "S", value_parser = crate::numbers::seed, allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The total time budget from the start of attempt 1, attempts
    /// included: a running attempt is stopped there, and no wait ends past
    /// it: when the next wait would, stagger gives up at once, saying how
    /// long the wait was and how much time was left [default: the file's
    /// limits.deadline or schedule.deadline, else the preset's, else none].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true)]
    pub deadline: Option<Duration>,

    /// Stop an attempt that runs longer than this (SIGTERM, then SIGKILL
    /// after --kill-after) and count it as a failure to retry; its status is
    /// 124 [default: the file's limits.attempt_timeout, else no limit].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true)]
    pub attempt_timeout: Option<Duration>,

    /// The grace between SIGTERM and SIGKILL: for an attempt stopped at its
    /// time limit, for a command that has not ended on a cancelling signal
    /// passed on to it, and for what a failed attempt left running in its
    /// process group.
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, default_value = "2s")]
    pub kill_after: Duration,

    /// Retry only these non-zero exit codes; any other stops at once. A
    /// comma list of codes and ranges, such as 1,2,75-78 [default: the
    /// file's classification, else retry every non-zero exit code].
    #[arg(long, value_name = "CODES", value_parser = codes::parse, conflicts_with = "stop_on_exit", allow_hyphen_values = true)]
    pub retry_on_exit: Option<ExitCodes>,

    /// Stop at once on these exit codes, and retry any other non-zero one.
    /// Same form as --retry-on-exit.
    ///
    /// Both lists classify a command killed by signal N as the status
    /// 128+N (137 for SIGKILL). SIGPIPE (141), which means the reader of
    /// the command's output has gone, stops unless --retry-on-exit names it.
    #[arg(long, value_name = "CODES", value_parser = codes::parse, allow_hyphen_values = true)]
    pub stop_on_exit: Option<ExitCodes>,

    /// After each failed attempt, read the HTTP response the command wrote
    /// to FILE (`curl -D FILE`) and retry by it: 4xx other than 408 and 429
    /// stop, 408, 429 and 5xx are retried, waiting at least the server's
    /// Retry-After (or, without one, until the reset of a quota its
    /// RateLimit or X-RateLimit headers say is spent). FILE is emptied before each attempt; an attempt that
    /// left no response there is classified by its exit code.
    #[arg(long, value_name = "FILE")]
    pub http_headers: Option<PathBuf>,

    /// Also read the start of the response's body (at most 4 KiB) from
    /// FILE, where the command writes it (`curl -o FILE`), for the
    /// throttling a body says: an AWS code such as S3's
    /// `<Code>SlowDown</Code>` or DynamoDB's `ThrottlingException`, or
    /// GitHub's secondary rate limit (retried after its Retry-After, else a
    /// minute, where a 403 would stop). FILE is emptied before each
    /// attempt, as the headers' file is; only the body of a 400, 403, 429
    /// or 503 that the headers have not decided is read.
    #[arg(long, value_name = "FILE", requires = "http_headers")]
    pub http_body: Option<PathBuf>,

    /// Count an HTTP failure whose error code (in x-amzn-ErrorType, or
    /// with --http-body in the body) is CODE as a throttle, besides the
    /// AWS SDKs' throttling codes; repeat for more. A throttle is retried
    /// whatever its status (a 400 or 403 too) and logged as `throttled`.
    /// Joins the file's classification.throttling_codes.
    #[arg(long = "throttle-code", value_name = "CODE", value_parser = throttle_code, requires = "http_headers")]
    pub throttle_codes: Vec<String>,

    /// Count a bare HTTP 503 (no Retry-After, no error code) as a throttle
    /// rather than a transient failure, for a server behind a rate limiter
    /// that answers its excess so (nginx's limit_req does, unless
    /// `limit_req_status 429` is set) [default: the file's
    /// classification.bare_503_is_throttle, else off].
    #[arg(long, requires = "http_headers")]
    pub bare_503_is_throttle: bool,

    /// The longest server hint (Retry-After) to wait for; a longer one
    /// stops the retrying [default: the file's limits.max_hint, else the
    /// schedule's largest delay (--cap) or one minute, whichever is longer].
    #[arg(long, value_name = "DUR", value_parser = duration::parse, allow_hyphen_values = true, requires = "http_headers")]
    pub max_hint: Option<Duration>,

    /// What each attempt reads on its standard input: `inherit` (stagger's,
    /// where the last attempt left it) or `replay` (all of stagger's
    /// standard input, read before attempt 1, at most 64 MiB, to every
    /// attempt).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = StdinMode::Inherit)]
    pub stdin: StdinMode,

    /// Leave running what a failed attempt started in the background in its
    /// process group, instead of ending it (SIGTERM, then SIGKILL after
    /// --kill-after) before the next attempt.
    #[arg(long)]
    pub keep_leftovers: bool,

    /// How to log retries on standard error: a line of text each, or a JSON
    /// object per line (`retry_attempt`, then `give_up` if it gives up, and a
    /// `summary` last).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,

    /// Log no retries and no give-up, and show no countdown; errors still
    /// show.
    #[arg(long, short)]
    pub quiet: bool,

    /// Run the command in stagger's process group, so that it can read the
    /// terminal. Then a time limit stops only its own process, not its
    /// children or leftovers, and of the signals stagger receives only
    /// SIGTERM is passed on (the terminal signals the whole group itself).
    #[arg(long)]
    pub foreground: bool,

    /// The command to run and its arguments, best after `--`.
    // Without `allow_hyphen_values`, an unknown option before the command
    // (a mistyped `--atempts`) is a usage error, not the command's name;
    // from the command's first word on, `trailing_var_arg` passes every
    // word to it, options included.
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        value_parser = clap::value_parser!(OsString)
    )]
    pub command: Vec<OsString>,
}

/// `--throttle-code CODE`: a code of the form a response's code can match.
fn throttle_code(text: &str) -> Result<String, String> {
    if staggered::classify::throttling::is_code(text) {
        Ok(text.to_owned())
    } else {
        Err("must be letters, digits, '.', '_' or '-'".to_owned())
    }
}

/// The options of `stagger run` that an error message can blame, besides
/// the shared schedule options. A test checks them against the clap
/// definition.
pub mod flag {
    /// `--deadline`
    pub const DEADLINE: &str = "--deadline";
    /// `--attempt-timeout`
    pub const ATTEMPT_TIMEOUT: &str = "--attempt-timeout";
    /// `--retry-on-exit`
    pub const RETRY_ON_EXIT: &str = "--retry-on-exit";
    /// `--http-headers`
    pub const HTTP_HEADERS: &str = "--http-headers";
    /// `--http-body`
    pub const HTTP_BODY: &str = "--http-body";
    /// `--max-hint`
    pub const MAX_HINT: &str = "--max-hint";
    /// `--stdin`
    pub const STDIN: &str = "--stdin";

    /// Every flag above.
    #[cfg(test)]
    pub const ALL: [&str; 7] =
        [DEADLINE, ATTEMPT_TIMEOUT, RETRY_ON_EXIT, HTTP_HEADERS, HTTP_BODY, MAX_HINT, STDIN];
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn flags_are_real() {
        let cli = crate::cli::Cli::command();
        let run = cli.find_subcommand("run").expect("run subcommand");
        for flag in flag::ALL {
            let long = flag.trim_start_matches("--");
            assert!(run.get_arguments().any(|arg| arg.get_long() == Some(long)), "{flag}");
        }
    }
}
