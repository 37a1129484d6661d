//! The lines `stagger run` writes to standard error about its retries: one
//! per retry and one on giving up, as text for a person or as one JSON
//! object per line (`event: "retry_attempt"`, `attempt`, `max_attempts`,
//! `delay_ms`, `error_type`, `error_message`, `timestamp`, the fields of the
//! library's `tracing` events); in JSON a last line sums the run up
//! ([`super::summary`]). The formatters are pure: the caller passes the
//! time.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use staggered::{ErrorKind, Hint, StopReason};

use super::http::Response;
use super::outcome::Outcome;
use super::signals;
use crate::duration;

/// The formats of `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `stagger: attempt 1/5 failed (exit code 1); retrying in 1.234s`
    Human,
    /// One JSON object per line.
    Json,
}

/// A failed attempt that will be retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryRecord<'a> {
    /// The attempt that failed, from 1.
    pub attempt: u32,
    /// max_attempts, if limited.
    pub max_attempts: Option<u32>,
    /// The wait before the next attempt.
    pub delay: Duration,
    /// How the attempt ended.
    pub outcome: &'a Outcome,
    /// The HTTP response it left (`--http-headers`), if any.
    pub response: Option<&'a Response>,
    /// How the decision classified it.
    pub kind: ErrorKind,
    /// The time since attempt 1 started.
    pub elapsed: Duration,
    /// When the line is written.
    pub timestamp: SystemTime,
}

/// The end of the retrying, without success.
#[derive(Debug, Clone, Copy)]
pub struct GiveUpRecord<'a> {
    /// The last attempt made, from 1.
    pub attempt: u32,
    /// max_attempts, if limited.
    pub max_attempts: Option<u32>,
    /// Why the retrying stopped.
    pub reason: StopReason,
    /// How the last attempt ended; `None` when no attempt was made (a
    /// signal came before attempt 1).
    pub outcome: Option<&'a Outcome>,
    /// The HTTP response the last attempt left (`--http-headers`), if any.
    pub response: Option<&'a Response>,
    /// The signal that cancelled the run, if one did.
    pub signal: Option<i32>,
    /// The wait that was chosen and refused because it would end at or
    /// past the deadline, with the time that was left.
    pub refused: Option<Refused>,
    /// The longest server hint allowed, for a hint that was longer.
    pub max_hint: Option<Duration>,
    /// The status `stagger` exits with.
    pub exit_code: u8,
    /// The time since attempt 1 started.
    pub elapsed: Duration,
    /// When the line is written.
    pub timestamp: SystemTime,
}

/// A wait the decision refused for the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The wait before the next attempt, as drawn (or set by a hint).
    pub wait: Duration,
    /// The time that was left before the deadline.
    pub time_left: Duration,
}

/// The JSON object of a retry.
#[derive(Serialize)]
struct RetryJson<'a> {
    event: &'static str,
    attempt: u32,
    max_attempts: Option<u32>,
    delay_ms: u64,
    error_type: &'static str,
    error_message: &'a str,
    error_kind: &'static str,
    exit_code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint_ms: Option<u64>,
    elapsed_ms: u64,
    timestamp: String,
}

/// The JSON object of a give-up.
#[derive(Serialize)]
struct GiveUpJson<'a> {
    event: &'static str,
    attempt: u32,
    max_attempts: Option<u32>,
    reason: &'static str,
    /// Without an attempt, there is no error.
    #[serde(skip_serializing_if = "Option::is_none")]
    error_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_message: Option<&'a str>,
    exit_code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint_ms: Option<u64>,
    /// For the deadline: the wait refused and the time that was left.
    #[serde(skip_serializing_if = "Option::is_none")]
    refused_delay_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_left_ms: Option<u64>,
    elapsed_ms: u64,
    timestamp: String,
}

/// The line for a retry, without the newline.
pub fn retry_line(format: LogFormat, record: &RetryRecord<'_>) -> String {
    let message = message(record.outcome, record.response);
    match format {
        LogFormat::Human => format!(
            "stagger: {} failed ({}); retrying in {}",
            attempt_of(record.attempt, record.max_attempts),
            printable(&message),
            duration::format_rounded(record.delay)
        ),
        LogFormat::Json => json(&RetryJson {
            event: "retry_attempt",
            attempt: record.attempt,
            max_attempts: record.max_attempts,
            delay_ms: millis(record.delay),
            error_type: record.outcome.error_type(),
            error_message: &message,
            error_kind: record.kind.name(),
            exit_code: record.outcome.exit_code(),
            http_status: record.response.map(|response| response.status),
            hint_ms: hint_ms(record.response),
            elapsed_ms: millis(record.elapsed),
            timestamp: timestamp(record.timestamp),
        }),
    }
}

