//! The wait between two attempts: the retry loop's sleeper. A cancelling
//! signal ends it at once; on a terminal a [`Countdown`] shows it; and it
//! counts the time actually waited, for the summary.

use std::cell::Cell;
use std::time::{Duration, Instant};

use staggered::sleep::BlockingSleeper;
use staggered::CancelFlag;

use super::countdown::Countdown;

/// The sleeper of `stagger run`.
#[derive(Debug, Default)]
pub struct Pause {
    /// Whether waits get a countdown ([`countdown::shown`](super::countdown::shown)).
    countdown: bool,
    /// The attempt the next wait leads to, and max_attempts: the countdown's label.
    next: Cell<Option<(u32, Option<u32>)>>,
    /// The time waited so far.
    waited: Cell<Duration>,
}

impl Pause {
    /// A sleeper that shows a countdown during each wait if `countdown`.
    pub fn new(countdown: bool) -> Self {
        Pause { countdown, ..Pause::default() }
    }

    /// Says which attempt the next wait leads to, for its countdown.
    pub fn leads_to(&self, attempt: u32, max_attempts: Option<u32>) {
        self.next.set(Some((attempt, max_attempts)));
    }

    /// The time waited between attempts: each wait in full, but only the
    /// part waited of one that a signal ended.
    pub fn waited(&self) -> Duration {
        self.waited.get()
    }
}

impl BlockingSleeper for Pause {
    fn sleep(&self, delay: Duration) {
        self.sleep_unless(delay, &CancelFlag::new());
    }

    fn sleep_unless(&self, delay: Duration, flag: &CancelFlag) -> bool {
        let countdown =
            self.next.take().map(|(attempt, max)| Countdown::start(self.countdown, attempt, max, delay));
        let from = Instant::now();
        let cancelled = flag.wait_timeout(delay);
        drop(countdown);
        let waited = if cancelled { from.elapsed().min(delay) } else { delay };
        self.waited.set(self.waited.get().saturating_add(waited));
        cancelled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_wait_ends_at_once_and_counts_what_was_waited() {
        let pause = Pause::new(false);
        let flag = CancelFlag::new();
        assert!(!pause.sleep_unless(Duration::from_micros(1), &flag));
        assert_eq!(pause.waited(), Duration::from_micros(1), "a wait in full counts in full");
        flag.cancel();
        let started = Instant::now();
        assert!(pause.sleep_unless(Duration::from_secs(3600), &flag));
        assert!(started.elapsed() < Duration::from_secs(60));
        assert!(pause.waited() < Duration::from_secs(60), "{:?}", pause.waited());
    }
}
