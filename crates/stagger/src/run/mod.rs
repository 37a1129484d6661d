//! `stagger run`: run a command, and retry it on failure per the schedule.
//!
//! The retrying is the library's: a [`RetryPolicy`](staggered::RetryPolicy) built from the options
//! ([`config`]) retries one attempt ([`attempt`]: run the command, judge
//! how it ended) with the exit-code and HTTP classification, under every
//! limit (`max_attempts`, the deadline, server hints). Its hooks write the
//! log lines ([`report`]); its sleeper ([`pause`]) waits, with a
//! [`countdown`] on a terminal. A cancelling signal ([`signals`]) sets the
//! loop's cancel flag, which ends a wait at once and starts no attempt
//! after it, and is passed on to the running command, whose end then ends
//! the run.

mod args;
mod attempt;
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
mod pause;
mod report;
mod signals;
mod spawn;
mod stdin;
mod summary;

use std::io;
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use staggered::sleep::StdClock;

pub use args::RunArgs;
use attempt::{AttemptError, Attempts, Failed};
use config::RunConfig;
use pause::Pause;
use report::Report;
use signals::Cancel;

use crate::exit::Exit;

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
    let replay = stdin::for_attempts(config.stdin)?;
    let (sender, events) = mpsc::channel();
    let cancel = Cancel::default();
    // Listen before the first attempt starts, so no signal finds the
    // default action (ending stagger and leaving the command behind).
    let _signals = signals::listen(sender.clone(), cancel.clone()).context("cannot listen for signals")?;
    group::adopt_orphans();

    let start = Instant::now();
    let attempts =
        Attempts { config: &config, replay: replay.as_ref(), events: &events, sender: &sender, start };
    let report = Report::new(&config, &cancel, start);
    let pause = Pause::new(countdown::shown(config.log_format, config.quiet));
    let retried = config
        .policy
        .retry(|_| attempts.run())
        .classify(Failed::failure)
        .on_retry(|event| {
            report.retry(event);
            pause.leads_to(event.attempt.saturating_add(1), event.max_attempts);
        })
        .on_give_up(|event| report.give_up(event))
        .cancel_on(cancel.flag())
        .with_timer(&pause, &StdClock)
        .run();
    let (attempts, reason, exit) = match retried {
        Ok(done) => (done.attempts, None, Exit::Success),
        Err(error) => {
            let (reason, attempts) = (error.reason(), error.attempts());
            let last = match error.into_error() {
                Some(Failed::Stagger(err)) => return stagger_failed(&config, err),
                Some(Failed::Command(last)) => Some(last),
                None => None,
            };
            (attempts, Some(reason), report.exit(reason, attempts, last.as_ref()))
        }
    };
    report.summary(attempts, pause.waited(), reason, exit);
    Ok(exit)
}

/// Ends a run in which `stagger` could not run the command or follow it,
/// with no summary: a command that could not start is reported, and exits
/// as shells do (see [`cannot_run`]); anything else is an error.
fn stagger_failed(config: &RunConfig, err: AttemptError) -> anyhow::Result<Exit> {
    match err {
        AttemptError::Spawn(err) => Ok(cannot_run(config, &err)),
        AttemptError::Wait(err) => Err(err).context("lost track of the command"),
        AttemptError::ClearHeaders(path, err) => {
            Err(err).with_context(|| format!("cannot empty {}", path.display()))
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
