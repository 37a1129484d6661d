//! One attempt: start the command, wait for it, stop it at its time limit,
//! and pass signals on to it.
//!
//! The command inherits `stagger`'s standard input, output and error, so its
//! output streams through untouched. A thread blocks in `waitpid` and
//! reports each state change as an [`Event`] on the channel that also
//! carries the signals `stagger` receives; the attempt waits on that channel
//! with the time limit as timeout, so a signal, the command's end and the
//! limit are all handled at once, without polling.
//!
//! # Process group
//!
//! By default ([`Isolation::ProcessGroup`]) the command runs in a process
//! group of its own, so that:
//! - a signal reaches the command exactly once: a terminal's Ctrl-C goes to
//!   the foreground group, which is `stagger`'s and not the command's, and
//!   `stagger` passes it on; a `kill` sent to `stagger` alone (a supervisor,
//!   `docker stop`) is passed on the same way;
//! - a time limit stops the whole attempt, children and pipelines included
//!   (`sh -c 'a | b'`), and no part of it lives on to hold the output open
//!   or race the next attempt.
//!
//! The price: the command is not in the terminal's foreground group, so it
//! cannot read the terminal (a password prompt). If it tries, the system
//! stops it with SIGTTIN; `stagger` notices, kills it and stops with
//! exit code 126 and a message, instead of hanging. `--foreground`
//! ([`Isolation::Foreground`]) runs it in `stagger`'s group instead, as
//! `timeout --foreground` does: it can use the terminal, a time limit stops
//! only the command's own process, and of the signals `stagger` receives
//! only SIGTERM is passed on (see [`signals::forwarded_in_foreground`]).
//!
//! # Stopping an attempt at its time limit
//!
//! SIGTERM (then SIGCONT, in case it was stopped) goes to the attempt; if it
//! has not ended `kill_after` later, SIGKILL. Once its main process has
//! ended, whatever is left of its process group gets SIGKILL at once.

use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{kill_process, kill_process_group, waitpid, Pid, Signal, WaitOptions};
use signal_hook::consts::{SIGTTIN, SIGTTOU};

use super::event::{Event, Termination};
use super::outcome::{Outcome, TimeLimit};
use super::signals;

/// The command to run: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The program, looked up in `PATH` unless it contains a `/`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// Where the command runs; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// In a process group of its own (the default).
    ProcessGroup,
    /// In `stagger`'s process group (`--foreground`).
    Foreground,
}

/// Why an attempt could not be made or followed.
#[derive(Debug)]
pub enum AttemptError {
    /// The command could not be started (not found, not executable, ...).
    Spawn(io::Error),
    /// Waiting for the command failed; it was killed.
    Wait(io::Error),
}

/// How one attempt is run: where, how long, and how it is stopped.
#[derive(Debug, Clone, Copy)]
pub struct AttemptPlan {
    /// Where the command runs.
    pub isolation: Isolation,
    /// How long it may run, if there is a limit.
    pub limit: Option<TimeLimit>,
    /// The time between SIGTERM and SIGKILL at the limit.
    pub kill_after: Duration,
}

/// Where signals for the attempt go: its process group or its process.
#[derive(Debug, Clone, Copy)]
struct Target {
    pid: Pid,
    isolation: Isolation,
}

impl Target {
    /// Sends `signal`. A target that is gone already is not an error: it
    /// ended between our decision and the signal.
    fn signal(self, signal: Signal) {
        let _ = match self.isolation {
            Isolation::ProcessGroup => kill_process_group(self.pid, signal),
            Isolation::Foreground => kill_process(self.pid, signal),
        };
    }

    /// Sends the signal numbered `signal`, if the system knows it.
    fn signal_raw(self, signal: i32) {
        if let Some(signal) = Signal::from_named_raw(signal) {
            self.signal(signal);
        }
    }

    /// Kills what is left of the process group once its leader has ended.
    fn kill_leftovers(self) {
        if self.isolation == Isolation::ProcessGroup {
            self.signal(Signal::KILL);
        }
    }
}

