//! `stagger simulate`: run a published experiment on the simulator and show
//! what it found.
//!
//! The options become a [`SimulateConfig`] (validated, typed) before anything
//! runs; the scenario turns its results into something that implements
//! [`Results`]: a
//! [`SimulationReport`](report::SimulationReport) of points for
//! [`contention`], which the shared exporters and chart read, or
//! [`OverloadResults`](overload::OverloadResults), a row per policy with
//! per-second series, with exporters and a chart of its own. Pure exporters
//! turn either into text or SVG. Only [`execute`] touches the outside world:
//! warnings and the progress bar on stderr, the chart's file and stdout.
//!
//! A new scenario is a variant of [`Scenario`](args::Scenario) and of
//! [`Experiment`], and a module like [`contention`] that configures it from
//! the options and reports it as points (or as results of its own, like
//! [`overload`]).

mod args;
mod config;
mod contention;
mod export;
mod overload;
mod plot;
mod progress;
mod report;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use args::SimulateArgs;
use config::{Experiment, SimulateConfig};
use progress::Progress;
use report::Results;

use crate::exit::Exit;
use crate::output;

/// Runs `stagger simulate` with `args`.
///
/// # Errors
/// A usage error for bad options, or the failure to write the chart or
/// standard output.
pub fn execute(args: &SimulateArgs) -> anyhow::Result<Exit> {
    let config = SimulateConfig::from_args(args)?;
    for warning in &config.warnings {
        eprintln!("warning: {warning}");
    }
    let progress = Progress::on_stderr(config.experiment.unit());
    let update = |done, total| progress.update(done, total);
    let results: Box<dyn Results> = match &config.experiment {
        Experiment::Contention(contention) => Box::new(contention::simulate(contention, &update)),
        Experiment::Overload(setup) => Box::new(overload::simulate(setup, &update)),
    };
    progress.finish();
    if let Some(path) = &config.plot {
        // Before stdout, so a reader that stops early (`| head`) still gets it.
        write_atomically(path, results.chart()?.as_bytes())
            .with_context(|| format!("cannot write the chart to {}", path.display()))?;
    }
    output::print(&results.render(config.format)?)?;
    Ok(Exit::Success)
}

/// Writes `bytes` to `FILE.tmp` beside `path`, then renames it to `path`:
/// a reader never sees half a chart, and a failure leaves the old one (and
/// no `.tmp`) behind.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temporary = OsString::from(path.as_os_str());
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let result = fs::write(&temporary, bytes).and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}
