//! The common shape of a report as people and programs read it: the
//! parameters, tables with titled columns, notes, records for CSV and JSON,
//! and a [`Chart`]. Every scenario presents its report in this shape
//! ([`Present`](crate::Present)), and so does `stagger schedule`; one family
//! of exporters (the `stagger` CLI's) turns it into a text table, Markdown,
//! CSV, JSON or SVG, so a new scenario needs no exporter of its own.
//!
//! ```
//! use staggered_sim::view::{Report, Table, Value};
//!
//! let mut records = Table::new(None, ["clients", "mean_calls"]);
//! records.push([Value::from(10_u32), Value::from(51.17)]);
//! let report = Report { records, ..Report::default() };
//! assert_eq!(report.json(), Value::List(vec![Value::Map(vec![
//!     ("clients".into(), Value::Int(10)),
//!     ("mean_calls".into(), Value::Float(51.17)),
//! ])]));
//! ```

mod chart;
mod palette;
pub(crate) mod text;
mod value;

pub use chart::{
    Axis, Band, BandBox, Chart, Color, Dash, Layout, Line, Marker, Panel, Point, Scatter, Shade,
};
pub use palette::{palette_color, PALETTE_LEN};
pub use text::{
    format_duration, format_rounded, format_significant, list, millis, number, percent, DURATION_DIGITS,
};
pub use value::Value;

/// A report in the common shape.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// What produced it, as `(name, value)` lines above the tables, such as
    /// `("runs", "100 per point, seed 2015")`.
    pub parameters: Vec<(String, String)>,
    /// The tables for people (text and Markdown), in order. Their cells are
    /// mostly text, rounded and with units, to read rather than to parse.
    pub tables: Vec<Table>,
    /// Paragraphs under the tables: what the figures say, what marks mean.
    pub notes: Vec<String>,
    /// The records for programs, every digit kept: CSV's rows, and JSON's
    /// array of objects unless [`document`](Self::document) is set.
    pub records: Table,
    /// The JSON document, for a report that is more than its records.
    pub document: Option<Value>,
    /// The chart, if the report has one.
    pub chart: Option<Chart>,
}

impl Report {
    /// What JSON writes: the [`document`](Self::document), or else one
    /// object per record, keyed by the columns, in column order.
    pub fn json(&self) -> Value {
        self.document.clone().unwrap_or_else(|| self.records.to_objects())
    }
}

/// A table: a title, named columns and rows of values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// What the table shows, with its units, written above it for people;
    /// `None` when the parameters say it all.
    pub title: Option<String>,
    /// The column names: for records, the CSV header and the JSON keys
    /// (with their units, as `delay_ms`).
    pub columns: Vec<String>,
    /// The rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
}

/// A column of a table of records: its key, and its value in a row `R`.
pub(crate) type Field<R> = (&'static str, fn(&R) -> Value);

impl Table {
    /// A table with this title and these columns, and no rows.
    pub fn new<S: Into<String>>(title: Option<String>, columns: impl IntoIterator<Item = S>) -> Self {
        Table { title, columns: columns.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// The records of `rows`: a column per field (its key), a row per item
    /// (each field's value in it).
    pub(crate) fn records<'a, R: 'a, const N: usize>(
        fields: &[Field<R>; N],
        rows: impl IntoIterator<Item = &'a R>,
    ) -> Self {
        let mut records = Table::new(None, fields.map(|(key, _)| key));
        for row in rows {
            records.push(fields.map(|(_, value)| value(row)));
        }
        records
    }

    /// Adds a row; missing cells are [`Value::Null`] and extra ones dropped.
    pub fn push(&mut self, row: impl IntoIterator<Item = Value>) {
        let mut row: Vec<Value> = row.into_iter().collect();
        row.resize(self.columns.len(), Value::Null);
        self.rows.push(row);
    }

    /// The rows as a list of objects keyed by the columns.
    pub fn to_objects(&self) -> Value {
        let object =
            |row: &Vec<Value>| Value::Map(self.columns.iter().cloned().zip(row.iter().cloned()).collect());
        Value::List(self.rows.iter().map(object).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_objects_and_short_rows_are_padded() {
        let mut table = Table::new(None, ["a", "b"]);
        table.push([Value::from("x")]);
        assert_eq!(table.rows[0], [Value::Text("x".into()), Value::Null]);
        let report = Report { records: table, ..Report::default() };
        let objects = Value::List(vec![Value::Map(vec![
            ("a".into(), Value::Text("x".into())),
            ("b".into(), Value::Null),
        ])]);
        assert_eq!(report.json(), objects);
        let document = Report { document: Some(Value::Int(1)), ..report };
        assert_eq!(document.json(), Value::Int(1));
    }
}
