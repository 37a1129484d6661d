//! What the table and Markdown exporters both show: the summary of the
//! schedule, the grid of retries and the notes under it, as text cells.

use staggered::CapMode;

use crate::duration::{self, format_significant};
use crate::output::Grid;
use crate::schedule::config::{MAX_SHOWN_RETRIES, UNLIMITED_SHOWN_RETRIES};
use crate::schedule::report::{uses_multiplier, Median, ScheduleReport};
use crate::schedule::sampling::ESTIMATE_SEQUENCES;

/// Significant digits of the durations in the grid: enough for seed 002's
/// `19.2105s`, few enough to read.
const DIGITS: u32 = 6;

/// The marker of an estimated median.
pub const ESTIMATE_MARK: &str = "≈";

/// The schedule's parameters as (name, value) lines.
pub fn summary(report: &ScheduleReport) -> Vec<(&'static str, String)> {
    let b = &report.backoff;
    let strategy = b.strategy();
    let mut lines = Vec::new();
    let preset = report.preset.map(|p| format!(" (preset {p})")).unwrap_or_default();
    lines.push(("strategy", format!("{strategy}{preset}")));
    lines.push(("base", duration::format(b.base())));
    let unused = if uses_multiplier(strategy) { String::new() } else { format!(" (unused by {strategy})") };
    lines.push(("multiplier", format!("{}{unused}", b.multiplier())));
    let ceiling = b.delay_ceiling();
    let reach = if ceiling > b.max_delay() {
        format!(" (caps the interval: a delay can reach {})", duration::format(ceiling))
    } else {
        String::new()
    };
    lines.push(("max_delay", format!("{}{reach}", duration::format(b.max_delay()))));
    if strategy.uses_factor() {
        lines.push(("factor", b.factor().to_string()));
    }
    let mode = match b.cap_mode() {
        CapMode::Interval => "the cap applies to the interval, before randomizing",
        _ => "no delay exceeds max_delay",
    };
    lines.push(("cap mode", format!("{} ({mode})", b.cap_mode())));
    if let Some(step) = b.granularity() {
        lines.push(("granularity", format!("intervals truncated to whole {}", duration::format(step))));
    }
    let attempts = match b.max_attempts() {
        Some(n) => format!("{n} ({} retries)", n - 1),
        None => format!(
            "no limit (showing the first {UNLIMITED_SHOWN_RETRIES} retries; --attempts N sets a limit)"
        ),
    };
    lines.push(("max_attempts", attempts));
    lines.push(("deadline", b.deadline().map_or_else(|| "none".to_owned(), duration::format)));
    if let Some(samples) = &report.samples {
        let origin = if samples.seed_given {
            String::new()
        } else {
            format!(" (from OS entropy; --seed {} repeats it)", samples.seed)
        };
        lines.push(("samples", format!("{} sequences, seed {}{origin}", samples.count(), samples.seed)));
    }
    lines
}

/// One row per retry: interval, min, median, max, and the sampled statistics
/// when there are samples.
pub fn grid(report: &ScheduleReport) -> Grid {
    let mut columns = vec!["retry", "interval", "min", "median", "max"];
    if report.samples.is_some() {
        columns.extend(["p50", "p90", "p99", "mean"]);
    }
    let mut grid = Grid::new(columns);
    let show = |d| format_significant(d, DIGITS);
    for row in &report.rows {
        let median = match row.median {
            Median::Exact(d) => show(d),
            Median::Estimated(d) => format!("{ESTIMATE_MARK}{}", show(d)),
            Median::Unknown => "?".to_owned(),
        };
        let mut cells = vec![row.retry.to_string(), show(row.interval), show(row.min), median, show(row.max)];
        if let Some(stats) = row.sampled {
            cells.extend([stats.p50, stats.p90, stats.p99, stats.mean].map(show));
        }
        grid.push(cells);
    }
    grid
}

/// The lines under the grid: the worst-case total, then what the marks and
/// columns mean.
pub fn notes(report: &ScheduleReport) -> Vec<String> {
    let b = &report.backoff;
    let mut notes = Vec::new();
    if report.rows.is_empty() {
        notes.push("max_attempts 1: a single call, no retry.".to_owned());
    }
    if report.is_truncated() {
        let total = report.total_retries.unwrap_or_default();
        notes.push(format!(
            "Showing the first {} of {total} retries (at most {MAX_SHOWN_RETRIES} are shown).",
            report.rows.len()
        ));
    }
    let worst = report.worst_case;
    let total = format_significant(worst.total, DIGITS);
    if worst.retries == 0 {
        return notes;
    }
    notes.push(match (report.total_retries, worst.exact) {
        (None, _) => {
            let end = match b.deadline() {
                Some(deadline) => format!("the deadline ({}) ends it", duration::format(deadline)),
                None => "with no deadline either, it retries forever".to_owned(),
            };
            format!(
                "Worst-case total wait over the {} retries shown: {total}. The schedule has no attempt limit: {end}.",
                worst.retries
            )
        }
        (Some(_), exact) => {
            let sum = if exact {
                format!("{total} (the largest delay of each of the {} retries)", worst.retries)
            } else {
                format!(
                    "at most {total} over all {} retries (the largest possible delay for each retry past the first million)",
                    worst.retries
                )
            };
            let deadline = match b.deadline() {
                Some(deadline) if worst.total > deadline => {
                    format!("; the deadline ({}) stops retrying before that", duration::format(deadline))
                }
                _ => String::new(),
            };
            format!("Worst-case total wait: {sum}{deadline}.")
        }
    });
    if report.has_estimates() {
        let which = if b.strategy() == staggered::Strategy::Smooth { " after retry 1" } else { "" };
        notes.push(format!(
            "{ESTIMATE_MARK} median estimated from {ESTIMATE_SEQUENCES} sequences drawn with a fixed seed: \
             {} has no closed-form median{which}.",
            b.strategy()
        ));
    }
    if let Some(samples) = &report.samples {
        notes.push(format!(
            "p50, p90, p99 (nearest rank) and mean: over {} sampled sequences, seed {}.",
            samples.count(),
            samples.seed
        ));
    }
    notes.push(
        "Retry r is the wait after attempt r fails, before attempt r+1; interval is x(r), and min, median \
         and max give the range of the delay."
            .to_owned(),
    );
    notes
}
