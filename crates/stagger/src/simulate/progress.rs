//! A progress bar on standard error for a simulation that takes a while.
//!
//! It appears only when standard error is a terminal (never in a pipe, a
//! file or a test), and only once the simulation has run for
//! [`SHOW_AFTER`] or is expected to: a quick one prints nothing but its
//! result. It is cleared before the result is printed.

use std::cell::OnceCell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A simulation that has run this long, or is expected to, gets a bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How long to time runs before trusting the estimate of the total.
pub const ESTIMATE_AFTER: Duration = Duration::from_millis(100);

/// The bar's layout; `UNIT` becomes what the simulator counts.
const TEMPLATE: &str =
    "{spinner} simulating [{bar:40}] {pos}/{len} UNIT, {elapsed} elapsed, about {eta} left";

/// Drives the bar from the simulator's progress callback.
#[derive(Debug)]
pub struct Progress {
    /// `None` when standard error is not a terminal: then nothing is shown.
    started: Option<Instant>,
    /// What the simulator counts: `runs`, `policies`.
    unit: &'static str,
    bar: OnceCell<ProgressBar>,
}

impl Progress {
    /// A progress bar that shows on standard error if it is a terminal,
    /// counting `unit` (`runs`, `policies`).
    pub fn on_stderr(unit: &'static str) -> Self {
        let started = std::io::stderr().is_terminal().then(Instant::now);
        Progress { started, unit, bar: OnceCell::new() }
    }

    /// Records that `done` of `total` runs are complete. Cheap until the bar
    /// appears: the simulator calls it once per run.
    pub fn update(&self, done: usize, total: usize) {
        let Some(started) = self.started else { return };
        if let Some(bar) = self.bar.get() {
            bar.set_position(done as u64);
        } else if worth_showing(started.elapsed(), done, total) {
            let style = ProgressStyle::with_template(&TEMPLATE.replace("UNIT", self.unit))
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
                .with_style(style)
                .with_elapsed(started.elapsed())
                .with_position(done as u64);
            bar.tick();
            let _ = self.bar.set(bar);
        }
    }

    /// Clears the bar, if it was shown.
    pub fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

/// Whether a simulation that has done `done` of `total` runs in `elapsed`
/// deserves a bar: it has run for [`SHOW_AFTER`], or after
/// [`ESTIMATE_AFTER`] its pace says the whole will take that long. The pace
/// overestimates a little, since the contention simulator runs the largest
/// client counts first.
pub fn worth_showing(elapsed: Duration, done: usize, total: usize) -> bool {
    if elapsed >= SHOW_AFTER {
        return true;
    }
    if elapsed < ESTIMATE_AFTER || done == 0 || done >= total {
        return false;
    }
    let estimate = elapsed.as_secs_f64() * total as f64 / done as f64;
    estimate >= SHOW_AFTER.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_long_simulations_only() {
        let ms = Duration::from_millis;
        assert!(worth_showing(ms(1000), 9000, 9500), "a second has passed");
        assert!(worth_showing(ms(150), 100, 9500), "expected to take 14 s");
        assert!(!worth_showing(ms(150), 9000, 9500), "expected to take 0.16 s");
        assert!(!worth_showing(ms(50), 1, 9500), "too early to estimate");
        assert!(!worth_showing(ms(500), 0, 10), "nothing done yet");
        assert!(!worth_showing(ms(999), 10, 10), "finished");
    }

    #[test]
    fn without_a_terminal_nothing_is_drawn() {
        let progress = Progress { started: None, unit: "runs", bar: OnceCell::new() };
        progress.update(1, 2);
        progress.finish();
        assert!(progress.bar.get().is_none());
    }
}
