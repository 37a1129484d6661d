//! The command line: the top-level [`Cli`] and one [`Command`] variant per
//! subcommand. A new subcommand is one variant here, one arm in
//! [`Command::execute`], and one module beside `schedule`.

use clap::{Parser, Subcommand};

use crate::exit::Exit;
use crate::generate::{self, CompletionsArgs, ManArgs};
#[cfg(unix)]
use crate::run::{self, RunArgs};
use crate::schedule::{self, ScheduleArgs};
use crate::simulate::{self, SimulateArgs};

/// Retry with exponential backoff and jitter: show schedules, run commands,
/// simulate fleets.
#[derive(Debug, Parser)]
#[command(
    name = "stagger",
    version,
    about,
    propagate_version = true,
    after_help = "Exit codes: 0 success, 1 failure (such as an unwritable output), 2 bad options; \
                  `stagger run` exits with its command's status (see `stagger run --help`)."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show a schedule: each retry's interval and the range of its delay.
    ///
    /// One row per retry (retry r is the wait before attempt r+1): the interval
    /// x(r) and the min, median and max of the delay; `--samples K` adds
    /// sampled percentiles. Durations are written like `250ms`, `1.5s`, `2m`,
    /// `1m30s`, `10us` or `0`. A schedule with no attempt limit (the `google`
    /// preset) shows its first 10 retries, and at most 1000 retries are shown;
    /// `--attempts N` sets the limit.
    ///
    /// `--strategy full,equal,decorrelated` compares strategies with the same
    /// other parameters: a table per strategy, and with `--plot` one chart.
    #[command(
        mut_arg("strategies", |arg| arg
            .value_name("NAME[,NAME...]")
            .help("The strategy, or several to compare, comma-separated [default: full, or the preset's]")
            .long_help(
                "The strategy [default: full, or the preset's].\n\nSeveral, comma-separated, compare \
                 strategies with the same other parameters: a table per strategy, one chart."
            )),
        after_help = "Examples:\n  stagger schedule --preset google\n  \
                      stagger schedule --strategy full,decorrelated --base 100ms --cap 10s --attempts 8 --plot chart.svg\n  \
                      stagger schedule --preset aws --samples 3 --seed 7 --format csv"
    )]
    Schedule(ScheduleArgs),

    /// Run a command, and retry it with backoff while it fails.
    ///
    /// `stagger run [OPTIONS] -- COMMAND [ARGS...]` runs COMMAND with stagger's
    /// standard input, output and error, and retries it per the schedule
    /// (the options of `stagger schedule`; default full jitter, base 1s,
    /// 5 attempts) while it fails: any non-zero exit code (or only those of
    /// --retry-on-exit, or all but those of --stop-on-exit), a signal, or a
    /// time limit. A command killed by signal N counts as exit code 128+N
    /// for those lists; SIGPIPE (141: the reader of its output has gone)
    /// stops unless --retry-on-exit names it. With --http-headers, the HTTP
    /// response the command wrote (curl -D FILE) decides instead: 4xx other
    /// than 408 and 429 stop, and Retry-After sets the wait; a throttle is
    /// retried whatever its status: an AWS throttling code (x-amzn-ErrorType,
    /// or with --http-body the body's, such as S3's SlowDown) or one of
    /// --throttle-code, and GitHub's rate limits (until the quota's reset,
    /// or a minute). Each retry is logged on standard error, with a
    /// countdown to the next attempt when that is a terminal.
    ///
    /// The command runs in a process group of its own: a time limit stops
    /// it and its children (SIGTERM, then SIGKILL after --kill-after), and
    /// so does a failed attempt's end for whatever it left running there
    /// (--keep-leftovers leaves it). SIGINT, SIGTERM, SIGHUP and SIGQUIT
    /// sent to stagger (Ctrl-C, `kill`) stop the retrying and are passed on
    /// to it once; if it has not ended --kill-after later, or a second
    /// one comes, it is killed (SIGKILL).
    /// It cannot read the terminal there; use --foreground for a command
    /// that must.
    ///
    /// Exit status: 0 when an attempt succeeds; else the last attempt's
    /// exit code, 128+N if signal N ended it, or 124 if a time limit
    /// stopped it; 128+N if signal N cancelled the run (while it waited
    /// between attempts, or when the command had to be killed after it);
    /// 126 if the command cannot be executed (or stops to read the
    /// terminal), 127 if it is not found (neither is retried); 2 for bad
    /// options, or a standard input too long for --stdin replay.
    #[cfg(unix)]
    #[command(
        override_usage = "stagger run [OPTIONS] -- <COMMAND> [ARGS]...",
        after_help = "Examples:\n  stagger run --preset interactive --attempt-timeout 10s -- curl -fsS https://example.com/health\n  \
                      stagger run --http-headers h.txt -- curl -fsS -D h.txt https://example.com/api\n  \
                      stagger run --http-headers h.txt --http-body b.txt -- curl -sS --fail-with-body -D h.txt -o b.txt https://example.com/bucket/key\n  \
                      stagger run --stdin replay --deadline 2m -- kubectl apply -f - < deploy.yaml"
    )]
    // Boxed: its options outweigh every other subcommand's, and the enum
    // would be as large as they are.
    Run(Box<RunArgs>),
    /// Run a published experiment on the simulator: a table, a reading, a chart.
    ///
    /// With no options, the contention experiment of the AWS Architecture
    /// Blog's "Exponential Backoff And Jitter" (2015): N = 10, 20, ..., 190
    /// clients race to update one row, with the strategies none,
    /// exponential, equal, full and decorrelated, 100 runs per point. It
    /// prints the mean calls per run and completion time of every point,
    /// then which strategy did the least work and which finished first.
    /// Times are in the model's abstract time units (a message hop takes
    /// about 10), not milliseconds. The same seed gives the same output on
    /// every machine, whatever its number of cores.
    ///
    /// With `--scenario overload`, the case for retry budgets: 700
    /// operations a second reach a server of 1000 whose capacity halves
    /// from 10 s to 15 s; each attempt times out after 100 ms. It compares no retries, 3
    /// attempts with full jitter, and the same under each budget (token
    /// bucket, ratio, throttle), and prints per policy the goodput, the
    /// recovery time after the trigger, and the load amplification during
    /// and after it, then a reading.
    ///
    /// With `--scenario throttling`, the case for the adaptive limiter: 20
    /// clients offer 1000 operations a second to a server that admits 500.
    /// It compares no retries, 3 attempts with full jitter, the AWS SDKs'
    /// standard mode and their adaptive mode, and prints per policy the
    /// throttled fraction, the goodput, the attempts per operation, the
    /// client-side waits and the rate the fleet settled at, then a reading.
    ///
    /// With `--scenario hedging`, the case for hedging and its limits:
    /// 100,000 requests to a server of 16 workers whose service time is
    /// about 10 ms but 1 in 100 stalls for a second, at loads from 10% to
    /// 120% of its capacity. It compares no retries, a retry after a 25 ms
    /// timeout, a hedge after a fixed 25 ms, a hedge at the learned 95th
    /// percentile, and a hedge under a retry budget, and prints per load
    /// and policy the median and tail latencies, the attempts per request
    /// and the goodput, then a reading.
    ///
    /// With `--scenario frontier`, a search in the contention experiment:
    /// candidates swept from families of schedules (--families, --scales,
    /// --multipliers, --floors) beside the published strategies, per client
    /// count their mean calls and completion time with standard errors, the
    /// Pareto front, and those that do the work of full in the time of
    /// decorrelated.
    ///
    /// Every parameter has an option; an option of one scenario given with
    /// another that does not read it is an error.
    #[command(
        after_help = "Examples:\n  stagger simulate --clients 10..100/10 --runs 20 --plot contention.svg\n  \
                            stagger simulate --scenario overload --plot overload.svg\n  \
                            stagger simulate --scenario overload --trigger none --error-rate 1%\n  \
                            stagger simulate --scenario throttling --plot throttling.svg\n  \
                            stagger simulate --scenario hedging --loads 0.1,0.8 --plot hedging.svg\n  \
                            stagger simulate --scenario frontier --clients 100 --plot frontier.svg"
    )]
    Simulate(Box<SimulateArgs>),
    /// Print a completion script for a shell.
    ///
    /// Load it for the current bash session with
    /// `source <(stagger completions bash)`, or install it where your shell
    /// looks for completions, e.g. `stagger completions zsh > ~/.zfunc/_stagger`
    /// or `stagger completions fish > ~/.config/fish/completions/stagger.fish`.
    Completions(CompletionsArgs),
    /// Print the manual page of stagger, or of one of its commands.
    ///
    /// `stagger man | man -l -` reads it now; `stagger man --out-dir DIR`
    /// writes every page (stagger.1, stagger-run.1, ...) for installing
    /// under a `man1` directory.
    Man(ManArgs),
}

impl Command {
    /// Runs the subcommand.
    ///
    /// # Errors
    /// Whatever the subcommand reports; [`Exit::of_error`] picks the exit code.
    pub fn execute(&self) -> anyhow::Result<Exit> {
        match self {
            Command::Schedule(args) => schedule::execute(args),
            #[cfg(unix)]
            Command::Run(args) => run::execute(args),
            Command::Simulate(args) => simulate::execute(args),
            Command::Completions(args) => generate::completions(args),
            Command::Man(args) => generate::man(args),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
