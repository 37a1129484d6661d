//! What every command shares to show its results: the output formats, plain
//! text and Markdown tables, and writing to standard output.

mod grid;

use std::io::{self, Write};

use anyhow::Context;

pub use grid::Grid;

/// The output formats of `--format`. A command turns its report into one of
/// them with pure functions, which are unit-tested; only [`print()`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned text table, for a person.
    Table,
    /// Comma-separated values under a header row, for a spreadsheet.
    Csv,
    /// JSON, for programs.
    Json,
    /// GitHub Markdown, with its tables.
    Markdown,
}

/// Writes `text` to standard output.
///
/// # Errors
/// When standard output cannot be written; a closed pipe is an
/// [`io::ErrorKind::BrokenPipe`] in the chain, which
/// [`Exit::of_error`](crate::exit::Exit::of_error) treats as success.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write to standard output")
}
