//! One attempt: start the command, wait for it, stop it at its time limit,
//! and pass signals on to it.
//!
//! The command inherits `stagger`'s standard output and error, so its
//! output streams through untouched, and its standard input (or, with
//! `--stdin replay`, a pipe that replays it: [`spawn`]). A thread blocks in
//! `waitpid` and reports each state change as an [`Event`] on the channel
//! that also carries the signals `stagger` receives; the attempt waits on
//! that channel with the next time limit as timeout, so a signal, the
//! command's end and the limits are all handled at once, without polling.
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
//! # Stopping an attempt
//!
//! At its time limit, SIGTERM (then SIGCONT, in case it was stopped) goes to
//! the attempt; if it has not ended `kill_after` later, SIGKILL. Once its
//! main process has ended, whatever is left of its process group gets
//! SIGKILL at once.
//!
//! A cancelling signal is passed on once; if the command has not ended
//! `kill_after` later, or a second cancelling signal arrives first (a second
//! Ctrl-C), it gets SIGKILL ([`Outcome::ForceKilled`]): a command that
//! ignores SIGINT and SIGTERM cannot keep `stagger` waiting.
//!
//! A failed attempt that leaves processes in its group has them ended, as
//! [`group`](super::group) says, before the next attempt starts; a
//! successful one keeps what it started (`ssh -f`, a server started with
//! `&`), since that is then the command's purpose.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{waitpid, Pid, Signal, WaitOptions};
use signal_hook::consts::{SIGTTIN, SIGTTOU};

use super::attempt::AttemptError;
use super::event::{Event, Termination};
use super::group::{Isolation, Leftovers, Target};
use super::outcome::{Outcome, TimeLimit};
use super::signals;
use super::spawn::{self, CommandLine};
use super::stdin::Replay;

/// How one attempt is run: where, how long, how it is stopped, and what it
/// reads.
#[derive(Debug, Clone, Copy)]
pub struct AttemptPlan<'a> {
    /// Where the command runs.
    pub isolation: Isolation,
    /// How long it may run, if there is a limit.
    pub limit: Option<TimeLimit>,
    /// The time between SIGTERM and SIGKILL: at the limit, after a cancel,
    /// and for the leftovers of a failed attempt.
    pub kill_after: Duration,
    /// What becomes of processes a failed attempt leaves in its group.
    pub leftovers: Leftovers,
    /// The standard input to replay, if any; else `stagger`'s is inherited.
    pub stdin: Option<&'a Replay>,
}

/// What the attempt has been through so far, to say how it ended.
#[derive(Debug, Default)]
struct Stops {
    /// The time limit ran out and SIGTERM was sent.
    timed_out: bool,
    /// The command stopped for the terminal (SIGTTIN or SIGTTOU), and was killed.
    terminal_stop: Option<i32>,
    /// The first cancelling signal `stagger` received.
    cancel: Option<i32>,
    /// SIGKILL was sent because of a cancel.
    force_killed: bool,
}

/// The earlier of two optional instants.
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Runs `command` once as `plan` says, and returns how it ended. Each
/// signal `stagger` receives meanwhile (which has cancelled the retrying
/// already, [`signals::listen`]) goes on to the command as the
/// [module docs](self) say; then the attempt goes on until the command ends.
///
/// `events` must be the receiving end of `sender`, the channel the signal
/// thread sends to.
///
/// # Errors
/// [`AttemptError::Spawn`] if the command cannot start, and
/// [`AttemptError::Wait`] if waiting for it fails.
pub fn run(
    command: &CommandLine,
    plan: AttemptPlan<'_>,
    events: &Receiver<Event>,
    sender: &Sender<Event>,
) -> Result<Outcome, AttemptError> {
    let pid = spawn::start(command, plan.isolation, plan.stdin).map_err(AttemptError::Spawn)?;
    let started = Instant::now();
    let target = Target::new(pid, plan.isolation);
    let waiter_events = sender.clone();
    if let Err(err) =
        thread::Builder::new().name("stagger-wait".to_owned()).spawn(move || wait(pid, &waiter_events))
    {
        target.signal(Signal::KILL);
        return Err(AttemptError::Wait(err));
    }

    let mut stops = Stops::default();
    let mut term_at = plan.limit.and_then(|limit| started.checked_add(limit.after));
    let mut kill_at = None;
    loop {
        let event = match earliest(term_at, kill_at) {
            Some(at) => match events.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => unreachable!("the driver holds a sender"),
            },
            None => Some(events.recv().expect("the driver holds a sender")),
        };
        match event {
            None if kill_at.is_some_and(|at| at <= Instant::now()) => {
                target.signal(Signal::KILL);
                stops.force_killed |= !stops.timed_out;
                (term_at, kill_at) = (None, None);
            }
            None => {
                stops.timed_out = true;
                target.signal(Signal::TERM);
                target.signal(Signal::CONT);
                term_at = None;
                kill_at = earliest(kill_at, Instant::now().checked_add(plan.kill_after));
            }
            Some(Event::Ended(termination)) => {
                let outcome = outcome(&stops, plan.limit, termination);
                if stops.timed_out || stops.terminal_stop.is_some() || stops.force_killed {
                    target.kill_leftovers();
                } else if outcome != Outcome::Exited(0) && plan.leftovers == Leftovers::End {
                    target.end_leftovers(plan.kill_after, events);
                }
                return Ok(outcome);
            }
            Some(Event::Stopped(signal)) => {
                let reads_terminal = signal == SIGTTIN || signal == SIGTTOU;
                if reads_terminal
                    && plan.isolation == Isolation::ProcessGroup
                    && stops.terminal_stop.is_none()
                {
                    stops.terminal_stop = Some(signal);
                    target.signal(Signal::KILL);
                }
            }
            Some(Event::Signal(signal)) => {
                if stops.cancel.is_some() {
                    // A second cancel: no more waiting.
                    target.signal(Signal::KILL);
                    stops.force_killed |= !stops.timed_out;
                    (term_at, kill_at) = (None, None);
                    continue;
                }
                stops.cancel = Some(signal);
                if plan.isolation == Isolation::ProcessGroup || signals::forwarded_in_foreground(signal) {
                    target.signal_raw(signal);
                }
                kill_at = earliest(kill_at, Instant::now().checked_add(plan.kill_after));
            }
            Some(Event::WaitFailed(err)) => {
                target.signal(Signal::KILL);
                return Err(AttemptError::Wait(err));
            }
        }
    }
}

/// How the attempt ended, given what it went through: a terminal stop, our
/// time limit and our forced kill explain its end before its own status does.
fn outcome(stops: &Stops, limit: Option<TimeLimit>, termination: Termination) -> Outcome {
    match (stops.terminal_stop, limit, stops.cancel) {
        (Some(signal), _, _) => Outcome::TerminalStop(signal),
        (None, Some(limit), _) if stops.timed_out => Outcome::TimedOut(limit),
        (None, _, Some(cancel))
            if stops.force_killed && termination == Termination::Signaled(Signal::KILL.as_raw()) =>
        {
            Outcome::ForceKilled(cancel)
        }
        _ => match termination {
            Termination::Exited(code) => Outcome::Exited(code),
            Termination::Signaled(signal) => Outcome::Signaled(signal),
        },
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
