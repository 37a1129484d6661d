//! `stagger run`: run a command, and retry it on failure per the schedule.
//!
//! This is a driver of the library's sans-IO [`Decision`]: it starts each
//! attempt ([`child`]), tells the decision how the attempt went
//! ([`Outcome::failure`], or the HTTP response it left, [`http`]) and how
//! long the run has taken, and does what it answers: wait ([`child::sleep`],
//! with a [`countdown`] on a terminal) and try again, or stop. Attempt
//! counting, `max_attempts`, the deadline and server hints are the
//! decision's; nothing here repeats them. A cancelling signal ([`signals`])
//! calls [`Decision::cancel`], is passed on to the running command, and
//! ends the run once the command has ended.

mod args;
mod child;
mod codes;
mod config;
mod countdown;
mod event;
mod file;
mod group;
mod http;
mod log;
mod outcome;
mod signals;
mod spawn;
mod stdin;
mod summary;

use std::io::{self, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use staggered::{Action, Backoff, Decision, Failure, NoBudget, StopReason};

pub use args::RunArgs;
use child::{AttemptError, AttemptPlan};
use config::RunConfig;
use countdown::Countdown;
use http::Response;
use log::{GiveUpRecord, LogFormat, Refused, RetryRecord};
use outcome::{Outcome, TimeLimit};
use stdin::{Replay, StdinMode, REPLAY_LIMIT};
use summary::SummaryRecord;

use crate::exit::{Exit, UsageError};

/// Runs `stagger run` with `args`.
///
/// # Errors
/// A usage error for bad options or a standard input too long to replay,
/// or a failure to read standard input, to listen for signals, to empty
/// the `--http-headers` file or to wait for the command.
pub fn execute(args: &RunArgs) -> anyhow::Result<Exit> {
    let config = RunConfig::from_args(args)?;
    for warning in &config.warnings {
        eprintln!("warning: {warning}");
    }
    // Read before the signal handlers are installed: a Ctrl-C while stdin
    // is read ends stagger at once, as nothing runs yet.
    let replay = match config.stdin {
        StdinMode::Replay => {
            Some(Replay::read(io::stdin().lock(), REPLAY_LIMIT).map_err(|err| match err {
                stdin::ReplayError::TooLong(_) => {
                    anyhow::Error::new(err).context(UsageError::option(args::flag::STDIN))
                }
                stdin::ReplayError::Read(_) => anyhow::Error::new(err),
            })?)
        }
        StdinMode::Inherit => None,
    };
    let (sender, events) = mpsc::channel();
    // Listen before the first attempt starts, so no signal finds the
    // default action (ending stagger and leaving the command behind).
    let _signals = signals::listen(sender.clone()).context("cannot listen for signals")?;
    group::adopt_orphans();
    let log = Log { format: config.log_format, quiet: config.quiet };
    let show_countdown = countdown::shown(config.log_format, config.quiet);

    // Seeded by `--seed` or the file's `schedule.seed`, else from OS entropy.
    let decision = Decision::<Backoff>::with_delays(config.backoff.delays(), config.limits, NoBudget);
    let mut decision = match config.hint_seed {
        Some(seed) => decision.with_hint_seed(seed),
        None => decision,
    };
    let max_attempts = config.limits.max_attempts;
    let start = Instant::now();
    let mut waited = Duration::ZERO;
    // The summary line, for every way the run ends once attempts were made.
    let summary = |attempts, waited, reason, exit_code| {
        log.summary(&SummaryRecord {
            attempts,
            max_attempts,
            waited,
            reason,
            exit_code,
            elapsed: start.elapsed(),
            timestamp: SystemTime::now(),
        });
    };
    loop {
        let attempt = decision.attempt();
        if let Some(dump) = &config.http {
            dump.clear().with_context(|| format!("cannot empty {}", dump.path().display()))?;
        }
        let plan = AttemptPlan {
            isolation: config.isolation,
            limit: TimeLimit::for_attempt(config.attempt_timeout, decision.time_left(start.elapsed())),
            kill_after: config.kill_after,
            leftovers: config.leftovers,
            stdin: replay.as_ref(),
        };
        let mut cancelled_by = None;
        let outcome = child::run(&config.command, plan, &events, &sender, |signal| {
            decision.cancel();
            cancelled_by.get_or_insert(signal);
        });
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(AttemptError::Spawn(err)) => return Ok(cannot_run(&config, &err)),
            Err(AttemptError::Wait(err)) => return Err(err).context("lost track of the command"),
        };
        let Some(by_status) = outcome.failure(&config.classification) else {
            decision.on_success();
            summary(attempt, waited, None, 0);
            return Ok(Exit::Success);
        };
        let response = match (&config.http, outcome) {
            (Some(dump), Outcome::Exited(_)) => read_response(dump, log),
            _ => None,
        };
        // An HTTP error response decides; anything else is the exit code's.
        let failure: Failure = response.as_ref().and_then(|response| response.failure).unwrap_or(by_status);
        let elapsed = start.elapsed();
        match decision.on_failure(&failure, elapsed) {
            Action::Retry(delay) => {
                log.retry(&RetryRecord {
                    attempt,
                    max_attempts,
                    delay,
                    outcome: &outcome,
                    response: response.as_ref(),
                    kind: failure.kind,
                    elapsed,
                    timestamp: SystemTime::now(),
                });
                let countdown = Countdown::start(show_countdown, decision.attempt(), max_attempts, delay);
                let slept_from = Instant::now();
                let signal = child::sleep(delay, &events);
                drop(countdown);
                // A signal ends the wait early: count what was waited.
                waited += if signal.is_some() { slept_from.elapsed().min(delay) } else { delay };
                if let Some(signal) = signal {
                    // No attempt runs: the signal ends the run, with its status.
                    decision.cancel();
                    let exit_code = outcome::signal_status(signal);
                    log.give_up(&GiveUpRecord {
                        attempt,
                        max_attempts,
                        reason: StopReason::Cancelled,
                        outcome: &outcome,
                        response: response.as_ref(),
                        signal: Some(signal),
                        refused: None,
                        max_hint: None,
                        exit_code,
                        elapsed: start.elapsed(),
                        timestamp: SystemTime::now(),
                    });
                    summary(attempt, waited, Some(StopReason::Cancelled), exit_code);
                    return Ok(Exit::Command(exit_code));
                }
            }
            Action::Stop(reason) => {
                let exit_code = outcome.exit_code();
                let refused = match (reason, decision.last_wait(), decision.time_left(elapsed)) {
                    (StopReason::Deadline, Some(wait), Some(time_left)) => Some(Refused { wait, time_left }),
                    _ => None,
                };
                log.give_up(&GiveUpRecord {
                    attempt,
                    max_attempts,
                    reason,
                    outcome: &outcome,
                    response: response.as_ref(),
                    signal: cancelled_by.filter(|_| reason == StopReason::Cancelled),
                    refused,
                    max_hint: decision.limits().max_hint,
                    exit_code,
                    elapsed,
                    timestamp: SystemTime::now(),
                });
                let exit = match outcome {
                    Outcome::TerminalStop(_) => Exit::CannotExecute,
                    _ => Exit::Command(exit_code),
                };
                summary(attempt, waited, Some(reason), exit.code());
                return Ok(exit);
            }
        }
    }
}

