//! One attempt, as the retry loop calls it: empty the `--http-headers`
//! file, run the command under its time limit ([`child`]), and judge how it
//! ended: a success, or a [`Failed`] attempt with its classification (an
//! HTTP error response's, else the exit status's).

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Instant;

use staggered::Failure;

use super::child::{self, AttemptPlan};
use super::config::RunConfig;
use super::event::Event;
use super::http::{HeaderDump, Response};
use super::outcome::{Outcome, TimeLimit};
use super::stdin::Replay;

/// Why an attempt could not be made or followed: `stagger`'s failure, not
/// the command's.
#[derive(Debug)]
pub enum AttemptError {
    /// The `--http-headers` file, at this path, could not be emptied
    /// before the attempt.
    ClearHeaders(PathBuf, io::Error),
    /// The command could not be started (not found, not executable, ...).
    Spawn(io::Error),
    /// Waiting for the command failed; it was killed.
    Wait(io::Error),
}

/// A failed attempt, as the retry loop classifies it and the log tells it.
#[derive(Debug)]
pub enum Failed {
    /// The command ran and failed.
    Command(CommandFailed),
    /// `stagger` could not run the command or follow it: never retried, and
    /// the run ends with `stagger`'s error rather than a give-up line.
    Stagger(AttemptError),
}

/// A command that ran and failed.
#[derive(Debug)]
pub struct CommandFailed {
    /// How it ended.
    pub outcome: Outcome,
    /// The HTTP response it left (`--http-headers`), if any.
    pub response: Option<Response>,
    /// What the two make of it: an HTTP error response decides, anything
    /// else is the exit status's.
    failure: Failure,
}

impl CommandFailed {
    /// A command that ended as `outcome`, left `response`, and failed as
    /// `failure` says.
    pub fn new(outcome: Outcome, response: Option<Response>, failure: Failure) -> Self {
        CommandFailed { outcome, response, failure }
    }
}

impl Failed {
    /// The classification the retry loop decides on; `stagger`'s own
    /// failures are permanent: the next attempt would fail the same way.
    pub fn failure(&self) -> Failure {
        match self {
            Failed::Command(failed) => failed.failure,
            Failed::Stagger(_) => Failure::PERMANENT,
        }
    }

    /// The command's failure, unless `stagger` failed.
    pub fn command(&self) -> Option<&CommandFailed> {
        match self {
            Failed::Command(failed) => Some(failed),
            Failed::Stagger(_) => None,
        }
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Command(failed) => {
                f.write_str(&super::log::message(&failed.outcome, failed.response.as_ref()))
            }
            Failed::Stagger(AttemptError::ClearHeaders(path, err)) => {
                write!(f, "cannot empty {}: {err}", path.display())
            }
            Failed::Stagger(AttemptError::Spawn(err)) => write!(f, "cannot run the command: {err}"),
            Failed::Stagger(AttemptError::Wait(err)) => write!(f, "lost track of the command: {err}"),
        }
    }
}

/// What every attempt of a run shares.
#[derive(Debug, Clone, Copy)]
pub struct Attempts<'a> {
    /// The run's options.
    pub config: &'a RunConfig,
    /// The standard input to replay, if any.
    pub replay: Option<&'a Replay>,
    /// The channel the signals and the command's state changes arrive on.
    pub events: &'a Receiver<Event>,
    /// Its sending end, for the thread that waits for the command.
    pub sender: &'a Sender<Event>,
    /// When the run started: the deadline counts from there.
    pub start: Instant,
}

impl Attempts<'_> {
    /// Runs the command once, stopping it at `--attempt-timeout` or the
    /// deadline, whichever comes first.
    ///
    /// # Errors
    /// How the attempt failed.
    pub fn run(&self) -> Result<(), Failed> {
        let config = self.config;
        if let Some(dump) = &config.http {
            dump.clear()
                .map_err(|err| Failed::Stagger(AttemptError::ClearHeaders(dump.path().to_owned(), err)))?;
        }
        let time_left = config.policy.limits().time_left(self.start.elapsed());
        let plan = AttemptPlan {
            isolation: config.isolation,
            limit: TimeLimit::for_attempt(config.attempt_timeout, time_left),
            kill_after: config.kill_after,
            leftovers: config.leftovers,
            stdin: self.replay,
        };
        let outcome = child::run(&config.command, plan, self.events, self.sender).map_err(Failed::Stagger)?;
        let Some(by_status) = outcome.failure(&config.classification) else { return Ok(()) };
        let response = match (&config.http, outcome) {
            (Some(dump), Outcome::Exited(_)) => read_response(dump, config.quiet),
            _ => None,
        };
        let failure = response.as_ref().and_then(|response| response.failure).unwrap_or(by_status);
        Err(Failed::Command(CommandFailed::new(outcome, response, failure)))
    }
}

/// The response a failed attempt left in the `--http-headers` file, if
/// any. A file that cannot be read is reported (unless `quiet`) and the
/// attempt classified by its exit code: the retrying goes on.
fn read_response(dump: &HeaderDump, quiet: bool) -> Option<Response> {
    match dump.read() {
        Ok(response) => response,
        Err(err) => {
            if !quiet {
                super::report::line(&format!(
                    "stagger: warning: cannot read {}: {err}",
                    dump.path().display()
                ));
            }
            None
        }
    }
}
