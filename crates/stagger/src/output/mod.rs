//! What every command shares to show its results: the output formats, one
//! [`Exporter`] per format over the common report shape
//! ([`staggered_sim::view::Report`]), the chart, and writing.
//!
//! As in hyperfine's exporters, the text table and Markdown are one
//! [`markup`] layout with two syntaxes, CSV writes the records and JSON the
//! report's document; every exporter is a pure function of the report,
//! unit-tested beside its code. Only [`print()`] and [`write_atomically`]
//! touch the outside world.

mod axis;
mod band;
mod csv;
mod legend;
mod markup;
mod svg;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use staggered_sim::view::Report;

pub use svg::render as chart;

/// The output formats of `--format`.
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

/// Turns a report into the text of one format.
pub trait Exporter {
    /// The report in this format.
    ///
    /// # Errors
    /// Only if serialization fails, which the report's plain values rule out.
    fn export(&self, report: &Report) -> anyhow::Result<String>;
}

/// JSON: the report's document, pretty-printed, ending in a newline.
struct Json;

impl Exporter for Json {
    fn export(&self, report: &Report) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(&report.json())? + "\n")
    }
}

impl Format {
    /// The exporter of this format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Table => &markup::Text,
            Format::Csv => &csv::Csv,
            Format::Json => &Json,
            Format::Markdown => &markup::Markdown,
        }
    }

    /// `report` in this format.
    ///
    /// # Errors
    /// Only if serialization fails.
    pub fn render(self, report: &Report) -> anyhow::Result<String> {
        self.exporter().export(report)
    }
}

/// Writes `text` to standard output.
///
/// A standard output closed before `stagger` started (`stagger schedule
/// >&-`) cannot be detected here: Rust's runtime reopens a closed standard
/// descriptor on `/dev/null` before `main` (rust-lang/rust#75295), after
/// which it is indistinguishable from a `/dev/null` a parent gave us, such
/// as Python's `subprocess.DEVNULL`; the writes succeed, as they would there.
///
/// # Errors
/// When standard output cannot be written (a full disk: `> /dev/full`). A
/// closed pipe is an [`io::ErrorKind::BrokenPipe`] in the chain, which
/// [`Exit::of_error`](crate::exit::Exit::of_error) treats as success.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write to standard output")
}

/// Writes `bytes` to `FILE.tmp` beside `path`, then renames it to `path`:
/// a reader never sees half a file, and a failure leaves the old one (and
/// no `.tmp`) behind.
///
/// # Errors
/// When the file cannot be written or renamed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temporary = temporary_for(path);
    let result = std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// A `--plot` path: the chart is SVG only, and its directory must exist;
/// better to say so before the work than after it.
///
/// # Errors
/// Naming the path and what is wrong with it.
pub fn check_plot_path(path: &Path) -> anyhow::Result<()> {
    let is_svg = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("svg"));
    if !is_svg {
        return Err(anyhow!("{} does not end in .svg: the chart is written as SVG", path.display()));
    }
    if path.is_dir() {
        return Err(anyhow!("{} is a directory: name the chart's file", path.display()));
    }
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.exists() && !dir.is_dir() {
        return Err(anyhow!("{} is not a directory", dir.display()));
    }
    if !dir.is_dir() {
        return Err(anyhow!("the directory {} does not exist", dir.display()));
    }
    probe_writable(path).with_context(|| format!("cannot write {}", path.display()))
}

/// Whether [`write_atomically`] could write `path`: its `FILE.tmp` is
/// created and removed, or, if it exists, opened for writing untouched.
/// Permission bits alone would not tell (root, read-only mounts).
fn probe_writable(path: &Path) -> io::Result<()> {
    let temporary = temporary_for(path);
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary) {
        Ok(_) => std::fs::remove_file(&temporary),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            std::fs::OpenOptions::new().append(true).open(&temporary).map(drop)
        }
        Err(err) => Err(err),
    }
}

/// The file [`write_atomically`] writes before renaming it to `path`:
/// `FILE.tmp` beside it.
fn temporary_for(path: &Path) -> PathBuf {
    let mut temporary = OsString::from(path.as_os_str());
    temporary.push(".tmp");
    PathBuf::from(temporary)
}

/// A small report in every part, for the exporters' tests.
#[cfg(test)]
pub mod fixtures {
    use staggered_sim::view::{Report, Table, Value};

    /// Two parameters, a titled table, a record table and a note.
    pub fn report() -> Report {
        let mut grid =
            Table::new(Some("Mean calls per run over 2 runs".to_owned()), ["clients", "none", "full"]);
        grid.push([Value::from(10_u32), "25".into(), "16".into()]);
        grid.push([Value::from(20_u32), "90".into(), "41".into()]);
        let mut records = Table::new(None, ["clients", "strategy", "mean_calls", "note"]);
        records.push([Value::from(10_u32), "none".into(), Value::from(25.0), Value::Null]);
        records.push([Value::from(20_u32), "full".into(), Value::from(40.75), "a, \"b\"".into()]);
        Report {
            parameters: vec![("scenario".into(), "test".into()), ("runs".into(), "2 per point".into())],
            tables: vec![grid],
            notes: vec!["full did the least work.".to_owned()],
            records,
            document: None,
            chart: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_paths_are_svg_in_an_existing_directory() {
        assert!(check_plot_path(Path::new("chart.SVG")).is_ok());
        assert!(check_plot_path(&std::env::temp_dir().join("chart.svg")).is_ok());
        assert!(check_plot_path(Path::new("chart.png")).unwrap_err().to_string().contains(".svg"));
        let missing = check_plot_path(Path::new("no/such/dir/chart.svg")).unwrap_err();
        assert!(missing.to_string().contains("does not exist"), "{missing}");
        let dir = tempfile::Builder::new().suffix(".svg").tempdir().unwrap();
        let directory = check_plot_path(dir.path()).unwrap_err();
        assert!(directory.to_string().ends_with(".svg is a directory: name the chart's file"), "{directory}");
    }

    #[test]
    fn a_plot_path_that_cannot_be_written_is_refused_before_the_work() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let under_a_file = check_plot_path(&file.path().join("chart.svg")).unwrap_err();
        assert_eq!(under_a_file.to_string(), format!("{} is not a directory", file.path().display()));
        // Read-only even for root, where permission bits would not stop a write.
        #[cfg(target_os = "linux")]
        {
            let read_only = check_plot_path(Path::new("/proc/chart.svg")).unwrap_err();
            assert!(format!("{read_only:#}").starts_with("cannot write /proc/chart.svg: "), "{read_only:#}");
            assert!(!Path::new("/proc/chart.svg.tmp").exists());
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chart.svg");
        std::fs::write(dir.path().join("chart.svg.tmp"), "theirs").unwrap();
        check_plot_path(&path).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("chart.svg.tmp")).unwrap(), "theirs");
        assert!(!path.exists());
        check_plot_path(&dir.path().join("other.svg")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the probe is removed");
    }

    #[test]
    fn json_is_the_records_as_objects_unless_there_is_a_document() {
        let mut report = fixtures::report();
        let text = Format::Json.render(&report).unwrap();
        assert!(text.starts_with(
            "[\n  {\n    \"clients\": 10,\n    \"strategy\": \"none\",\n    \"mean_calls\": 25.0,"
        ));
        assert!(text.ends_with("]\n"), "{text}");
        report.document = Some(staggered_sim::view::Value::Int(3));
        assert_eq!(Format::Json.render(&report).unwrap(), "3\n");
    }
}
