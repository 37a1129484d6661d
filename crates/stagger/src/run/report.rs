//! What `stagger run` tells standard error as the retry loop goes (a line
//! per retry and one on giving up, from the loop's events, then the
//! summary), and the status a run that gave up ends with.

use std::cell::Cell;
use std::io::{self, Write};
use std::time::{Duration, Instant, SystemTime};

use staggered::{GiveUpEvent, Limits, RetryEvent, StopReason};

use super::attempt::{CommandFailed, Failed};
use super::config::RunConfig;
use super::log::{self, GiveUpRecord, LogFormat, Refused, RetryRecord};
use super::outcome::{self, Outcome};
use super::signals::Cancel;
use super::summary::{self, SummaryRecord};
use crate::exit::Exit;

/// The run's reporter: the retry loop's hooks call it.
#[derive(Debug)]
pub struct Report<'a> {
    format: LogFormat,
    /// `--quiet`: nothing is written.
    quiet: bool,
    limits: Limits,
    cancel: &'a Cancel,
    /// When the run started: the logs' `elapsed` counts from there.
    start: Instant,
    /// The last attempt that was retried (0 before any): a run cancelled
    /// with no attempt after it was cancelled while no command ran.
    retried: Cell<u32>,
}

impl<'a> Report<'a> {
    /// The reporter of a run of `config` that started at `start`, cancelled
    /// by `cancel`.
    pub fn new(config: &RunConfig, cancel: &'a Cancel, start: Instant) -> Self {
        Report {
            format: config.log_format,
            quiet: config.quiet,
            limits: *config.policy.limits(),
            cancel,
            start,
            retried: Cell::new(0),
        }
    }

    /// Logs a retry.
    pub fn retry(&self, event: &RetryEvent<'_, Failed>) {
        self.retried.set(event.attempt);
        // `stagger`'s own failures are permanent: only a command's is retried.
        let Some(failed) = event.error.command() else { return };
        let record = RetryRecord {
            attempt: event.attempt,
            max_attempts: event.max_attempts,
            delay: event.delay,
            outcome: &failed.outcome,
            response: failed.response.as_ref(),
            kind: event.failure.kind,
            elapsed: self.start.elapsed(),
            timestamp: SystemTime::now(),
        };
        self.write(log::retry_line(self.format, &record));
    }

    /// Logs giving up, unless `stagger` itself failed: the caller reports that.
    pub fn give_up(&self, event: &GiveUpEvent<'_, Failed>) {
        let last = match event.error {
            Some(Failed::Stagger(_)) => return,
            error => error.and_then(Failed::command),
        };
        // With a deadline, the event's `elapsed` counts from attempt 1's start,
        // as the decision that refused the wait counted it.
        let refused = match (event.reason, event.wait, self.limits.time_left(event.elapsed)) {
            (StopReason::Deadline, Some(wait), Some(time_left)) => Some(Refused { wait, time_left }),
            _ => None,
        };
        let record = GiveUpRecord {
            attempt: event.attempts,
            max_attempts: event.max_attempts,
            reason: event.reason,
            outcome: last.map(|last| &last.outcome),
            response: last.and_then(|last| last.response.as_ref()),
            signal: self.cancel.signal().filter(|_| event.reason == StopReason::Cancelled),
            refused,
            max_hint: self.limits.max_hint,
            exit_code: self.exit(event.reason, event.attempts, last).code(),
            elapsed: self.start.elapsed(),
            timestamp: SystemTime::now(),
        };
        self.write(log::give_up_line(self.format, &record));
    }

    /// The status of a run that stopped for `reason` after `attempts`, the
    /// last of which failed as `last` says: the command's status (126 for a
    /// terminal stop), or, when a signal cancelled the run while no command
    /// ran (during a wait, or before attempt 1), 128 + the signal.
    pub fn exit(&self, reason: StopReason, attempts: u32, last: Option<&CommandFailed>) -> Exit {
        let while_waiting = reason == StopReason::Cancelled && self.retried.get() == attempts;
        match last.filter(|_| !while_waiting) {
            Some(CommandFailed { outcome: Outcome::TerminalStop(_), .. }) => Exit::CannotExecute,
            Some(last) => Exit::Command(last.outcome.exit_code()),
            None => self
                .cancel
                .signal()
                .map_or(Exit::Failure, |signal| Exit::Command(outcome::signal_status(signal))),
        }
    }

    /// Sums the run up, in the formats that do.
    pub fn summary(&self, attempts: u32, waited: Duration, reason: Option<StopReason>, exit: Exit) {
        let record = SummaryRecord {
            attempts,
            max_attempts: self.limits.max_attempts,
            waited,
            reason,
            exit_code: exit.code(),
            elapsed: self.start.elapsed(),
            timestamp: SystemTime::now(),
        };
        if let Some(text) = summary::summary_line(self.format, &record) {
            self.write(text);
        }
    }

    /// Writes a log line, unless `--quiet`.
    fn write(&self, text: String) {
        if !self.quiet {
            line(&text);
        }
    }
}

/// Writes `text` and a newline to standard error in one write, so that the
/// line is not split by the command's own output. A log line that cannot be
/// written is dropped: the retrying goes on.
pub fn line(text: &str) {
    let _ = io::stderr().lock().write_all(format!("{text}\n").as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use signal_hook::consts::{SIGINT, SIGTERM};

    fn report(cancel: &Cancel) -> Report<'_> {
        Report {
            format: LogFormat::Human,
            quiet: true,
            limits: Limits::NONE,
            cancel,
            start: Instant::now(),
            retried: Cell::new(0),
        }
    }

    fn failed(outcome: Outcome) -> CommandFailed {
        CommandFailed::new(outcome, None, staggered::Failure::TRANSIENT)
    }

    #[test]
    fn the_exit_is_the_commands_unless_a_signal_came_while_none_ran() {
        let cancel = Cancel::default();
        let report = report(&cancel);
        let exited = failed(Outcome::Exited(3));
        let exhausted = StopReason::AttemptsExhausted;
        assert_eq!(report.exit(exhausted, 1, Some(&exited)), Exit::Command(3));
        assert_eq!(report.exit(exhausted, 1, Some(&failed(Outcome::TerminalStop(21)))), Exit::CannotExecute);
        cancel.cancel_by(SIGTERM);
        cancel.cancel_by(SIGINT);
        // During attempt 1: the command had the signal, and its status counts.
        assert_eq!(report.exit(StopReason::Cancelled, 1, Some(&exited)), Exit::Command(3));
        // Before attempt 1, or in the wait after it: 128 + the first signal.
        assert_eq!(report.exit(StopReason::Cancelled, 0, None), Exit::Command(143));
        report.retried.set(1);
        assert_eq!(report.exit(StopReason::Cancelled, 1, Some(&exited)), Exit::Command(143));
        assert_eq!(
            report.exit(StopReason::Cancelled, 2, Some(&exited)),
            Exit::Command(3),
            "during attempt 2"
        );
    }
}
