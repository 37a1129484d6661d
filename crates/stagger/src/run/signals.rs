//! The signals `stagger run` catches (SIGINT, SIGTERM, SIGHUP, SIGQUIT), the
//! thread that turns them into [`Event::Signal`]s, and which of them reach
//! the command.
//!
//! Catching them replaces their default action (ending `stagger` at once,
//! and leaving the command running in its own process group): instead the
//! driver cancels the retrying, passes the signal on, and waits for the
//! command to end.

use std::io;
use std::sync::mpsc::Sender;
use std::thread;

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

use super::event::Event;

/// The signals that cancel the retrying: those a terminal (Ctrl-C, Ctrl-\,
/// hang-up) or a supervisor (`kill`, `docker stop`, systemd) ends a job with.
pub const CANCELLING: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT];

/// Listens for the [`CANCELLING`] signals until the returned handle is
/// closed or the process ends, sending each one to `events`.
///
/// # Errors
/// When a handler cannot be installed or the thread cannot start.
pub fn listen(events: Sender<Event>) -> io::Result<Handle> {
    let mut signals = Signals::new(CANCELLING)?;
    let handle = signals.handle();
    thread::Builder::new().name("stagger-signals".to_owned()).spawn(move || {
        for signal in signals.forever() {
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
    fn only_sigterm_is_passed_on_in_the_foreground() {
        assert!(forwarded_in_foreground(SIGTERM));
        assert!(!forwarded_in_foreground(SIGINT));
        assert!(!forwarded_in_foreground(SIGQUIT));
        assert!(!forwarded_in_foreground(SIGHUP));
    }
}
