//! What the driver waits for: one channel carries the signals `stagger`
//! receives and the state changes of the running command, so that one
//! `recv_timeout` waits for whichever comes first, or for the time limit.

use std::io;

/// Something that happened while the driver waited.
#[derive(Debug)]
pub enum Event {
    /// `stagger` received this signal (one of
    /// [`CANCELLING`](super::signals::CANCELLING)).
    Signal(i32),
    /// The command stopped on this signal (such as SIGTTIN); it is still
    /// there, to be continued or killed.
    Stopped(i32),
    /// The command ended.
    Ended(Termination),
    /// Waiting for the command failed: `stagger` no longer knows its state.
    WaitFailed(io::Error),
}

/// How the command's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// It exited with this code.
    Exited(u8),
    /// This signal killed it.
    Signaled(i32),
}
