//! A progress bar on standard error for a simulation that takes a while.
//!
//! The simulator counts its work as it goes ([`Progress`], from any of its
//! threads, within a run too); a thread of ours reads the count every
//! [`TICK`] and draws the bar. It appears only when standard error is a
//! terminal (never in a pipe, a file or a test), and only once the
//! simulation has run for [`SHOW_AFTER`] or is expected to: a quick one
//! prints nothing but its result. It is cleared before the result is
//! printed.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use staggered_sim::{Experiment, Progress, Work};

/// A simulation that has run this long, or is expected to, gets a bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How long to time the work before trusting the estimate of the total.
pub const ESTIMATE_AFTER: Duration = Duration::from_millis(100);

/// How often the bar reads the count.
pub const TICK: Duration = Duration::from_millis(100);

/// The bar's layout; `UNIT` becomes what the simulator counts.
const TEMPLATE: &str =
    "{spinner} simulating [{bar:40}] {pos}/{len} UNIT, {elapsed} elapsed, about {eta} left";

/// Runs `experiment`, with a progress bar on standard error if it is a
/// terminal.
///
/// # Errors
/// What the experiment's validation finds.
pub fn run<E: Experiment>(experiment: &E) -> Result<E::Report, staggered_sim::Invalid> {
    let progress = Progress::default();
    if !std::io::stderr().is_terminal() {
        return experiment.run_with_progress(&progress);
    }
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let progress = &progress;
        let work = experiment.work();
        scope.spawn(move || show(progress, work, &stopped));
        let report = experiment.run_with_progress(progress);
        drop(stop);
        report
    })
}

/// Draws the bar of `progress` towards `work` until `stopped` says the run
/// is over, then clears it.
fn show(progress: &Progress, work: Work, stopped: &mpsc::Receiver<()>) {
    let started = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    while stopped.recv_timeout(TICK) == Err(RecvTimeoutError::Timeout) {
        let done = progress.done();
        match &bar {
            Some(bar) => bar.set_position(done),
            None if worth_showing(started.elapsed(), done, work.total) => {
                let style = ProgressStyle::with_template(&TEMPLATE.replace("UNIT", work.unit))
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
                let shown = ProgressBar::with_draw_target(Some(work.total), ProgressDrawTarget::stderr())
                    .with_style(style)
                    .with_elapsed(started.elapsed())
                    .with_position(done);
                shown.tick();
                bar = Some(shown);
            }
            None => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// Whether a simulation that has done `done` of `total` units of work in
/// `elapsed` deserves a bar: it has run for [`SHOW_AFTER`], or after
/// [`ESTIMATE_AFTER`] its pace says the whole will take that long.
pub fn worth_showing(elapsed: Duration, done: u64, total: u64) -> bool {
    if elapsed >= SHOW_AFTER {
        return true;
    }
    if elapsed < ESTIMATE_AFTER || done == 0 || done >= total {
        return false;
    }
    elapsed.as_secs_f64() * total as f64 / done as f64 >= SHOW_AFTER.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_long_simulations_only() {
        let ms = Duration::from_millis;
        assert!(worth_showing(ms(1000), 9000, 9500), "a second has passed");
        assert!(worth_showing(ms(1000), 0, 9500), "a second has passed, even with nothing done yet");
        assert!(worth_showing(ms(150), 100, 9500), "expected to take 14 s");
        assert!(!worth_showing(ms(150), 9000, 9500), "expected to take 0.16 s");
        assert!(!worth_showing(ms(50), 1, 9500), "too early to estimate");
        assert!(!worth_showing(ms(999), 10, 10), "finished");
    }
}