/// The line for giving up, without the newline.
pub fn give_up_line(format: LogFormat, record: &GiveUpRecord<'_>) -> String {
    let message = record.outcome.map(|outcome| message(outcome, record.response));
    match format {
        LogFormat::Human => {
            let reason = reason(record);
            match &message {
                Some(message) => format!(
                    "stagger: {} failed ({}); giving up: {reason}",
                    attempt_of(record.attempt, record.max_attempts),
                    printable(message)
                ),
                None => format!("stagger: giving up before attempt 1: {reason}"),
            }
        }
        LogFormat::Json => json(&GiveUpJson {
            event: "give_up",
            attempt: record.attempt,
            max_attempts: record.max_attempts,
            reason: record.reason.name(),
            error_type: record.outcome.map(Outcome::error_type),
            error_message: message.as_deref(),
            exit_code: record.exit_code,
            signal: record.signal.map(signals::name),
            http_status: record.response.map(|response| response.status),
            hint_ms: hint_ms(record.response),
            refused_delay_ms: record.refused.map(|refused| millis(refused.wait)),
            time_left_ms: record.refused.map(|refused| millis(refused.time_left)),
            elapsed_ms: millis(record.elapsed),
            timestamp: timestamp(record.timestamp),
        }),
    }
}

/// How the attempt ended: `exit code 22, HTTP 503 Service Unavailable`.
pub(super) fn message(outcome: &Outcome, response: Option<&Response>) -> String {
    match response {
        Some(response) => format!("{}, {}", outcome.message(), response.describe()),
        None => outcome.message(),
    }
}

/// `text` for a terminal, with its control characters escaped (`\u{1b}`,
/// `\r`): a server's reason phrase could otherwise move the cursor and draw
/// over a line. JSON escapes them its own way.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// Why the retrying stopped, in words: the library's, with what the
/// record knows added (the signal, the refused wait, the hint).
fn reason(record: &GiveUpRecord<'_>) -> String {
    let format = duration::format_rounded;
    match (record.reason, record.signal, record.refused) {
        (StopReason::Cancelled, Some(signal), _) => format!("cancelled by {}", signals::name(signal)),
        (StopReason::Deadline, _, Some(Refused { wait, time_left })) if !time_left.is_zero() => format!(
            "the next wait, {}, would end past the deadline, which is {} away",
            format(wait),
            format(time_left)
        ),
        (StopReason::HintTooLong, _, _) => {
            match (record.response.and_then(Response::hint), record.max_hint) {
                (Some(Hint::After(hint)), Some(max)) => format!(
                    "the server asked to wait {}, longer than {} allows ({})",
                    format(hint),
                    super::args::flag::MAX_HINT,
                    format(max)
                ),
                (Some(Hint::Never), _) => "the server said not to retry".to_owned(),
                _ => record.reason.to_string(),
            }
        }
        (reason, _, _) => reason.to_string(),
    }
}

/// A response's hint in whole milliseconds, if it is a wait.
fn hint_ms(response: Option<&Response>) -> Option<u64> {
    match response?.hint()? {
        Hint::After(wait) => Some(millis(wait)),
        Hint::Never => None,
    }
}

/// `attempt 2/5`, or `attempt 2` with no attempt limit.
fn attempt_of(attempt: u32, max_attempts: Option<u32>) -> String {
    match max_attempts {
        Some(max) => format!("attempt {attempt}/{max}"),
        None => format!("attempt {attempt}"),
    }
}

