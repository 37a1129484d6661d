//! The exporters of a [`ScheduleReport`]: pure functions from the report to
//! the text of one [`Format`], each unit-tested beside its code.

mod csv;
mod json;
mod layout;
mod markdown;
mod table;

use crate::output::Format;
use crate::schedule::report::ScheduleReport;

/// The report in `format`.
///
/// # Errors
/// Only if JSON serialization fails, which the report's plain types rule out.
pub fn render(report: &ScheduleReport, format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => table::render(report),
        Format::Csv => csv::render(report),
        Format::Json => json::render(report)?,
        Format::Markdown => markdown::render(report),
    })
}

/// Reports shared by the exporters' tests.
#[cfg(test)]
mod fixtures {
    use std::time::Duration;

    use staggered::{Backoff, Preset, Strategy};

    use crate::output::Format;
    use crate::schedule::config::{SamplingPlan, ScheduleConfig};
    use crate::schedule::report::ScheduleReport;

    /// The report of `backoff` showing `shown` retries, sampling
    /// `sequences` with seed 1 if any.
    pub fn report(
        preset: Option<Preset>,
        backoff: Backoff,
        shown: u32,
        sequences: Option<u32>,
    ) -> ScheduleReport {
        let config = ScheduleConfig {
            preset,
            backoff,
            shown_retries: shown,
            sampling: sequences.map(|sequences| SamplingPlan { sequences, seed: Some(1) }),
            format: Format::Table,
            warnings: Vec::new(),
        };
        ScheduleReport::build(&config, 0)
    }

    /// The `google` preset's first 10 retries (seed 002).
    pub fn google() -> ScheduleReport {
        report(Some(Preset::Google), Preset::Google.backoff(), 10, None)
    }

    /// `aws` (full jitter, 1s, 2 retries) with 3 sampled sequences.
    pub fn aws_sampled() -> ScheduleReport {
        report(Some(Preset::Aws), Preset::Aws.backoff(), 2, Some(3))
    }

    /// `decorrelated`, whose medians are estimated.
    pub fn decorrelated() -> ScheduleReport {
        let backoff = Backoff::builder(Strategy::Decorrelated)
            .with_base(Duration::from_millis(100))
            .with_max_attempts(3)
            .build()
            .expect("valid");
        report(None, backoff, 2, None)
    }
}
