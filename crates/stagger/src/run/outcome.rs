//! How one attempt ended, what the retry decision is told about it
//! ([`Outcome::failure`]), and how logs and the exit code describe it. Pure:
//! no process is touched here.

use std::time::Duration;

use staggered::config::ClassificationConfig;
use staggered::Failure;

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
    /// time left before the deadline (`Decision::time_left`); `None` when
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
}

impl Outcome {
    /// What the retry decision is told: for an exit code, what the
    /// library's exit-code rule says (`None` for 0, a success); a timeout
    /// for a stopped attempt; transient for a signal; permanent for a
    /// terminal stop.
    pub fn failure(&self, classification: &ClassificationConfig) -> Option<Failure> {
        match *self {
            Outcome::Exited(code) => classification.exit_code_kind(i32::from(code)).map(Failure::new),
            Outcome::TerminalStop(_) => Some(Failure::PERMANENT),
            Outcome::Signaled(_) => Some(Failure::TRANSIENT),
            Outcome::TimedOut(_) => Some(Failure::timeout()),
        }
    }

    /// The status `stagger run` exits with when this attempt is the last:
    /// the exit code, 128 + the signal, [`TIMED_OUT`] or 126.
    pub fn exit_code(&self) -> u8 {
        match *self {
            Outcome::Exited(code) => code,
            Outcome::Signaled(signal) => u8::try_from(128 + signal).unwrap_or(u8::MAX),
            Outcome::TimedOut(_) => TIMED_OUT,
            Outcome::TerminalStop(_) => 126,
        }
    }

    /// The kind of error, for the logs' `error_type`: `exit_code`,
    /// `signal`, `timeout` or `terminal`.
    pub const fn error_type(&self) -> &'static str {
        match self {
            Outcome::Exited(_) => "exit_code",
            Outcome::Signaled(_) => "signal",
            Outcome::TimedOut(_) => "timeout",
            Outcome::TerminalStop(_) => "terminal",
        }
    }

    /// The logs' `error_message`: `exit code 3`, `killed by SIGKILL`,
    /// `timed out after 200ms`, ...
    pub fn message(&self) -> String {
        match *self {
            Outcome::Exited(code) => format!("exit code {code}"),
            Outcome::Signaled(signal) => format!("killed by {}", signals::name(signal)),
            Outcome::TimedOut(TimeLimit { after, cut: Cut::AttemptTimeout }) => {
                format!("timed out after {}", duration::format_significant(after, 4))
            }
            Outcome::TimedOut(TimeLimit { after, cut: Cut::Deadline }) => {
                format!("stopped at the deadline after {}", duration::format_significant(after, 4))
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
        // A signal has no exit code: --retry-on-exit cannot exclude it.
        assert_eq!(Outcome::Signaled(9).failure(&only_75), Some(Failure::TRANSIENT));
        let timed_out = Outcome::TimedOut(TimeLimit { after: MS, cut: Cut::AttemptTimeout });
        let failure = timed_out.failure(&only_75).unwrap();
        assert!(failure.timed_out && failure.kind == ErrorKind::Transient);
        assert_eq!(Outcome::TerminalStop(21).failure(&any), Some(Failure::PERMANENT));
    }

    #[test]
    fn exit_codes_follow_shell_conventions() {
        assert_eq!(Outcome::Exited(3).exit_code(), 3);
        assert_eq!(Outcome::Signaled(15).exit_code(), 143);
        assert_eq!(Outcome::Signaled(9).exit_code(), 137);
        assert_eq!(Outcome::TimedOut(TimeLimit { after: MS, cut: Cut::Deadline }).exit_code(), 124);
        assert_eq!(Outcome::TerminalStop(21).exit_code(), 126);
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
