//! The signals `stagger run` catches (SIGINT, SIGTERM, SIGHUP, SIGQUIT), the
//! thread that turns each into a [`Cancel`] and an [`Event::Signal`], and
//! which of them reach the command.
//!
//! Catching them replaces their default action (ending `stagger` at once,
//! and leaving the command running in its own process group): instead the
//! retrying is cancelled (a wait ends at once, and no attempt starts after
//! it), the running command gets the signal, and `stagger` waits for it to
//! end.

use std::io;
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};
use std::thread;

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};
use staggered::CancelFlag;

use super::event::Event;

/// The signals that cancel the retrying: those a terminal (Ctrl-C, Ctrl-\,
/// hang-up) or a supervisor (`kill`, `docker stop`, systemd) ends a job with.
pub const CANCELLING: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT];

/// The retrying cancelled by a signal: the flag the retry loop stops on,
/// and the first signal that set it (for the exit status, 128 + its number,
/// and the give-up line). Clones share both.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: CancelFlag,
    signal: Arc<OnceLock<i32>>,
}

impl Cancel {
    /// The flag the retry loop stops on.
    pub fn flag(&self) -> &CancelFlag {
        &self.flag
    }

    /// The first signal received, if any.
    pub fn signal(&self) -> Option<i32> {
        self.signal.get().copied()
    }

    /// Cancels on `signal`, remembered first so that whoever sees the flag
    /// set finds the signal too.
    pub fn cancel_by(&self, signal: i32) {
        let _ = self.signal.set(signal);
        self.flag.cancel();
    }
}

/// Listens for the [`CANCELLING`] signals until the returned handle is
/// closed or the process ends: each cancels `cancel`, then goes to
/// `events`, for the running command.
///
/// # Errors
/// When a handler cannot be installed or the thread cannot start.
pub fn listen(events: Sender<Event>, cancel: Cancel) -> io::Result<Handle> {
    let mut signals = Signals::new(CANCELLING)?;
    let handle = signals.handle();
    thread::Builder::new().name("stagger-signals".to_owned()).spawn(move || {
        for signal in signals.forever() {
            cancel.cancel_by(signal);
            if events.send(Event::Signal(signal)).is_err() {
                break;
            }
        }
    })?;
    Ok(handle)
}

/// Whether a cancelling `signal` that `stagger` received is passed on to a
/// command that runs in `stagger`'s own process group (`--foreground`).
///
/// SIGINT, SIGQUIT and SIGHUP are what a terminal sends on Ctrl-C, Ctrl-\
/// and hang-up, to the whole foreground process group: the command has its
/// own copy already, and a second one would make a program that treats a
/// second Ctrl-C as "quit now" skip its clean-up. Only SIGTERM, which no
/// terminal sends, is passed on. Without `--foreground` the command is
/// outside the group that the terminal signals, so every signal is passed on.
pub const fn forwarded_in_foreground(signal: i32) -> bool {
    signal == SIGTERM
}

/// The signal's name (`SIGTERM`), or `signal N` for one without a name.
pub fn name(signal: i32) -> String {
    match signal_hook::low_level::signal_name(signal) {
        Some(name) => name.to_owned(),
        None => format!("signal {signal}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_signals() {
        assert_eq!(name(SIGTERM), "SIGTERM");
        assert_eq!(name(9), "SIGKILL");
        assert_eq!(name(1000), "signal 1000");
    }

    #[test]
    fn a_cancel_keeps_its_first_signal() {
        let cancel = Cancel::default();
        assert_eq!((cancel.flag().is_cancelled(), cancel.signal()), (false, None));
        let seen = cancel.clone();
        cancel.cancel_by(SIGTERM);
        cancel.cancel_by(SIGINT);
        assert_eq!((seen.flag().is_cancelled(), seen.signal()), (true, Some(SIGTERM)));
    }

    #[test]
    fn only_sigterm_is_passed_on_in_the_foreground() {
        assert!(forwarded_in_foreground(SIGTERM));
        assert!(!forwarded_in_foreground(SIGINT));
        assert!(!forwarded_in_foreground(SIGQUIT));
        assert!(!forwarded_in_foreground(SIGHUP));
    }
}
