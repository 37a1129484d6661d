//! How one attempt ended, what the retry decision is told about it
//! ([`Outcome::failure`]), and how logs and the exit code describe it. Pure:
//! no process is touched here.
//!
//! # A signal death reads as its status
//!
//! A command killed by signal N has the status 128+N, as a shell reports
//! it, and the exit-code lists classify that status like any exit code:
//! `--retry-on-exit 1` stops on a SIGKILL (137), `--stop-on-exit 137` stops
//! on it, and with neither it is retried. One status stops by default:
//! [`BROKEN_PIPE`] (141, SIGPIPE, whether the command died of it or a shell
//! reports it as its exit code). It means the reader of the command's
//! output has gone (`stagger run -- seq 1000000 | head`), and a new attempt
//! would write to the same closed pipe. `--retry-on-exit` naming 141 retries
//! it after all.

use std::time::Duration;

use staggered::config::ClassificationConfig;
use staggered::{ErrorKind, Failure};

use super::signals;
use crate::duration;
use crate::exit::TIMED_OUT;

/// What stopped an attempt before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// `--attempt-timeout`.
    AttemptTimeout,
    /// The time left before the deadline, shorter than `--attempt-timeout`.
    Deadline,
}

/// How long an attempt may run, and what imposes that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeLimit {
    /// The longest the attempt may run.
    pub after: Duration,
    /// Which limit this is.
    pub cut: Cut,
}

impl TimeLimit {
    /// The limit for the next attempt: `--attempt-timeout`, clipped to the
    /// time left before the deadline (`Limits::time_left`); `None` when
    /// there is neither.
    pub fn for_attempt(attempt_timeout: Option<Duration>, time_left: Option<Duration>) -> Option<TimeLimit> {
        match (attempt_timeout, time_left) {
            (Some(timeout), Some(left)) if left < timeout => {
                Some(TimeLimit { after: left, cut: Cut::Deadline })
            }
            (Some(timeout), _) => Some(TimeLimit { after: timeout, cut: Cut::AttemptTimeout }),
            (None, Some(left)) => Some(TimeLimit { after: left, cut: Cut::Deadline }),
            (None, None) => None,
        }
    }
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The command exited with this code (0 is success).
    Exited(u8),
    /// A signal ended the command (not our time limit): its number.
    Signaled(i32),
    /// The time limit ran out and the command was stopped, whatever it then
    /// exited with.
    TimedOut(TimeLimit),
    /// The command stopped on SIGTTIN or SIGTTOU (its number): it tried to
    /// use the terminal from its own process group, and was killed.
    TerminalStop(i32),
    /// `stagger` received this cancelling signal, passed it on, and then
    /// killed the command (SIGKILL), which had not ended within
    /// `--kill-after` or before a second cancelling signal.
    ForceKilled(i32),
}

/// The status of a command killed by SIGPIPE, or of a shell reporting one:
/// 128 + 13. It stops the retrying unless `--retry-on-exit` names it.
pub const BROKEN_PIPE: u8 = 141;

