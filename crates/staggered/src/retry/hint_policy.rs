//! How a server hint sets the wait. The peers disagree, and each rule has its
//! reason, so the retry decision offers each of them, one at a time, through
//! the same [`Decision`](crate::Decision).

use core::fmt;
use core::time::Duration;

use crate::StopReason;

/// What the retry decision does with a server hint (`Retry-After`,
/// `x-amz-retry-after`, `grpc-retry-pushback-ms`) of `h`, when the schedule's
/// delay for the retry is `d`.
///
/// | policy | the wait | a hint over `max_hint` | whose rule |
/// |---|---|---|---|
/// | [`AtLeast`](HintPolicy::AtLeast) (default) | `max(d, h + U[0, h * hint_jitter])` | stops: [`HintTooLong`](StopReason::HintTooLong) | ours |
/// | [`Bounded`](HintPolicy::Bounded) `{ extra }` | `h` clamped to `[d, d + extra]` | no limit needed: the wait is bounded | the AWS SDKs (extra 5 s: [`HintPolicy::AWS`]) |
/// | [`Capped`](HintPolicy::Capped) | `min(h, max_hint)` | waits `max_hint` | smithy-rs before retry behaviour 2.1 |
/// | [`Pushback`](HintPolicy::Pushback) | `h` exactly, then the schedule starts over | stops | gRPC (A6), grpc-go |
///
/// A hint of "never" ([`Hint::Never`](crate::Hint)) stops every policy, and
/// under every policy the wait must end before the deadline.
///
/// Why the default differs from each peer: it never retries earlier than the
/// server asked (`Bounded` may come back 5 s early after a long hint,
/// `Capped` at `max_hint`), never later than it must plus a little jitter,
/// and the jitter keeps a fleet told the same `Retry-After` from returning
/// in the same millisecond (the others wait the hint exactly); a hint past
/// what the caller accepts is a reason to give up rather than to knock
/// again before the server is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum HintPolicy {
    /// Wait at least the hint, plus up to `hint_jitter` of it, and never
    /// less than the schedule's delay; a hint past `max_hint` stops.
    #[default]
    AtLeast,
    /// Wait the hint, but at least the schedule's delay and at most `extra`
    /// more than it: the AWS SDKs' rule for `x-amz-retry-after` (retry
    /// behaviour 2.1, `extra` = 5 s). `max_hint` does not apply.
    Bounded {
        /// How far past the schedule's delay a hint may push the wait.
        extra: Duration,
    },
    /// Wait the hint instead of the schedule's delay, cut to `max_hint`
    /// (the hint itself without one): smithy-rs's rule before retry
    /// behaviour 2.1, with `max_hint` as its `max_backoff`.
    Capped,
    /// Wait exactly the hint, and start the schedule over: the next retry
    /// without a hint waits the schedule's first delay again. gRPC's retry
    /// design (A6) and grpc-go. A hint past `max_hint` stops. A schedule
    /// that cannot start over (a plain iterator,
    /// [`Schedule::restartable`](crate::Schedule::restartable)) goes on.
    Pushback,
}

impl HintPolicy {
    /// The AWS SDKs' rule: the hint, between the backoff and 5 s more.
    pub const AWS: HintPolicy = HintPolicy::Bounded { extra: Duration::from_secs(5) };

    /// A short name for logs and configuration: `at_least`, `bounded`,
    /// `capped` or `pushback`.
    pub const fn name(self) -> &'static str {
        match self {
            HintPolicy::AtLeast => "at_least",
            HintPolicy::Bounded { .. } => "bounded",
            HintPolicy::Capped => "capped",
            HintPolicy::Pushback => "pushback",
        }
    }

    /// The wait for a hint of `hint` when the schedule's delay is
    /// `scheduled`, given `max_hint`; `jittered` gives the hint plus its
    /// jitter (cut at `max_hint`), for [`AtLeast`](HintPolicy::AtLeast).
    pub(crate) fn wait(
        self,
        hint: Duration,
        scheduled: Duration,
        max_hint: Option<Duration>,
        jittered: impl FnOnce() -> Duration,
    ) -> Result<Duration, StopReason> {
        let too_long = matches!(max_hint, Some(max) if hint > max);
        match self {
            HintPolicy::AtLeast if too_long => Err(StopReason::HintTooLong),
            HintPolicy::AtLeast => Ok(scheduled.max(jittered())),
            HintPolicy::Bounded { extra } => Ok(hint.max(scheduled).min(scheduled.saturating_add(extra))),
            HintPolicy::Capped => Ok(max_hint.map_or(hint, |max| hint.min(max))),
            HintPolicy::Pushback if too_long => Err(StopReason::HintTooLong),
            HintPolicy::Pushback => Ok(hint),
        }
    }

    /// Whether a retry on a hint starts the schedule over.
    pub(crate) const fn restarts(self) -> bool {
        matches!(self, HintPolicy::Pushback)
    }
}

impl fmt::Display for HintPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn each_rule_as_its_peer_states_it() {
        let at = |policy: HintPolicy, hint, scheduled, max| {
            policy.wait(ms(hint), ms(scheduled), max, || ms(hint + 1))
        };
        // Ours: at least the hint (plus jitter), never below the schedule, too long stops.
        assert_eq!(at(HintPolicy::AtLeast, 300, 50, None), Ok(ms(301)));
        assert_eq!(at(HintPolicy::AtLeast, 10, 50, None), Ok(ms(50)));
        assert_eq!(at(HintPolicy::AtLeast, 300, 50, Some(ms(200))), Err(StopReason::HintTooLong));
        // botocore's retry-behaviour 2.1 cases: t_i = 50 ms and hints of 1500, 0 and 10000 ms.
        assert_eq!(at(HintPolicy::AWS, 1500, 50, Some(ms(1))), Ok(ms(1500)));
        assert_eq!(at(HintPolicy::AWS, 0, 50, None), Ok(ms(50)));
        assert_eq!(at(HintPolicy::AWS, 10_000, 50, None), Ok(ms(5050)));
        // smithy-rs before 2.1: the hint replaces the backoff, capped at max_backoff.
        assert_eq!(at(HintPolicy::Capped, 30_000, 50, Some(ms(20_000))), Ok(ms(20_000)));
        assert_eq!(at(HintPolicy::Capped, 10, 50, Some(ms(20_000))), Ok(ms(10)));
        assert_eq!(at(HintPolicy::Capped, 30_000, 50, None), Ok(ms(30_000)));
        // gRPC: exactly the pushback.
        assert_eq!(at(HintPolicy::Pushback, 1000, 50, None), Ok(ms(1000)));
        assert_eq!(at(HintPolicy::Pushback, 10, 50, None), Ok(ms(10)));
        assert_eq!(at(HintPolicy::Pushback, 1000, 50, Some(ms(999))), Err(StopReason::HintTooLong));
        assert!(HintPolicy::Pushback.restarts() && !HintPolicy::AWS.restarts());
        // Never overflows.
        let max = HintPolicy::Bounded { extra: Duration::MAX };
        assert_eq!(max.wait(Duration::MAX, Duration::MAX, None, || Duration::ZERO), Ok(Duration::MAX));
    }

    #[test]
    fn names() {
        assert_eq!(HintPolicy::default(), HintPolicy::AtLeast);
        let names = [HintPolicy::AtLeast, HintPolicy::AWS, HintPolicy::Capped, HintPolicy::Pushback]
            .map(HintPolicy::name);
        assert_eq!(names, ["at_least", "bounded", "capped", "pushback"]);
    }
}
