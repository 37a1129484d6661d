//! `stagger schedule`: show what a schedule does, retry by retry.
//!
//! The options become a [`ScheduleConfig`] (validated, typed) before anything
//! is computed: one simulator [`ScheduleQuery`](staggered_sim::ScheduleQuery)
//! per strategy, each of which becomes a report (pure, given a seed); the
//! reports are presented together ([`ScheduleComparison`]) in the common
//! report shape that every command's exporters turn into text, and its
//! chart into SVG. Only [`execute`] touches the outside world: OS entropy
//! for an unseeded sample, stderr for warnings, the chart's file, stdout for
//! the result.

mod args;
mod config;

use anyhow::{anyhow, Context};
use staggered::{FastRng, Rng};
use staggered_sim::{Present, ScheduleComparison, ScheduleReport};

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
    // One entropy seed for every strategy: their samples share a seed, as
    // their other parameters.
    let entropy = FastRng::from_entropy().next_u64();
    let reports: Vec<ScheduleReport> = config.queries.iter().map(|query| query.report(entropy)).collect();
    if config.format == Format::Csv {
        // CSV has no room for notes; the table's notes go to stderr instead.
        // The strategies share max_attempts, so the first one speaks for all.
        let report = &reports[0];
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
    let view = ScheduleComparison::new(reports).present();
    if let Some(path) = &config.plot {
        // Before stdout, so a reader that stops early (`| head`) still gets it.
        let chart = view.chart.as_ref().ok_or_else(|| anyhow!("there is no retry to plot"))?;
        output::write_atomically(path, output::chart(chart)?.as_bytes())
            .with_context(|| format!("cannot write the chart to {}", path.display()))?;
    }
    output::print(&config.format.render(&view)?)?;
    Ok(Exit::Success)
}
