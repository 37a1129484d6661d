//! The last line of `stagger run --log-format json`: the run summed up
//! with the numbers the library's `metrics` record for one operation
//! (attempts, retries, the total wait, why it stopped).

use std::time::{Duration, SystemTime};

use serde::Serialize;
use staggered::StopReason;

use super::log::{json, millis, timestamp, LogFormat};

/// The whole run, once it has ended (successfully or not).
#[derive(Debug, Clone, Copy)]
pub struct SummaryRecord {
    /// The attempts made, from 1.
    pub attempts: u32,
    /// max_attempts, if limited.
    pub max_attempts: Option<u32>,
    /// The total time spent waiting between attempts.
    pub waited: Duration,
    /// Why the retrying stopped; `None` when the command succeeded.
    pub reason: Option<StopReason>,
    /// The status `stagger` exits with.
    pub exit_code: u8,
    /// The time since attempt 1 started.
    pub elapsed: Duration,
    /// When the line is written.
    pub timestamp: SystemTime,
}

/// The JSON object of the summary: the numbers the library's `metrics`
/// record for one operation.
#[derive(Serialize)]
struct SummaryJson {
    event: &'static str,
    outcome: &'static str,
    attempts: u32,
    max_attempts: Option<u32>,
    retries: u32,
    first_try_success: bool,
    waited_ms: u64,
    /// `null` when the command succeeded.
    reason: Option<&'static str>,
    exit_code: u8,
    elapsed_ms: u64,
    timestamp: String,
}

/// The summary line, without the newline: JSON only, as a person reads
/// the same from the lines before it (`None` for the human format).
pub fn summary_line(format: LogFormat, record: &SummaryRecord) -> Option<String> {
    match format {
        LogFormat::Human => None,
        LogFormat::Json => Some(json(&SummaryJson {
            event: "summary",
            outcome: if record.reason.is_none() { "success" } else { "give_up" },
            attempts: record.attempts,
            max_attempts: record.max_attempts,
            retries: record.attempts.saturating_sub(1),
            first_try_success: record.reason.is_none() && record.attempts == 1,
            waited_ms: millis(record.waited),
            reason: record.reason.map(StopReason::name),
            exit_code: record.exit_code,
            elapsed_ms: millis(record.elapsed),
            timestamp: timestamp(record.timestamp),
        })),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// 2024-05-01T12:00:00.123Z
    fn noon() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(1_714_564_800_123)
    }

    #[test]
    fn the_json_summary_carries_the_runs_numbers() {
        let summary = |attempts, reason| SummaryRecord {
            attempts,
            max_attempts: Some(5),
            waited: 1234 * MS,
            reason,
            exit_code: if reason.is_some() { 3 } else { 0 },
            elapsed: 1500 * MS,
            timestamp: noon(),
        };
        let line = |record| summary_line(LogFormat::Json, &record).expect("a JSON line");
        let gave_up: Value = serde_json::from_str(&line(summary(3, Some(StopReason::Deadline)))).unwrap();
        let expected = json!({"event": "summary", "outcome": "give_up", "attempts": 3, "max_attempts": 5,
            "retries": 2, "first_try_success": false, "waited_ms": 1234, "reason": "deadline", "exit_code": 3,
            "elapsed_ms": 1500, "timestamp": "2024-05-01T12:00:00.123Z"});
        assert_eq!(gave_up, expected);
        let first: Value = serde_json::from_str(&line(summary(1, None))).unwrap();
        assert_eq!(
            (&first["outcome"], &first["first_try_success"], &first["reason"]),
            (&json!("success"), &json!(true), &Value::Null)
        );
        assert_eq!(
            summary_line(LogFormat::Human, &summary(1, None)),
            None,
            "a person reads the lines before"
        );
    }
}
