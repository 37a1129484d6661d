//! Pacing to an announced [`Quota`]: the requests a server says it will
//! still admit, spread evenly over the time until it restores them, so
//! that a client keeps to the limit before the first throttle rather than
//! learning it from one.
//!
//! # The rule
//! After an attempt sent at `s`, with `remaining` requests left until the
//! reset at `r`, the next attempt may go at `s + (r - s) / (remaining + 1)`:
//! the requests left fall evenly inside the window, the last one a share
//! before its end, and with none left the next attempt waits for the reset.
//! Each attempt sent takes one from `remaining` until the next
//! announcement replaces it.
//!
//! # Values it does not trust
//! - **Stale**: once the reset has passed, the quota says nothing more (the
//!   server has restored it) and attempts go unpaced until the next
//!   announcement. A quota restored at once (a zero reset) is stale when it
//!   comes.
//! - **Conflicting**: the latest announcement replaces the one in force.
//!   One response's fields are reconciled before (the IETF fields before
//!   the `X-RateLimit` ones, the tightest of several policies: see
//!   [`quota`](crate::classify::quota)); between responses the newest is
//!   the server's latest count, give or take the attempts in flight.
//! - **Bad**: a reset more than [`MAX_QUOTA_RESET`] away is no window a
//!   server keeps (a timestamp in milliseconds read as seconds, a garbled
//!   value) and is ignored, leaving the quota in force as it was.
//! - **Absent**: without a live quota the pacer lets every attempt go, and
//!   the limiter adapts to throttles as it always does.
//!
//! A wait is never longer than the time to the reset, nor than the bound
//! the limiter passes in ([`MAX_QUOTA_WAIT`]); an attempt still early then
//! asks again.

use core::time::Duration;

use crate::classify::quota::Quota;

/// The longest one wait for a quota may be: an attempt told to wait asks
/// again after it, so a quota spent for an hour holds it for an hour, in
/// waits of at most this, each one a point where the driver's deadline
/// and cancel signal are checked.
pub const MAX_QUOTA_WAIT: Duration = Duration::from_secs(60);

/// The farthest reset a quota may announce: a day, the longest window
/// public APIs use. A farther one is ignored.
pub const MAX_QUOTA_RESET: Duration = Duration::from_secs(24 * 60 * 60);

/// The announced quota in force and the last attempt it paced, in seconds
/// on the limiter's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct QuotaPacer {
    /// Requests left, and when the quota is restored.
    quota: Option<(u64, f64)>,
    /// When the last attempt was sent.
    last_sent: Option<f64>,
}

impl QuotaPacer {
    /// A server announced `quota` at `now`; a reset past
    /// [`MAX_QUOTA_RESET`] is ignored. An attempt was sent for the response
    /// that announced it: if the pacer saw none (the first quota comes
    /// after attempts it did not pace), it counts one sent now.
    pub(crate) fn announce(&mut self, quota: Quota, now: f64) {
        if quota.reset <= MAX_QUOTA_RESET {
            self.quota = Some((quota.remaining, now + quota.reset.as_secs_f64()));
            self.last_sent.get_or_insert(now);
        }
    }

    /// Takes the quota's share for an attempt at `now`, after `also` (the
    /// limiter's own token) agrees: the wait if the attempt is early (at
    /// most `bound` and the time to the reset), or the wait `also` says.
    pub(crate) fn take(
        &mut self,
        now: f64,
        bound: Duration,
        also: impl FnOnce() -> Result<(), Duration>,
    ) -> Result<(), Duration> {
        if let Some(wait) = self.wait(now) {
            return Err(wait.min(bound));
        }
        also()?;
        self.last_sent = Some(now);
        if let Some((remaining, reset_at)) = self.live(now) {
            self.quota = Some((remaining.saturating_sub(1), reset_at));
        }
        Ok(())
    }

    /// How long an attempt at `now` must wait, if it is early.
    fn wait(&self, now: f64) -> Option<Duration> {
        let (remaining, reset_at) = self.live(now)?;
        let last = self.last_sent?;
        let next = last + (reset_at - last) / (remaining as f64 + 1.0);
        // Rounded up, a nanosecond more so that the attempt is due after it,
        // but never past the reset, after which the quota says nothing.
        (next > now).then(|| {
            let due = ceil(next - now).saturating_add(Duration::from_nanos(1));
            due.min(ceil(reset_at - now))
        })
    }