/// Runs `command` once as `plan` says, and returns how it ended. Each
/// signal `stagger` receives meanwhile goes to `on_signal` (the driver
/// cancels the retrying) and, as the [module docs](self) say, on to the
/// command; then the attempt goes on until the command ends.
///
/// `events` must be the receiving end of `sender`, the channel the signal
/// thread sends to.
///
/// # Errors
/// [`AttemptError::Spawn`] if the command cannot start, and
/// [`AttemptError::Wait`] if waiting for it fails.
pub fn run(
    command: &CommandLine,
    plan: AttemptPlan,
    events: &Receiver<Event>,
    sender: &Sender<Event>,
    mut on_signal: impl FnMut(i32),
) -> Result<Outcome, AttemptError> {
    let mut process = Command::new(&command.program);
    process.args(&command.args);
    if plan.isolation == Isolation::ProcessGroup {
        process.process_group(0);
    }
    let child = process.spawn().map_err(AttemptError::Spawn)?;
    let started = Instant::now();
    let target = Target { pid: Pid::from_child(&child), isolation: plan.isolation };
    // The waiter thread reaps the child; std's handle must not wait too.
    drop(child);
    let waiter_events = sender.clone();
    if let Err(err) =
        thread::Builder::new().name("stagger-wait".to_owned()).spawn(move || wait(target.pid, &waiter_events))
    {
        target.signal(Signal::KILL);
        return Err(AttemptError::Wait(err));
    }

    let mut timed_out = false;
    let mut terminal_stop = None;
    let mut wake_at = plan.limit.and_then(|limit| started.checked_add(limit.after));
    loop {
        let event = match wake_at {
            Some(at) => match events.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => unreachable!("the driver holds a sender"),
            },
            None => Some(events.recv().expect("the driver holds a sender")),
        };
        match event {
            None if !timed_out => {
                timed_out = true;
                target.signal(Signal::TERM);
                target.signal(Signal::CONT);
                wake_at = Instant::now().checked_add(plan.kill_after);
            }
            None => {
                target.signal(Signal::KILL);
                wake_at = None;
            }
            Some(Event::Ended(termination)) => {
                if timed_out || terminal_stop.is_some() {
                    target.kill_leftovers();
                }
                return Ok(match (terminal_stop, plan.limit) {
                    (Some(signal), _) => Outcome::TerminalStop(signal),
                    (None, Some(limit)) if timed_out => Outcome::TimedOut(limit),
                    _ => match termination {
                        Termination::Exited(code) => Outcome::Exited(code),
                        Termination::Signaled(signal) => Outcome::Signaled(signal),
                    },
                });
            }
            Some(Event::Stopped(signal)) => {
                let reads_terminal = signal == SIGTTIN || signal == SIGTTOU;
                if reads_terminal && plan.isolation == Isolation::ProcessGroup && terminal_stop.is_none() {
                    terminal_stop = Some(signal);
                    target.signal(Signal::KILL);
                }
            }
            Some(Event::Signal(signal)) => {
                on_signal(signal);
                if plan.isolation == Isolation::ProcessGroup || signals::forwarded_in_foreground(signal) {
                    target.signal_raw(signal);
                }
            }
            Some(Event::WaitFailed(err)) => {
                target.signal(Signal::KILL);
                return Err(AttemptError::Wait(err));
            }
        }
    }
}

/// Waits for the process `pid` until it ends, sending each stop and its end
/// to `events`.
fn wait(pid: Pid, events: &Sender<Event>) {
    loop {
        let event = match waitpid(Some(pid), WaitOptions::UNTRACED) {
            Ok(Some((_, status))) => {
                match (status.stopping_signal(), status.exit_status(), status.terminating_signal()) {
                    (Some(signal), _, _) => Event::Stopped(signal),
                    (_, Some(code), _) => {
                        Event::Ended(Termination::Exited(u8::try_from(code).unwrap_or(u8::MAX)))
                    }
                    (_, _, Some(signal)) => Event::Ended(Termination::Signaled(signal)),
                    // Continued after a stop: nothing to report.
                    _ => continue,
                }
            }
            Ok(None) | Err(Errno::INTR) => continue,
            Err(err) => Event::WaitFailed(err.into()),
        };
        let last = matches!(event, Event::Ended(_) | Event::WaitFailed(_));
        if events.send(event).is_err() || last {
            return;
        }
    }
}

/// Waits up to `delay` between attempts, or until `stagger` receives a
/// cancelling signal, which it returns. Other events (none are expected:
/// no command runs) are ignored.
pub fn sleep(delay: Duration, events: &Receiver<Event>) -> Option<i32> {
    let until = Instant::now().checked_add(delay);
    loop {
        let event = match until {
            Some(until) => {
                let left = until.saturating_duration_since(Instant::now());
                match events.recv_timeout(left) {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => return None,
                    Err(RecvTimeoutError::Disconnected) => unreachable!("the driver holds a sender"),
                }
            }
            // A delay past the end of the clock: wait for a signal.
            None => events.recv().expect("the driver holds a sender"),
        };
        if let Event::Signal(signal) = event {
            return Some(signal);
        }
    }
}
