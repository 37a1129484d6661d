//! The command line: the top-level [`Cli`] and one [`Command`] variant per
//! subcommand. A new subcommand is one variant here, one arm in
//! [`Command::execute`], and one module beside `schedule`.

use clap::{Parser, Subcommand};

use crate::exit::Exit;
use crate::schedule::{self, ScheduleArgs};
use crate::simulate::{self, SimulateArgs};

/// Retry with exponential backoff and jitter: show schedules, run commands,
/// simulate fleets.
#[derive(Debug, Parser)]
#[command(
    name = "stagger",
    version,
    about,
    propagate_version = true,
    after_help = "Exit codes: 0 success, 1 failure (such as an unwritable output), 2 bad options."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show a schedule: each retry's interval and the range of its delay.
    ///
    /// One row per retry (retry r is the wait before attempt r+1): the interval
    /// x(r) and the min, median and max of the delay; `--samples K` adds
    /// sampled percentiles. Durations are written like `250ms`, `1.5s`, `2m`,
    /// `1m30s`, `10us` or `0`. A schedule with no attempt limit (the `google`
    /// preset) shows its first 10 retries, and at most 1000 retries are shown;
    /// `--attempts N` sets the limit.
    Schedule(ScheduleArgs),

    /// Run a published experiment on the simulator: a table, a reading, a chart.
    ///
    /// With no options, SPEC section 8's contention experiment as published
    /// in 2015: N = 10, 20, ..., 190 clients race to update one row, with the
    /// strategies none, exponential, equal, full and decorrelated, 100 runs
    /// per point. It prints the mean calls per run and completion time of
    /// every point, then which strategy did the least work and which
    /// finished first. Times are in the model's abstract time units (a
    /// message hop takes about 10), not milliseconds. The same seed gives the
    /// same output on every machine, whatever its number of cores.
    #[command(after_help = "Example: stagger simulate --clients 10..100/10 --runs 20 --plot contention.svg")]
    Simulate(SimulateArgs),
}

impl Command {
    /// Runs the subcommand.
    ///
    /// # Errors
    /// Whatever the subcommand reports; [`Exit::of_error`] picks the exit code.
    pub fn execute(&self) -> anyhow::Result<Exit> {
        match self {
            Command::Schedule(args) => schedule::execute(args),
            Command::Simulate(args) => simulate::execute(args),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