/// The response a failed attempt left in the `--http-headers` file, if
/// any. A file that cannot be read is reported (unless `--quiet`) and the
/// attempt classified by its exit code: the retrying goes on.
fn read_response(dump: &http::HeaderDump, log: Log) -> Option<Response> {
    match dump.read() {
        Ok(response) => response,
        Err(err) => {
            if !log.quiet {
                line(&format!("stagger: warning: cannot read {}: {err}", dump.path().display()));
            }
            None
        }
    }
}

/// Reports a command that could not start, and picks the exit as shells
/// do: 127 when it is not found, 126 otherwise. Such a command is not
/// retried: the next attempt would fail the same way.
fn cannot_run(config: &RunConfig, err: &io::Error) -> Exit {
    let program = config.command.program.to_string_lossy();
    eprintln!("error: cannot run {program}: {err}");
    if err.kind() == io::ErrorKind::NotFound {
        Exit::NotFound
    } else {
        Exit::CannotExecute
    }
}

/// Where the retry lines go: standard error, unless `--quiet`.
#[derive(Debug, Clone, Copy)]
struct Log {
    format: LogFormat,
    quiet: bool,
}

impl Log {
    /// Logs a retry.
    fn retry(self, record: &RetryRecord<'_>) {
        if !self.quiet {
            line(&log::retry_line(self.format, record));
        }
    }

    /// Logs giving up.
    fn give_up(self, record: &GiveUpRecord<'_>) {
        if !self.quiet {
            line(&log::give_up_line(self.format, record));
        }
    }

    /// Sums the run up, in the formats that do.
    fn summary(self, record: &SummaryRecord) {
        if let Some(text) = summary::summary_line(self.format, record).filter(|_| !self.quiet) {
            line(&text);
        }
    }
}

/// Writes `text` and a newline to standard error in one write, so that the
/// line is not split by the command's own output. A log line that cannot be
/// written is dropped: the retrying goes on.
fn line(text: &str) {
    let _ = io::stderr().lock().write_all(format!("{text}\n").as_bytes());
}
