//! `stagger schedule`: show what a schedule does, retry by retry.
//!
//! The options become a [`ScheduleConfig`] (validated, typed) before anything
//! is computed: the simulator's [`ScheduleQuery`](staggered_sim::ScheduleQuery),
//! which becomes a report (pure, given a seed) presented in the common
//! report shape that every command's exporters turn into text. Only
//! [`execute`] touches the outside world: OS entropy for an unseeded sample,
//! stderr for warnings, stdout for the result.

mod args;
mod config;

use staggered::{FastRng, Rng};
use staggered_sim::Present;

pub use args::ScheduleArgs;
use config::ScheduleConfig;

use crate::exit::Exit;
use crate::output::{self, Format};

/// Runs `stagger schedule` with `args`.
///
/// # Errors
/// A usage error for bad options, or the failure to write standard output.
pub fn execute(args: &ScheduleArgs) -> anyhow::Result<Exit> {
    let config = ScheduleConfig::from_args(args)?;
    for warning in &config.warnings {
        eprintln!("warning: {warning}");
    }
    let report = config.query.report(FastRng::from_entropy().next_u64());
    if config.format == Format::Csv {
        // CSV has no room for notes; the table's notes go to stderr instead.
        match report.total_retries {
            None => eprintln!(
                "note: the schedule has no attempt limit; sampled its first {} retries (--attempts N sets a limit)",
                report.rows.len()
            ),
            Some(total) if report.is_truncated() => {
                eprintln!("note: sampled the first {} of {total} retries", report.rows.len())
            }
            Some(_) => {}
        }
    }
    output::print(&config.format.render(&report.present())?)?;
    Ok(Exit::Success)
}
