//! Where signals for an attempt go (its process group, or its own process
//! with `--foreground`), and the end of what an attempt leaves behind.
//!
//! A command that started something in the background and then failed
//! (`sh -c 'server & exit 1'`) would leave it running beside every later
//! attempt; a few attempts pile them up. So when an attempt fails, whatever
//! is left of its process group gets SIGTERM, and SIGKILL if it is still
//! there `--kill-after` later ([`Target::end_leftovers`]). A process that
//! left the group (`setsid`, a daemon) is out of reach, as it means to be.
//!
//! An ended process stays a member of its group until its parent reaps it.
//! A leftover's parent is usually gone, so it is adopted, and where the
//! adoptive parent never reaps (the init of many containers) the group
//! would never look empty. On Linux `stagger` therefore adopts its
//! attempts' orphans itself ([`adopt_orphans`]) and reaps them.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use rustix::process::{
    kill_process, kill_process_group, test_kill_process_group, waitpgid, Pid, Signal, WaitOptions,
};

use super::event::Event;

/// Where the command runs; see the [`child`](super::child) module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// In a process group of its own (the default).
    ProcessGroup,
    /// In `stagger`'s process group (`--foreground`).
    Foreground,
}

/// What becomes of the processes a failed attempt leaves in its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftovers {
    /// SIGTERM, then SIGKILL after `--kill-after` (the default).
    End,
    /// Left running (`--keep-leftovers`).
    Keep,
}

/// Makes `stagger` the adoptive parent of its attempts' orphans (Linux's
/// child subreaper), so that it can reap the leftovers it ends. Elsewhere,
/// and if the system refuses, orphans go to init as usual.
pub fn adopt_orphans() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
}

/// The longest pause between two looks at a group that is being ended.
const MAX_POLL: Duration = Duration::from_millis(50);

/// How long processes killed with SIGKILL get to end and be reaped; they
/// cannot refuse, so only an overloaded system takes this long.
const SETTLE: Duration = Duration::from_millis(200);

/// Where signals for the attempt go: its process group or its process.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pid: Pid,
    isolation: Isolation,
}

impl Target {
    /// The attempt whose main process is `pid`, run as `isolation` says.
    pub const fn new(pid: Pid, isolation: Isolation) -> Self {
        Target { pid, isolation }
    }

    /// Sends `signal`. A target that is gone already is not an error: it
    /// ended between our decision and the signal.
    pub fn signal(self, signal: Signal) {
        let _ = match self.isolation {
            Isolation::ProcessGroup => kill_process_group(self.pid, signal),
            Isolation::Foreground => kill_process(self.pid, signal),
        };
    }

    /// Sends the signal numbered `signal`, if the system knows it.
    pub fn signal_raw(self, signal: i32) {
        if let Some(signal) = Signal::from_named_raw(signal) {
            self.signal(signal);
        }
    }

    /// Kills what is left of the process group once its main process has
    /// ended (after a time limit or a forced kill, whose SIGTERM the group
    /// has had already). Nothing with `--foreground`: the group is
    /// `stagger`'s own.
    pub fn kill_leftovers(self) {
        if self.isolation == Isolation::ProcessGroup && self.group_has_processes() {
            self.signal(Signal::KILL);
            self.settle();
        }
    }

    /// Ends what is left of the process group once its main process has
    /// ended: SIGTERM (and SIGCONT, in case it is stopped), then SIGKILL if
    /// anything is still there after `grace`. A cancelling signal that
    /// arrives meanwhile brings the SIGKILL at once. Returns at once when
    /// the group is empty, and does nothing with `--foreground`.
    pub fn end_leftovers(self, grace: Duration, events: &Receiver<Event>) {
        if self.isolation != Isolation::ProcessGroup || !self.group_has_processes() {
            return;
        }
        self.signal(Signal::TERM);
        self.signal(Signal::CONT);
        let until = Instant::now().checked_add(grace);
        let mut pause = Duration::from_millis(1);
        loop {
            self.reap();
            if !self.group_has_processes() {
                return;
            }
            let left = until.map_or(MAX_POLL, |until| until.saturating_duration_since(Instant::now()));
            if left.is_zero() {
                break;
            }
            // Nothing is expected on the channel but signals: the main
            // process has been reaped. Waiting on it keeps a cancel prompt.
            match events.recv_timeout(pause.min(left)) {
                Ok(Event::Signal(_)) => break,
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => unreachable!("the driver holds a sender"),
            }
            pause = (pause * 2).min(MAX_POLL);
        }
        self.signal(Signal::KILL);
        self.settle();
    }

    /// Gives processes just killed a moment ([`SETTLE`]) to end, reaping
    /// those that are `stagger`'s, so that none is left a zombie when
    /// `stagger` exits.
    fn settle(self) {
        let until = Instant::now() + SETTLE;
        let mut pause = Duration::from_millis(1);
        loop {
            self.reap();
            if !self.group_has_processes() || Instant::now() >= until {
                return;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_POLL);
        }
    }

    /// Whether any process is left in the group that `stagger` may signal.
    fn group_has_processes(self) -> bool {
        test_kill_process_group(self.pid).is_ok()
    }

    /// Reaps the ended processes of the group that are `stagger`'s children:
    /// where `stagger` adopts orphans (it is PID 1 in a container, or a
    /// subreaper), an ended leftover would otherwise stay a zombie, still a
    /// member of the group.
    fn reap(self) {
        while let Ok(Some(_)) = waitpgid(self.pid, WaitOptions::NOHANG) {}
    }
}
