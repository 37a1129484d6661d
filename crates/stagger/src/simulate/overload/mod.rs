//! The `overload` scenario (SPEC section 7, budgets): a server at 70% load
//! loses half its capacity for 5 s; clients time out and retry, with no
//! budget or under each of the library's budgets. Its options, its run, its
//! results, their reading, exporters and chart.
//!
//! Its results have a shape of their own ([`OverloadResults`]: a row of
//! figures per policy and per-second series), so it has its own exporters
//! and chart, built from the shared pieces: the [`Grid`](crate::output::Grid)
//! of the table and Markdown, the reading's line wrapping, the progress bar,
//! and the contention chart's style.

mod configure;
mod export;
pub mod options;
mod plot;
mod reading;
mod results;

pub use configure::{configure, OverloadSetup};
pub use results::OverloadResults;

use staggered_sim::run_overload_with_progress;

use crate::output::Format;
use crate::simulate::report::Results;

/// Runs every policy, calling `progress(done, total)` as each one
/// completes, and reads the results.
pub fn simulate(setup: &OverloadSetup, progress: &dyn Fn(usize, usize)) -> OverloadResults {
    OverloadResults::of(setup, &run_overload_with_progress(&setup.config, progress))
}

impl Results for OverloadResults {
    fn render(&self, format: Format) -> anyhow::Result<String> {
        export::render(self, format)
    }

    fn chart(&self) -> anyhow::Result<String> {
        plot::render(self)
    }
}