/// Whole milliseconds, as the library's `tracing` events count them.
pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// RFC 3339 in UTC with milliseconds, as JavaScript's `toISOString()`
/// writes it: `2024-05-01T12:00:00.123Z`.
pub(super) fn timestamp(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

/// One line of JSON. Serializing these plain structs cannot fail.
pub(super) fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("log records serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::outcome::{Cut, TimeLimit};
    use serde_json::{json, Value};

    const MS: Duration = Duration::from_millis(1);

    /// 2024-05-01T12:00:00.123Z
    fn noon() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(1_714_564_800_123)
    }

    fn retry(outcome: &Outcome, max_attempts: Option<u32>) -> RetryRecord<'_> {
        RetryRecord {
            attempt: 1,
            max_attempts,
            delay: Duration::from_micros(1_234_567),
            outcome,
            response: None,
            kind: ErrorKind::Transient,
            elapsed: 42 * MS,
            timestamp: noon(),
        }
    }

    fn give_up(outcome: &Outcome, reason: StopReason, signal: Option<i32>) -> GiveUpRecord<'_> {
        GiveUpRecord {
            attempt: 3,
            max_attempts: Some(3),
            reason,
            outcome: Some(outcome),
            response: None,
            signal,
            refused: None,
            max_hint: None,
            exit_code: 3,
            elapsed: 1500 * MS,
            timestamp: noon(),
        }
    }

    #[test]
    fn human_retry_lines() {
        assert_eq!(
            retry_line(LogFormat::Human, &retry(&Outcome::Exited(1), Some(5))),
            "stagger: attempt 1/5 failed (exit code 1); retrying in 1.235s"
        );
        let timed_out = Outcome::TimedOut(TimeLimit { after: 200 * MS, cut: Cut::AttemptTimeout });
        assert_eq!(
            retry_line(LogFormat::Human, &retry(&timed_out, None)),
            "stagger: attempt 1 failed (timed out after 200ms); retrying in 1.235s"
        );
    }

    #[test]
    fn json_retry_lines_carry_the_tracing_fields() {
        let line = retry_line(LogFormat::Json, &retry(&Outcome::Signaled(9), Some(5)));
        assert!(!line.contains('\n'));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value,
            json!({
                "event": "retry_attempt",
                "attempt": 1,
                "max_attempts": 5,
                "delay_ms": 1234,
                "error_type": "signal",
                "error_message": "killed by SIGKILL",
                "error_kind": "transient",
                "exit_code": 137,
                "elapsed_ms": 42,
                "timestamp": "2024-05-01T12:00:00.123Z",
            })
        );
        let unlimited = retry_line(LogFormat::Json, &retry(&Outcome::Exited(1), None));
        let value: Value = serde_json::from_str(&unlimited).unwrap();
        assert_eq!(value["max_attempts"], Value::Null);
    }

    #[test]
    fn human_give_up_lines() {
        assert_eq!(
            give_up_line(
                LogFormat::Human,
                &give_up(&Outcome::Exited(3), StopReason::AttemptsExhausted, None)
            ),
            "stagger: attempt 3/3 failed (exit code 3); giving up: attempts exhausted"
        );
        assert_eq!(
            give_up_line(LogFormat::Human, &give_up(&Outcome::Signaled(15), StopReason::Cancelled, None)),
            "stagger: attempt 3/3 failed (killed by SIGTERM); giving up: cancelled"
        );
        assert_eq!(
            give_up_line(LogFormat::Human, &give_up(&Outcome::Exited(3), StopReason::Cancelled, Some(2))),
            "stagger: attempt 3/3 failed (exit code 3); giving up: cancelled by SIGINT"
        );
    }

    #[test]
    fn json_give_up_lines() {
        let line = give_up_line(LogFormat::Json, &give_up(&Outcome::Exited(3), StopReason::Deadline, None));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value,
            json!({
                "event": "give_up",
                "attempt": 3,
                "max_attempts": 3,
                "reason": "deadline",
                "error_type": "exit_code",
                "error_message": "exit code 3",
                "exit_code": 3,
                "elapsed_ms": 1500,
                "timestamp": "2024-05-01T12:00:00.123Z",
            })
        );
        let line =
            give_up_line(LogFormat::Json, &give_up(&Outcome::Exited(3), StopReason::Cancelled, Some(15)));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["signal"], "SIGTERM");
        assert_eq!(value["reason"], "cancelled");
    }

    #[test]
    fn a_signal_before_attempt_1_gives_up_without_an_error() {
        let mut record = give_up(&Outcome::Exited(0), StopReason::Cancelled, Some(2));
        (record.attempt, record.outcome, record.exit_code) = (0, None, 130);
        assert_eq!(
            give_up_line(LogFormat::Human, &record),
            "stagger: giving up before attempt 1: cancelled by SIGINT"
        );
        let value: Value = serde_json::from_str(&give_up_line(LogFormat::Json, &record)).unwrap();
        assert_eq!(
            value,
            json!({
                "event": "give_up",
                "attempt": 0,
                "max_attempts": 3,
                "reason": "cancelled",
                "exit_code": 130,
                "signal": "SIGINT",
                "elapsed_ms": 1500,
                "timestamp": "2024-05-01T12:00:00.123Z",
            })
        );
    }

    #[test]
    fn a_deadline_give_up_states_the_wait_and_the_time_left() {
        let outcome = Outcome::Exited(1);
        let mut record = give_up(&outcome, StopReason::Deadline, None);
        record.refused =
            Some(Refused { wait: Duration::from_millis(8213), time_left: Duration::from_secs(6) });
        assert_eq!(
            give_up_line(LogFormat::Human, &record),
            "stagger: attempt 3/3 failed (exit code 1); giving up: the next wait, 8.213s, would end past the \
             deadline, which is 6s away"
        );
        let value: Value = serde_json::from_str(&give_up_line(LogFormat::Json, &record)).unwrap();
        assert_eq!(
            (value["refused_delay_ms"].clone(), value["time_left_ms"].clone()),
            (json!(8213), json!(6000))
        );
        // Nothing left: the library's words are true as they stand.
        record.refused = Some(Refused { wait: Duration::from_secs(1), time_left: Duration::ZERO });
        assert!(
            give_up_line(LogFormat::Human, &record).ends_with("giving up: no time left before the deadline")
        );
    }

    #[test]
    fn http_responses_are_named_with_their_hint() {
        let outcome = Outcome::Exited(22);
        let throttled = Response {
            status: 429,
            reason: "Too Many Requests".to_owned(),
            failure: Some(staggered::Failure::THROTTLED.with_hint(Hint::After(Duration::from_secs(60)))),
            hint_from: crate::run::http::HintFrom::Server,
        };
        let mut record = retry(&outcome, Some(5));
        record.response = Some(&throttled);
        assert_eq!(
            retry_line(LogFormat::Human, &record),
            "stagger: attempt 1/5 failed (exit code 22, HTTP 429 Too Many Requests, server asked for 1m); \
             retrying in 1.235s"
        );
        let value: Value = serde_json::from_str(&retry_line(LogFormat::Json, &record)).unwrap();
        assert_eq!((value["http_status"].clone(), value["hint_ms"].clone()), (json!(429), json!(60_000)));
        let mut record = give_up(&outcome, StopReason::HintTooLong, None);
        record.response = Some(&throttled);
        record.max_hint = Some(Duration::from_secs(30));
        assert!(
            give_up_line(LogFormat::Human, &record)
                .ends_with("giving up: the server asked to wait 1m, longer than --max-hint allows (30s)"),
            "{}",
            give_up_line(LogFormat::Human, &record)
        );
        let plain: Value =
            serde_json::from_str(&retry_line(LogFormat::Json, &retry(&outcome, None))).unwrap();
        assert!(plain.get("http_status").is_none() && plain.get("hint_ms").is_none());
    }

    #[test]
    fn control_characters_from_the_server_do_not_reach_the_terminal() {
        let outcome = Outcome::Exited(22);
        let forged = "\u{1b}[2K\rstagger: attempt 9/9 succeeded";
        let response = Response {
            status: 503,
            reason: format!("{forged}{}", "x".repeat(1 << 20)),
            failure: None,
            hint_from: crate::run::http::HintFrom::Server,
        };
        let mut record = retry(&outcome, Some(5));
        record.response = Some(&response);
        let human = retry_line(LogFormat::Human, &record);
        let cut = format!("{}…", "x".repeat(200 - forged.chars().count()));
        assert_eq!(
            human,
            format!(
                "stagger: attempt 1/5 failed (exit code 22, HTTP 503 \\u{{1b}}[2K\\rstagger: attempt 9/9 \
                 succeeded{cut}); retrying in 1.235s"
            )
        );
        // JSON escapes the characters its own way; the phrase is cut the same.
        let value: Value = serde_json::from_str(&retry_line(LogFormat::Json, &record)).unwrap();
        assert_eq!(value["error_message"], format!("exit code 22, HTTP 503 {forged}{cut}"));
    }
}