    /// Whether a quota is in force at `now`.
    pub(crate) fn is_live(&self, now: f64) -> bool {
        self.live(now).is_some()
    }

    /// The quota in force, unless its reset has passed.
    fn live(&self, now: f64) -> Option<(u64, f64)> {
        self.quota.filter(|&(_, reset_at)| reset_at > now)
    }
}

/// `seconds` as a `Duration`, rounded up to the nanosecond; the longest
/// `Duration` if it is too long for one.
fn ceil(seconds: f64) -> Duration {
    match Duration::try_from_secs_f64(seconds) {
        Ok(wait) if wait.as_secs_f64() < seconds => wait.saturating_add(Duration::from_nanos(1)),
        Ok(wait) => wait,
        Err(_) => Duration::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUND: Duration = MAX_QUOTA_WAIT;

    fn go(pacer: &mut QuotaPacer, now: f64) -> Result<(), Duration> {
        pacer.take(now, BOUND, || Ok(()))
    }

    #[test]
    fn without_a_quota_every_attempt_goes() {
        let mut pacer = QuotaPacer::default();
        for _ in 0..100 {
            assert_eq!(go(&mut pacer, 0.0), Ok(()));
        }
    }

    #[test]
    fn the_remaining_requests_are_spread_over_the_window() {
        let mut pacer = QuotaPacer::default();
        assert_eq!(go(&mut pacer, 0.0), Ok(()));
        // 9 left over the second: one every tenth of a second.
        pacer.announce(Quota::new(9, Duration::from_secs(1)), 0.0);
        let mut now = 0.0;
        let mut sent = 0;
        while now < 1.0 {
            match go(&mut pacer, now) {
                Ok(()) => sent += 1,
                Err(wait) => {
                    assert!(wait <= Duration::from_secs_f64(1.0 - now) + Duration::from_nanos(1));
                    now += wait.as_secs_f64();
                }
            }
        }
        assert_eq!(sent, 9, "the nine left, none more, before the reset");
        // The reset passed: the quota is stale and says nothing more.
        assert_eq!(go(&mut pacer, now), Ok(()));
        assert_eq!(go(&mut pacer, now), Ok(()));
    }

    #[test]
    fn a_spent_quota_waits_for_the_reset_in_bounded_waits() {
        let mut pacer = QuotaPacer::default();
        assert_eq!(go(&mut pacer, 0.0), Ok(()));
        pacer.announce(Quota::new(0, Duration::from_secs(3600)), 1.0);
        assert_eq!(go(&mut pacer, 1.0), Err(BOUND));
        assert_eq!(pacer.take(3599.5, BOUND, || Ok(())).map_err(|w| w.as_millis()), Err(1500));
        assert_eq!(go(&mut pacer, 3601.0), Ok(()));
    }

    #[test]
    fn the_latest_announcement_wins_and_bad_ones_are_ignored() {
        let mut pacer = QuotaPacer::default();
        assert_eq!(go(&mut pacer, 0.0), Ok(()));
        pacer.announce(Quota::new(0, Duration::from_secs(10)), 0.0);
        assert!(go(&mut pacer, 0.1).is_err());
        // A reset two days away is no window: the quota in force stays.
        pacer.announce(Quota::new(1_000_000, Duration::from_secs(2 * 86_400)), 0.1);
        assert!(go(&mut pacer, 0.2).is_err());
        // A newer count replaces it; one restored now limits nothing.
        pacer.announce(Quota::new(1000, Duration::from_secs(10)), 0.2);
        assert_eq!(go(&mut pacer, 0.3), Ok(()));
        pacer.announce(Quota::new(0, Duration::ZERO), 0.3);
        assert_eq!(go(&mut pacer, 0.3), Ok(()));
    }

    #[test]
    fn the_limiters_own_wait_takes_nothing_from_the_quota() {
        let mut pacer = QuotaPacer::default();
        pacer.announce(Quota::new(1, Duration::from_secs(10)), 0.0);
        let busy = Duration::from_millis(5);
        // The announcing response's attempt counts as sent at 0: the one
        // request left is due halfway to the reset.
        assert!(go(&mut pacer, 0.0).is_err());
        assert_eq!(pacer.take(5.0, BOUND, || Err(busy)), Err(busy));
        assert_eq!(go(&mut pacer, 5.0), Ok(()), "the quota's one request is still there");
        assert_eq!(go(&mut pacer, 5.0).map_err(|wait| wait.as_secs()), Err(5), "none left: the reset");
    }
}