/// The status a shell reports for a command that signal `signal` killed:
/// 128 + the signal (255 for a number past 127, which no system uses).
pub fn signal_status(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// The kind of failure a non-zero `status` is: the library's exit-code rule
/// over the lists, except that [`BROKEN_PIPE`] is permanent unless the
/// retry list names it. `None` for 0, a success.
fn status_kind(status: u8, classification: &ClassificationConfig) -> Option<ErrorKind> {
    let kind = classification.exit_code_kind(i32::from(status))?;
    let pipe_retried = classification.retry_exit_codes.contains(&i32::from(BROKEN_PIPE));
    Some(if status == BROKEN_PIPE && !pipe_retried { ErrorKind::Permanent } else { kind })
}

impl Outcome {
    /// What the retry decision is told: for an exit code or a signal
    /// death, what the exit-code lists say of its status (`None` for 0, a
    /// success; see the [module docs](self) for SIGPIPE); a timeout for a
    /// stopped attempt; permanent for a terminal stop. A forced kill follows
    /// a cancel, which the decision stops on whatever it is told.
    pub fn failure(&self, classification: &ClassificationConfig) -> Option<Failure> {
        match *self {
            Outcome::Exited(code) => status_kind(code, classification).map(Failure::new),
            Outcome::Signaled(signal) => status_kind(signal_status(signal), classification).map(Failure::new),
            Outcome::TerminalStop(_) => Some(Failure::PERMANENT),
            Outcome::TimedOut(_) => Some(Failure::timeout()),
            Outcome::ForceKilled(_) => Some(Failure::TRANSIENT),
        }
    }

    /// The status `stagger run` exits with when this attempt is the last:
    /// the exit code, 128 + the signal, [`TIMED_OUT`] or 126. A command
    /// killed after a cancel gives 128 + the cancelling signal (130 after
    /// Ctrl-C), as if it had ended on it.
    pub fn exit_code(&self) -> u8 {
        match *self {
            Outcome::Exited(code) => code,
            Outcome::Signaled(signal) | Outcome::ForceKilled(signal) => signal_status(signal),
            Outcome::TimedOut(_) => TIMED_OUT,
            Outcome::TerminalStop(_) => 126,
        }
    }

    /// The kind of error, for the logs' `error_type`: `exit_code`,
    /// `signal`, `timeout` or `terminal`.
    pub const fn error_type(&self) -> &'static str {
        match self {
            Outcome::Exited(_) => "exit_code",
            Outcome::Signaled(_) | Outcome::ForceKilled(_) => "signal",
            Outcome::TimedOut(_) => "timeout",
            Outcome::TerminalStop(_) => "terminal",
        }
    }

    /// The logs' `error_message`: `exit code 3`, `killed by SIGKILL`,
    /// `timed out after 200ms`, ...
    pub fn message(&self) -> String {
        match *self {
            Outcome::Exited(code) => format!("exit code {code}"),
            Outcome::Signaled(signal) if signal_status(signal) == BROKEN_PIPE => {
                format!("killed by {}: the reader of its output has gone", signals::name(signal))
            }
            Outcome::Signaled(signal) => format!("killed by {}", signals::name(signal)),
            Outcome::ForceKilled(signal) => {
                format!("killed by SIGKILL: it had not ended on {}", signals::name(signal))
            }
            Outcome::TimedOut(TimeLimit { after, cut: Cut::AttemptTimeout }) => {
                format!("timed out after {}", duration::format_rounded(after))
            }
            Outcome::TimedOut(TimeLimit { after, cut: Cut::Deadline }) => {
                format!("stopped at the deadline after {}", duration::format_rounded(after))
            }
            Outcome::TerminalStop(signal) => format!(
                "stopped by {} on reading or setting up the terminal, which it cannot do in its own \
                 process group: give it input from a file or pipe, or use --foreground",
                signals::name(signal)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered::ErrorKind;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_attempt_timeout_is_clipped_to_the_deadline() {
        let timeout = TimeLimit { after: 200 * MS, cut: Cut::AttemptTimeout };
        assert_eq!(TimeLimit::for_attempt(Some(200 * MS), None), Some(timeout));
        assert_eq!(TimeLimit::for_attempt(Some(200 * MS), Some(300 * MS)), Some(timeout));
        assert_eq!(TimeLimit::for_attempt(Some(200 * MS), Some(200 * MS)), Some(timeout));
        assert_eq!(
            TimeLimit::for_attempt(Some(200 * MS), Some(150 * MS)),
            Some(TimeLimit { after: 150 * MS, cut: Cut::Deadline })
        );
        assert_eq!(
            TimeLimit::for_attempt(None, Some(Duration::ZERO)),
            Some(TimeLimit { after: Duration::ZERO, cut: Cut::Deadline })
        );
        assert_eq!(TimeLimit::for_attempt(None, None), None);
    }

    #[test]
    fn classification_follows_the_exit_code_rule() {
        let mut only_75 = ClassificationConfig::default();
        only_75.retry_exit_codes = vec![75];
        let mut all_but_4 = ClassificationConfig::default();
        all_but_4.stop_exit_codes = vec![4];
        let any = ClassificationConfig::default();
        assert_eq!(Outcome::Exited(0).failure(&any), None);
        assert_eq!(Outcome::Exited(0).failure(&all_but_4), None);
        assert_eq!(Outcome::Exited(1).failure(&any), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Exited(255).failure(&any), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Exited(75).failure(&only_75), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Exited(1).failure(&only_75), Some(Failure::PERMANENT));
        assert_eq!(Outcome::Exited(4).failure(&all_but_4), Some(Failure::PERMANENT));
        assert_eq!(Outcome::Exited(3).failure(&all_but_4), Some(Failure::TRANSIENT));
        // A signal death is classified by its status, 128 + the signal.
        assert_eq!(Outcome::Signaled(9).failure(&any), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Signaled(9).failure(&only_75), Some(Failure::PERMANENT));
        let mut stop_137 = ClassificationConfig::default();
        stop_137.stop_exit_codes = vec![137];
        assert_eq!(Outcome::Signaled(9).failure(&stop_137), Some(Failure::PERMANENT));
        assert_eq!(Outcome::Signaled(15).failure(&stop_137), Some(Failure::TRANSIENT));
        let timed_out = Outcome::TimedOut(TimeLimit { after: MS, cut: Cut::AttemptTimeout });
        let failure = timed_out.failure(&only_75).unwrap();
        assert!(failure.timed_out && failure.kind == ErrorKind::Transient);
        assert_eq!(Outcome::TerminalStop(21).failure(&any), Some(Failure::PERMANENT));
    }

    #[test]
    fn a_broken_pipe_stops_unless_the_retry_list_names_it() {
        let any = ClassificationConfig::default();
        assert_eq!(Outcome::Signaled(13).failure(&any), Some(Failure::PERMANENT));
        assert_eq!(Outcome::Exited(BROKEN_PIPE).failure(&any), Some(Failure::PERMANENT), "a shell's 141");
        let mut all_but_1 = ClassificationConfig::default();
        all_but_1.stop_exit_codes = vec![1];
        assert_eq!(Outcome::Signaled(13).failure(&all_but_1), Some(Failure::PERMANENT));
        let mut pipe_too = ClassificationConfig::default();
        pipe_too.retry_exit_codes = vec![1, 141];
        assert_eq!(Outcome::Signaled(13).failure(&pipe_too), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Exited(BROKEN_PIPE).failure(&pipe_too), Some(Failure::TRANSIENT));
        assert_eq!(Outcome::Signaled(13).exit_code(), 141);
        assert_eq!(Outcome::Signaled(13).message(), "killed by SIGPIPE: the reader of its output has gone");
    }

    #[test]
    fn exit_codes_follow_shell_conventions() {
        assert_eq!(Outcome::Exited(3).exit_code(), 3);
        assert_eq!(Outcome::Signaled(15).exit_code(), 143);
        assert_eq!(Outcome::Signaled(9).exit_code(), 137);
        assert_eq!(Outcome::TimedOut(TimeLimit { after: MS, cut: Cut::Deadline }).exit_code(), 124);
        assert_eq!(Outcome::TerminalStop(21).exit_code(), 126);
        assert_eq!(Outcome::ForceKilled(2).exit_code(), 130, "as if it had ended on SIGINT");
        assert_eq!(Outcome::ForceKilled(15).message(), "killed by SIGKILL: it had not ended on SIGTERM");
    }

    #[test]
    fn messages_read_well() {
        assert_eq!(Outcome::Exited(3).message(), "exit code 3");
        assert_eq!(Outcome::Signaled(9).message(), "killed by SIGKILL");
        let limit = TimeLimit { after: 200 * MS, cut: Cut::AttemptTimeout };
        assert_eq!(Outcome::TimedOut(limit).message(), "timed out after 200ms");
        let limit = TimeLimit { after: Duration::from_micros(1_234_567), cut: Cut::Deadline };
        assert_eq!(Outcome::TimedOut(limit).message(), "stopped at the deadline after 1.235s");
        assert!(Outcome::TerminalStop(21).message().starts_with("stopped by SIGTTIN"));
        assert_eq!(Outcome::Signaled(15).error_type(), "signal");
    }
}
