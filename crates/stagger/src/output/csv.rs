//! CSV: the report's records under a header row.

use std::fmt::Write;

use staggered_sim::view::Report;

use super::Exporter;

/// Comma-separated values, RFC 4180.
pub struct Csv;

impl Exporter for Csv {
    /// The column names, then a line per record. Numbers are written in
    /// full, as the shortest decimal that reads back as the same `f64`;
    /// `null` is an empty cell; a cell with a comma, a quote or a line break
    /// is quoted.
    fn export(&self, report: &Report) -> anyhow::Result<String> {
        let records = &report.records;
        let mut text = String::new();
        let rows = std::iter::once(records.columns.clone())
            .chain(records.rows.iter().map(|row| row.iter().map(ToString::to_string).collect()));
        for row in rows {
            let cells: Vec<String> = row.into_iter().map(quote).collect();
            // Writing to a String cannot fail.
            let _ = writeln!(text, "{}", cells.join(","));
        }
        Ok(text)
    }
}

/// `cell`, quoted if it must be.
fn quote(cell: String) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    #[test]
    fn a_header_then_a_line_per_record() {
        let expected = "clients,strategy,mean_calls,note\n10,none,25,\n20,full,40.75,\"a, \"\"b\"\"\"\n";
        assert_eq!(Csv.export(&fixtures::report()).unwrap(), expected);
    }
}
