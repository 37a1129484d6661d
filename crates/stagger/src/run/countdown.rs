//! The live countdown to the next attempt, on a terminal.
//!
//! The retry line says how long the wait is; for a wait of a second or more
//! ([`SHOW_FROM`]) a line below it counts down to the next attempt
//! (`stagger: attempt 3/5 in 42s`), redrawn every [`TICK`] and cleared when
//! the wait ends, so that a run that sleeps for minutes does not look hung.
//! It is drawn only when standard error is a terminal, with the human log
//! format and without `--quiet` ([`shown`]): never into a pipe, a file or a
//! log reader's JSON.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use super::log::LogFormat;
use crate::duration;

/// The shortest wait that gets a countdown: a shorter one would only flicker.
pub const SHOW_FROM: Duration = Duration::from_secs(1);

/// How often the countdown is redrawn.
pub const TICK: Duration = Duration::from_millis(100);

/// Whether waits get a countdown: the human log format, not `--quiet`, and
/// standard error a terminal.
pub fn shown(format: LogFormat, quiet: bool) -> bool {
    shown_on(format, quiet, std::io::stderr().is_terminal())
}

fn shown_on(format: LogFormat, quiet: bool, terminal: bool) -> bool {
    format == LogFormat::Human && !quiet && terminal
}

/// The countdown line: `stagger: attempt 3/5 in 42s`, the time left rounded
/// up to whole seconds (a countdown shows `1s` until the attempt starts).
pub fn text(attempt: u32, max_attempts: Option<u32>, left: Duration) -> String {
    let whole = Duration::from_secs(left.as_secs().saturating_add(u64::from(left.subsec_nanos() > 0)));
    let mut line = format!("stagger: attempt {attempt}");
    if let Some(max) = max_attempts {
        let _ = write!(line, "/{max}");
    }
    let _ = write!(line, " in {}", duration::format(whole));
    line
}

/// A countdown on standard error, cleared when dropped.
#[derive(Debug)]
pub struct Countdown(Option<ProgressBar>);

impl Countdown {
    /// Starts counting down `delay` to `attempt` if `shown` and the delay
    /// is at least [`SHOW_FROM`]; otherwise draws nothing.
    pub fn start(shown: bool, attempt: u32, max_attempts: Option<u32>, delay: Duration) -> Countdown {
        if !shown || delay < SHOW_FROM {
            return Countdown(None);
        }
        let left = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let _ = out.write_str(&text(attempt, max_attempts, delay.saturating_sub(state.elapsed())));
        };
        let style = ProgressStyle::with_template("{countdown}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .with_key("countdown", left);
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
        bar.enable_steady_tick(TICK);
        Countdown(Some(bar))
    }
}

impl Drop for Countdown {
    fn drop(&mut self) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_whole_seconds_up() {
        let ms = Duration::from_millis;
        assert_eq!(text(3, Some(5), ms(41_200)), "stagger: attempt 3/5 in 42s");
        assert_eq!(text(2, None, ms(90_000)), "stagger: attempt 2 in 1m30s");
        assert_eq!(text(2, Some(2), ms(1)), "stagger: attempt 2/2 in 1s");
        assert_eq!(text(2, Some(2), Duration::ZERO), "stagger: attempt 2/2 in 0s");
        assert_eq!(
            text(u32::MAX, Some(u32::MAX), Duration::MAX),
            format!(
                "stagger: attempt 4294967295/4294967295 in {}",
                duration::format(Duration::from_secs(u64::MAX))
            )
        );
    }

    #[test]
    fn only_a_person_at_a_terminal_sees_it() {
        assert!(shown_on(LogFormat::Human, false, true));
        assert!(!shown_on(LogFormat::Human, false, false), "not a terminal");
        assert!(!shown_on(LogFormat::Human, true, true), "--quiet");
        assert!(!shown_on(LogFormat::Json, false, true), "JSON is for programs");
        // Not shown: no bar, whatever the delay.
        assert!(Countdown::start(false, 2, Some(5), Duration::from_secs(60)).0.is_none());
        assert!(Countdown::start(true, 2, Some(5), Duration::from_millis(999)).0.is_none(), "too short");
    }
}
