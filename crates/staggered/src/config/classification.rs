//! The `classification` section: how HTTP statuses and exit codes are
//! classified, and the checks of its lists, each linear in their length.

use super::{ClassificationConfig, LoadError, LoadErrorKind};
use crate::classify::http::{ClassifyHttp, StatusSet};
use crate::classify::ErrorKind;

impl ClassificationConfig {
    /// The kind of failure an HTTP status is, or `None` for a success: the
    /// stop list, then the retry list (429 throttled, others transient),
    /// then the default rule (408, 429 and 5xx retry, other 4xx stop).
    pub fn status_kind(&self, status: u16) -> Option<ErrorKind> {
        if self.stop_statuses.contains(&status) {
            Some(ErrorKind::Permanent)
        } else if self.retry_statuses.contains(&status) {
            Some(if status == 429 { ErrorKind::Throttled } else { ErrorKind::Transient })
        } else if status >= 400 {
            Some(crate::classify::http::status_kind(status))
        } else {
            None
        }
    }

    /// The kind of failure a command's exit code is, or `None` for 0 (a
    /// success): the stop list, then the retry list if it is not empty (a
    /// code outside it is permanent), otherwise transient.
    pub fn exit_code_kind(&self, code: i32) -> Option<ErrorKind> {
        if code == 0 {
            None
        } else if self.stop_exit_codes.contains(&code) {
            Some(ErrorKind::Permanent)
        } else if self.retry_exit_codes.is_empty() || self.retry_exit_codes.contains(&code) {
            Some(ErrorKind::Transient)
        } else {
            Some(ErrorKind::Permanent)
        }
    }

    /// The HTTP classifier with these status lists.
    pub fn http(&self) -> ClassifyHttp {
        ClassifyHttp::new().with_status_lists(
            self.retry_statuses.iter().copied().collect(),
            self.stop_statuses.iter().copied().collect(),
        )
    }

    /// Checks the lists: statuses 100 to 599, exit codes 1 to 255, no code
    /// in both lists of a pair. One pass over each list, with the codes
    /// kept as bits, so a list of any length is checked in linear time.
    pub(super) fn validate(&self) -> Result<(), LoadError> {
        let invalid =
            |field: String, message: String| Err(LoadError::new(LoadErrorKind::Invalid, field, message));
        for (name, list) in [("retry_statuses", &self.retry_statuses), ("stop_statuses", &self.stop_statuses)]
        {
            if let Some((i, status)) = list.iter().enumerate().find(|(_, s)| !(100..=599).contains(*s)) {
                return invalid(
                    format!("classification.{name}[{i}]"),
                    format!("invalid status {status}: must be between 100 and 599"),
                );
            }
        }
        let stop: StatusSet = self.stop_statuses.iter().copied().collect();
        if let Some((i, status)) = self.retry_statuses.iter().enumerate().find(|(_, s)| stop.contains(**s)) {
            return invalid(
                format!("classification.retry_statuses[{i}]"),
                format!("status {status} is also in stop_statuses"),
            );
        }
        for (name, list) in
            [("retry_exit_codes", &self.retry_exit_codes), ("stop_exit_codes", &self.stop_exit_codes)]
        {
            // A process exits with 0 to 255; 0 is a success, never a failure to classify.
            if let Some((i, code)) = list.iter().enumerate().find(|(_, c)| !(1..=255).contains(*c)) {
                let why = if *code == 0 { "0 is a success" } else { "must be between 1 and 255" };
                return invalid(
                    format!("classification.{name}[{i}]"),
                    format!("invalid exit code {code}: {why}"),
                );
            }
        }
        let mut stop = [false; 256];
        for &code in &self.stop_exit_codes {
            stop[code as usize] = true;
        }
        if let Some((i, code)) = self.retry_exit_codes.iter().enumerate().find(|(_, c)| stop[**c as usize]) {
            return invalid(
                format!("classification.retry_exit_codes[{i}]"),
                format!("exit code {code} is also in stop_exit_codes"),
            );
        }
        Ok(())
    }
}
