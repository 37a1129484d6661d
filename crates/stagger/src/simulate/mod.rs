//! `stagger simulate`: run a published experiment on the simulator and show
//! what it found.
//!
//! The options become a [`SimulateConfig`] (validated, typed) before anything
//! runs; the scenario turns its results into a
//! [`SimulationReport`](report::SimulationReport), the one shape every
//! exporter reads; pure exporters turn that into text. Only [`execute`]
//! touches the outside world: the progress bar on stderr, and stdout.
//!
//! A new scenario is a variant of [`Scenario`](args::Scenario) and of
//! [`Experiment`], and a module like [`contention`] that configures it from
//! the options and reports it as points.

mod args;
mod config;
mod contention;
mod export;
mod progress;
mod report;

pub use args::SimulateArgs;
use config::{Experiment, SimulateConfig};
use progress::Progress;

use crate::exit::Exit;
use crate::output;

/// Runs `stagger simulate` with `args`.
///
/// # Errors
/// A usage error for bad options, or the failure to write standard output.
pub fn execute(args: &SimulateArgs) -> anyhow::Result<Exit> {
    let config = SimulateConfig::from_args(args)?;
    let progress = Progress::on_stderr();
    let update = |done, total| progress.update(done, total);
    let report = match &config.experiment {
        Experiment::Contention(contention) => contention::simulate(contention, &update),
    };
    progress.finish();
    output::print(&export::render(&report, config.format)?)?;
    Ok(Exit::Success)
}
