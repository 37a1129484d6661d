//! A throttling report in the common shape.

use super::{ThrottlingReport, ThrottlingRow};
use crate::view::{self, Table, Value};
use crate::Present;

/// A column of the records: its key and its value in a row.
type Field = (&'static str, fn(&ThrottlingRow) -> Value);

/// Every record's field, in column order.
const FIELDS: [Field; 13] = [
    ("policy", |r| r.policy.name().into()),
    ("throttled_fraction", |r| r.throttled_fraction.into()),
    ("goodput", |r| r.goodput.into()),
    ("attempts_per_operation", |r| r.attempts_per_operation.into()),
    ("wait_p50", |r| r.wait_p50.into()),
    ("wait_p99", |r| r.wait_p99.into()),
    ("send_rate", |r| r.send_rate.into()),
    ("operations", |r| r.operations.into()),
    ("attempts", |r| r.attempts.into()),
    ("throttled", |r| r.throttled.into()),
    ("succeeded", |r| r.succeeded.into()),
    ("refused", |r| r.refused.into()),
    ("unfinished", |r| r.unfinished.into()),
];

impl Present for ThrottlingReport {
    fn present(&self) -> view::Report {
        let mut records = Table::new(None, FIELDS.map(|(key, _)| key));
        for row in self.rows() {
            records.push(FIELDS.map(|(_, value)| value(row)));
        }
        view::Report { records, notes: self.paragraphs(), ..view::Report::default() }
    }
}
