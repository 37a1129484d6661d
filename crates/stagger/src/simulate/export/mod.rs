//! The exporters of a [`SimulationReport`]: pure functions from the report to
//! the text of one [`Format`], each unit-tested beside its code.

mod csv;
mod json;
mod layout;
mod markdown;
mod table;

pub use table::{wrap, WIDTH};

use crate::output::Format;
use crate::simulate::report::SimulationReport;

/// The report in `format`.
///
/// # Errors
/// Only if JSON serialization fails, which the report's plain types rule out.
pub fn render(report: &SimulationReport, format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => table::render(report),
        Format::Csv => csv::render(report),
        Format::Json => json::render(report)?,
        Format::Markdown => markdown::render(report),
    })
}
