//! The reading under the throttling table.

use super::ThrottlingReport;

impl ThrottlingReport {
    /// The paragraphs under the table.
    pub fn paragraphs(&self) -> Vec<String> {
        Vec::new()
    }
}
