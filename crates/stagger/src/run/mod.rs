//! `stagger run`: run a command, and retry it on failure per the schedule.
//!
//! This is a driver of the library's sans-IO [`Decision`]: it starts each
//! attempt ([`child`]), tells the decision how the attempt went
//! ([`Outcome::failure`]) and how long the run has taken, and does what it
//! answers: wait ([`child::sleep`]) and try again, or stop. Attempt counting,
//! `max_attempts` and the deadline are the decision's; nothing here repeats
//! them. A cancelling signal ([`signals`]) calls [`Decision::cancel`], is
//! passed on to the running command, and ends the run once the command has
//! ended.

mod args;
mod child;
mod codes;
mod config;
mod event;
mod file;
mod log;
mod outcome;
mod signals;

use std::io::{self, Write};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use anyhow::Context;
use staggered::{Action, Decision, StopReason};

pub use args::RunArgs;
use child::{AttemptError, AttemptPlan};
use config::RunConfig;
use log::{GiveUpRecord, LogFormat, RetryRecord};
use outcome::{Outcome, TimeLimit};

use crate::exit::Exit;

/// Runs `stagger run` with `args`.
///
/// # Errors
/// A usage error for bad options, or a failure to listen for signals or to
/// wait for the command.
pub fn execute(args: &RunArgs) -> anyhow::Result<Exit> {
    let config = RunConfig::from_args(args)?;
    for warning in &config.warnings {
        eprintln!("warning: {warning}");
    }
    let (sender, events) = mpsc::channel();
    // Listen before the first attempt starts, so no signal finds the
    // default action (ending stagger and leaving the command behind).
    let _signals = signals::listen(sender.clone()).context("cannot listen for signals")?;
    let log = Log { format: config.log_format, quiet: config.quiet };

    // Seeded by `--seed` or the file's `schedule.seed`, else from OS entropy.
    let mut decision = Decision::new(config.backoff.delays(), config.limits);
    let max_attempts = config.limits.max_attempts;
    let start = Instant::now();
    loop {
        let attempt = decision.attempt();
        let plan = AttemptPlan {
            isolation: config.isolation,
            limit: TimeLimit::for_attempt(config.attempt_timeout, decision.time_left(start.elapsed())),
            kill_after: config.kill_after,
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
        let Some(failure) = outcome.failure(&config.classification) else {
            decision.on_success();
            return Ok(Exit::Success);
        };
        let elapsed = start.elapsed();
        match decision.on_failure(&failure, elapsed) {
            Action::Retry(delay) => {
                log.retry(&RetryRecord {
                    attempt,
                    max_attempts,
                    delay,
                    outcome: &outcome,
                    kind: failure.kind,
                    elapsed,
                    timestamp: SystemTime::now(),
                });
                if let Some(signal) = child::sleep(delay, &events) {
                    // No attempt runs: the signal ends the run, with its status.
                    decision.cancel();
                    let exit_code = u8::try_from(128 + signal).unwrap_or(u8::MAX);
                    log.give_up(&GiveUpRecord {
                        attempt,
                        max_attempts,
                        reason: StopReason::Cancelled,
                        outcome: &outcome,
                        signal: Some(signal),
                        exit_code,
                        elapsed: start.elapsed(),
                        timestamp: SystemTime::now(),
                    });
                    return Ok(Exit::Command(exit_code));
                }
            }
            Action::Stop(reason) => {
                let exit_code = outcome.exit_code();
                log.give_up(&GiveUpRecord {
                    attempt,
                    max_attempts,
                    reason,
                    outcome: &outcome,
                    signal: cancelled_by.filter(|_| reason == StopReason::Cancelled),
                    exit_code,
                    elapsed,
                    timestamp: SystemTime::now(),
                });
                return Ok(match outcome {
                    Outcome::TerminalStop(_) => Exit::CannotExecute,
                    _ => Exit::Command(exit_code),
                });
            }
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
}

/// Writes `text` and a newline to standard error in one write, so that the
/// line is not split by the command's own output. A log line that cannot be
/// written is dropped: the retrying goes on.
fn line(text: &str) {
    let _ = io::stderr().lock().write_all(format!("{text}\n").as_bytes());
}
