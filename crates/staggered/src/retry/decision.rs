//! The retry decision: one sans-IO state machine that every
//! driver calls, so the rules live in exactly one place.
//!
//! Given the outcome of attempt `r` and the time elapsed since attempt 1
//! started, [`Decision::on_failure`] answers [`Action::Retry`] with the wait,
//! or [`Action::Stop`] with the [`StopReason`]. It knows no clock and never
//! sleeps: the blocking loop, the async future, the CLI and the simulator
//! each supply the time and do the waiting.

use core::borrow::Borrow;
use core::fmt;
use core::time::Duration;

use crate::budget::{Budget, NoBudget};
use crate::classify::{ErrorKind, Failure, Hint};
use crate::math::{from_nanos, to_nanos};
use crate::retry::hint_policy::HintPolicy;
use crate::retry::steering::{Steer, Steering};
use crate::rng::{FastRng, Rng};
use crate::Schedule;

/// The limits a [`Decision`] enforces besides the schedule's own length.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// The total number of calls, first one included; `None` leaves only the
    /// schedule's end (and the deadline) to stop. The first call is always
    /// made, so the decision reads `Some(0)` as 1; the schedule builders,
    /// configuration files and [`RetryPolicy::with_max_attempts`](crate::RetryPolicy::with_max_attempts)
    /// refuse 0.
    pub max_attempts: Option<u32>,
    /// The total time budget from the start of attempt 1, operation time included.
    pub deadline: Option<Duration>,
    /// The longest server hint to honour; a longer one stops with
    /// [`StopReason::HintTooLong`] instead of being shortened.
    pub max_hint: Option<Duration>,
    /// The jitter added on top of a hint, as a fraction of the hint: a fleet
    /// told "10 s" comes back spread over 10 s to 11 s at the default 0.1.
    pub hint_jitter: f64,
    /// How a hint sets the wait: at least the hint by default; the AWS SDKs'
    /// and gRPC's rules on request.
    pub hint_policy: HintPolicy,
}

impl Limits {
    /// No limits but the schedule's own end; hint jitter 0.1.
    pub const NONE: Limits = Limits {
        max_attempts: None,
        deadline: None,
        max_hint: None,
        hint_jitter: 0.1,
        hint_policy: HintPolicy::AtLeast,
    };

    /// The limits a schedule carries: its `max_attempts`, its deadline and the
    /// longest hint it would honour (for a [`Backoff`](crate::Backoff), its
    /// largest delay). What [`RetryPolicy::new`](crate::RetryPolicy::new) starts from.
    pub fn for_schedule<S: crate::Schedule + ?Sized>(schedule: &S) -> Self {
        Limits::NONE
            .with_max_attempts(schedule.max_attempts())
            .with_deadline(schedule.deadline())
            .with_max_hint(schedule.max_hint())
    }

    /// The time left before the deadline, `elapsed` after attempt 1 started;
    /// `None` without a deadline.
    #[inline]
    pub fn time_left(&self, elapsed: Duration) -> Option<Duration> {
        self.deadline.map(|deadline| deadline.saturating_sub(elapsed))
    }

    /// The time an attempt starting `elapsed` after attempt 1 gets under a
    /// per-attempt `timeout`: the timeout, or the time left before the
    /// deadline if that is shorter.
    pub fn attempt_time(&self, timeout: Duration, elapsed: Duration) -> Duration {
        self.time_left(elapsed).map_or(timeout, |left| timeout.min(left))
    }

    /// How long the next attempt of an async driver may run, `elapsed` after
    /// attempt 1 started: the per-attempt `timeout` if any, cut to the time
    /// left before the deadline; `None` when neither limits it.
    #[inline]
    pub fn attempt_limit(&self, timeout: Option<Duration>, elapsed: Duration) -> Option<Duration> {
        match (timeout, self.time_left(elapsed)) {
            (Some(timeout), Some(left)) => Some(timeout.min(left)),
            (timeout, left) => timeout.or(left),
        }
    }

    /// The same limits with `max_attempts`.
    pub const fn with_max_attempts(mut self, max_attempts: Option<u32>) -> Self {
        self.max_attempts = max_attempts;
        self
    }
    /// The same limits with a deadline.
    pub const fn with_deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }
    /// The same limits with a maximum hint.
    pub const fn with_max_hint(mut self, max_hint: Option<Duration>) -> Self {
        self.max_hint = max_hint;
        self
    }
    /// The same limits with a hint jitter fraction (clamped to `[0, 1]`, NaN as 0).
    pub fn with_hint_jitter(mut self, fraction: f64) -> Self {
        self.hint_jitter = if fraction.is_nan() { 0.0 } else { fraction.clamp(0.0, 1.0) };
        self
    }
    /// The same limits with another rule for server hints.
    pub const fn with_hint_policy(mut self, hint_policy: HintPolicy) -> Self {
        self.hint_policy = hint_policy;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::NONE
    }
}

/// Why the retrying stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// The last allowed attempt failed (`max_attempts`, or the schedule ended).
    AttemptsExhausted,
    /// The error was classified permanent.
    Permanent,
    /// The next attempt could not start before the deadline: the wait
    /// would end at or after it.
    Deadline,
    /// The server asked for a longer wait than allowed, or said never.
    HintTooLong,
    /// The retry budget refused the retry.
    BudgetExhausted,
    /// The caller cancelled.
    Cancelled,
}

impl StopReason {
    /// A short name for logs: `attempts_exhausted`, `permanent`, `deadline`,
    /// `hint_too_long`, `budget_exhausted`, `cancelled`.
    pub const fn name(self) -> &'static str {
        match self {
            StopReason::AttemptsExhausted => "attempts_exhausted",
            StopReason::Permanent => "permanent",
            StopReason::Deadline => "deadline",
            StopReason::HintTooLong => "hint_too_long",
            StopReason::BudgetExhausted => "budget_exhausted",
            StopReason::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::AttemptsExhausted => "attempts exhausted",
            StopReason::Permanent => "permanent error",
            StopReason::Deadline => "no time left before the deadline",
            StopReason::HintTooLong => "server hint longer than allowed",
            StopReason::BudgetExhausted => "retry budget exhausted",
            StopReason::Cancelled => "cancelled",
        })
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Wait this long, then make the next attempt.
    Retry(Duration),
    /// Give up.
    Stop(StopReason),
}

/// The retry state of one operation.
///
/// `D` is the schedule's delays, `B` the retry budget, and `L` holds the
/// [`Limits`]: a copy of its own, or a `&Limits` that many decisions share
/// (for state kept per client of a large fleet, with
/// [`Backoff::borrowed_delays`](crate::Backoff::borrowed_delays)).
///
/// ```
/// use std::time::Duration;
/// use staggered::{Action, Decision, Failure, Limits, StopReason};
///
/// let delays = [Duration::from_secs(1), Duration::from_secs(2)].into_iter();
/// let mut decision = Decision::new(delays, Limits::NONE.with_deadline(Some(Duration::from_secs(10))));
/// assert_eq!(decision.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(Duration::from_secs(1)));
/// assert_eq!(decision.attempt(), 2);
/// // The next wait (2 s) would end after the deadline: stop now, do not sleep.
/// let late = Duration::from_millis(8_500);
/// assert_eq!(decision.on_failure(&Failure::TRANSIENT, late), Action::Stop(StopReason::Deadline));
/// ```
#[derive(Debug, Clone)]
pub struct Decision<D, B = NoBudget, L = Limits> {
    delays: D,
    budget: B,
    limits: L,
    attempt: u32,
    hint_rng: Option<FastRng>,
    cancelled: bool,
    /// The failure whose retry is under way, for the budget's refund; kept
    /// only for a budget that [reads it](Budget::READS_LAST_FAILURE).
    last_failure: Option<Failure>,
    /// How the delays are walked: in order, or as their schedule says.
    steering: Steering<D>,
    /// The wait the last failure was given or refused, for [`Decision::last_wait`].
    last_wait: Option<Duration>,
}

impl<D: Iterator<Item = Duration>, L: Borrow<Limits>> Decision<D, NoBudget, L> {
    /// The decision for one operation: attempt 1 is next, with `delays` from
    /// the schedule and no budget. `limits` is a [`Limits`], or a
    /// `&Limits` that a fleet of decisions shares (64 bytes less each).
    pub fn new(delays: D, limits: L) -> Self {
        Decision::with_budget(delays, limits, NoBudget)
    }
}

impl<D: Iterator<Item = Duration>, B: Budget, L: Borrow<Limits>> Decision<D, B, L> {
    /// The decision for one operation, asking `budget` before each retry.
    /// The delays are taken in order and never started over; a decision
    /// made [`for_schedule`](Decision::for_schedule) knows more.
    pub fn with_budget(delays: D, limits: L, budget: B) -> Self {
        Decision::steered(delays, limits, budget, Steering::in_order())
    }

    /// The decision for one operation on `schedule`: fresh delays, walked as
    /// the schedule says (waits chosen by the kind of failure with
    /// [`ByKind`](crate::compose::ByKind); a restart after a gRPC pushback,
    /// [`HintPolicy::Pushback`]). What a [`RetryPolicy`](crate::RetryPolicy) uses.
    pub fn for_schedule<S: Schedule<Delays = D>>(schedule: &S, limits: L, budget: B) -> Self {
        Decision::steered(schedule.delays(), limits, budget, Steering::of::<S>())
    }

    pub(crate) fn steered(delays: D, limits: L, budget: B, steering: Steering<D>) -> Self {
        Decision {
            delays,
            budget,
            limits,
            attempt: 1,
            hint_rng: None,
            cancelled: false,
            last_failure: None,
            steering,
            last_wait: None,
        }
    }

    /// Draws hint jitter from a generator seeded with `seed`, for
    /// reproducible runs (the default seeds from OS entropy on first use).
    pub fn with_hint_seed(mut self, seed: u64) -> Self {
        self.hint_rng = Some(FastRng::seed(seed));
        self
    }

    /// The current attempt was cut at the deadline with no error to decide
    /// on: the budget records the failure, and the retrying stops (at the
    /// deadline, or as cancelled if it was).
    pub(crate) fn on_cut(&mut self, failure: &Failure) -> StopReason {
        if self.cancelled {
            return StopReason::Cancelled;
        }
        self.budget.record_failure(failure);
        StopReason::Deadline
    }

    /// The attempt whose outcome is reported next (1 for the first call).
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        self.limits.borrow()
    }

    /// The budget.
    pub const fn budget(&self) -> &B {
        &self.budget
    }

    /// The time left before the deadline, `elapsed` after attempt 1 started;
    /// `None` without a deadline. An async per-attempt timeout is clipped to it.
    pub fn time_left(&self, elapsed: Duration) -> Option<Duration> {
        self.limits().time_left(elapsed)
    }

    /// Stops the retrying: the next [`on_failure`](Decision::on_failure)
    /// answers [`StopReason::Cancelled`].
    pub fn cancel(&mut self) {
        self.cancelled = true;
    }

    /// Whether [`cancel`](Decision::cancel) was called: a driver cancelled
    /// while waiting, with no new failure to report, stops with
    /// [`StopReason::Cancelled`] on its own.
    pub const fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    /// The wait chosen after the last failure (the scheduled delay, or what
    /// the hint policy made of a server hint), whether [`on_failure`]
    /// answered it with [`Action::Retry`] or refused it because it would end
    /// at or after the deadline ([`StopReason::Deadline`]) or the budget said
    /// no. `None` before any failure, and when the decision stopped before
    /// choosing a wait (cancelled, permanent, attempts exhausted, a hint
    /// refused). A driver that gives up for the deadline can say how long
    /// the wait would have been, beside the time that was left.
    ///
    /// ```
    /// use std::time::Duration;
    /// use staggered::{Action, Decision, Failure, Limits, StopReason};
    ///
    /// let limits = Limits::NONE.with_deadline(Some(Duration::from_secs(10)));
    /// let mut decision = Decision::new([Duration::from_secs(8)].into_iter(), limits);
    /// let elapsed = Duration::from_secs(4);
    /// assert_eq!(decision.on_failure(&Failure::TRANSIENT, elapsed), Action::Stop(StopReason::Deadline));
    /// assert_eq!(decision.last_wait(), Some(Duration::from_secs(8)));
    /// assert_eq!(decision.time_left(elapsed), Some(Duration::from_secs(6)));
    /// ```
    ///
    /// [`on_failure`]: Decision::on_failure
    pub const fn last_wait(&self) -> Option<Duration> {
        self.last_wait
    }

    /// Records that the current attempt succeeded (the budget may refund).
    pub fn on_success(&mut self) {
        self.budget.deposit(self.attempt, self.last_failure.as_ref());
    }

    /// Decides after the current attempt failed with `failure`, `elapsed`
    /// after attempt 1 started. The rules, in order: cancelled; permanent;
    /// attempts exhausted (by `max_attempts` or the schedule's end); a hint
    /// of "never" or one the [`HintPolicy`] refuses (by default, longer than
    /// `max_hint`); the wait (the scheduled delay, or what the hint policy
    /// makes of the hint: by default at least the hint plus a small jitter)
    /// would end at or after the deadline; the budget refuses. Only then
    /// `Retry`, and the attempt number advances.
    #[inline]
    pub fn on_failure(&mut self, failure: &Failure, elapsed: Duration) -> Action {
        let steering = self.steering;
        self.on_failure_by(failure, elapsed, &steering)
    }

    /// The steering the decision was made with, for a driver that passes
    /// it to [`on_failure_by`](Decision::on_failure_by).
    #[cfg(any(feature = "tower", feature = "reqwest", feature = "tonic"))]
    pub(crate) const fn steering(&self) -> Steering<D> {
        self.steering
    }

    /// [`on_failure`](Decision::on_failure), taking the scheduled delay
    /// with `next`: the decision's own steering, or, from a driver that
    /// knows the schedule, the schedule's own function ([`Static`](crate::retry::steering::Static)):
    /// a direct call, inlined, instead of a call through a pointer.
    #[inline(always)]
    pub(crate) fn on_failure_by(
        &mut self,
        failure: &Failure,
        elapsed: Duration,
        next: &impl Steer<D>,
    ) -> Action {
        match self.decide(failure, elapsed, next) {
            Ok(wait) => {
                self.attempt = self.attempt.saturating_add(1);
                if B::READS_LAST_FAILURE {
                    self.last_failure = Some(*failure);
                }
                Action::Retry(wait)
            }
            Err(reason) => Action::Stop(reason),
        }
    }

    #[inline(always)]
    fn decide(
        &mut self,
        failure: &Failure,
        elapsed: Duration,
        next: &impl Steer<D>,
    ) -> Result<Duration, StopReason> {
        self.last_wait = None;
        if self.cancelled {
            return Err(StopReason::Cancelled);
        }
        if failure.kind == ErrorKind::Permanent {
            return Err(StopReason::Permanent);
        }
        self.budget.record_failure(failure);
        if matches!(self.limits().max_attempts, Some(max) if self.attempt >= max) {
            return Err(StopReason::AttemptsExhausted);
        }
        let scheduled = next.take(&mut self.delays, failure).ok_or(StopReason::AttemptsExhausted)?;
        let hint_policy = self.limits().hint_policy;
        let wait = match failure.hint {
            None => scheduled,
            Some(Hint::Never) => return Err(StopReason::HintTooLong),
            Some(Hint::After(hint)) => {
                let max_hint = self.limits().max_hint;
                hint_policy.wait(hint, scheduled, max_hint, || self.jittered_hint(hint, elapsed))?
            }
        };
        self.last_wait = Some(wait);
        if let Some(deadline) = self.limits().deadline {
            // An attempt that would start exactly at the deadline would have
            // no time to run: that is a stop too.
            if elapsed.checked_add(wait).is_none_or(|end| end >= deadline) {
                return Err(StopReason::Deadline);
            }
        }
        if !self.budget.withdraw(failure) {
            return Err(StopReason::BudgetExhausted);
        }
        if failure.hint.is_some() && hint_policy.restarts() {
            if let Some(restart) = self.steering.restart {
                restart(&mut self.delays);
            }
        }
        Ok(wait)
    }

    /// `hint + U[0, hint * hint_jitter]`, never below the hint and never past
    /// `max_hint` (the jitter is what gets cut, not the hint).
    fn jittered_hint(&mut self, hint: Duration, elapsed: Duration) -> Duration {
        let spread = to_nanos(hint) * self.limits().hint_jitter;
        if spread <= 0.0 {
            return hint;
        }
        let rng = self.hint_rng.get_or_insert_with(|| hint_rng(elapsed));
        let jitter = from_nanos(spread * rng.next_f64());
        let wait = hint.saturating_add(jitter);
        match self.limits().max_hint {
            Some(max) => wait.min(max.max(hint)),
            None => wait,
        }
    }
}

#[cfg(feature = "std")]
fn hint_rng(_elapsed: Duration) -> FastRng {
    FastRng::from_entropy()
}

/// Without `std` there is no entropy source: the elapsed time, which differs
/// between clients in the low nanoseconds, seeds the hint jitter instead.
#[cfg(not(feature = "std"))]
fn hint_rng(elapsed: Duration) -> FastRng {
    FastRng::seed(elapsed.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    const SEC: Duration = Duration::from_secs(1);

    fn ones() -> core::iter::RepeatN<Duration> {
        core::iter::repeat_n(SEC, 5)
    }

    #[test]
    fn exhausts_attempts_by_limit_and_by_schedule_end() {
        let mut d = Decision::new(ones(), Limits::NONE.with_max_attempts(Some(3)));
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(SEC));
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(SEC));
        assert_eq!(d.attempt(), 3);
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::ZERO),
            Action::Stop(StopReason::AttemptsExhausted)
        );

        let mut d = Decision::new(core::iter::once(SEC), Limits::NONE);
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(SEC));
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::ZERO),
            Action::Stop(StopReason::AttemptsExhausted)
        );
    }

    #[test]
    fn permanent_and_cancelled_stop_at_once() {
        let mut d = Decision::new(ones(), Limits::NONE);
        assert_eq!(d.on_failure(&Failure::PERMANENT, Duration::ZERO), Action::Stop(StopReason::Permanent));
        let mut d = Decision::new(ones(), Limits::NONE);
        d.cancel();
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Stop(StopReason::Cancelled));
    }

    #[test]
    fn never_sleeps_past_the_deadline() {
        let limits = Limits::NONE.with_deadline(Some(Duration::from_millis(2500)));
        let mut d = Decision::new(ones(), limits);
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::from_millis(1499)), Action::Retry(SEC));
        assert_eq!(d.time_left(Duration::from_millis(2000)), Some(Duration::from_millis(500)));
        // A wait ending exactly at the deadline would leave the attempt no time.
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::from_millis(1500)),
            Action::Stop(StopReason::Deadline)
        );
        assert!(!d.is_cancelled());
        let mut d = Decision::new(ones(), limits);
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::MAX), Action::Stop(StopReason::Deadline));
    }

    #[test]
    fn the_last_wait_is_known_whether_given_or_refused() {
        let limits = Limits::NONE.with_deadline(Some(Duration::from_millis(2500))).with_max_attempts(Some(4));
        let mut d = Decision::new(ones(), limits);
        assert_eq!(d.last_wait(), None, "no failure yet");
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(SEC));
        assert_eq!(d.last_wait(), Some(SEC), "given");
        let late = Duration::from_millis(1600);
        assert_eq!(d.on_failure(&Failure::TRANSIENT, late), Action::Stop(StopReason::Deadline));
        assert_eq!(d.last_wait(), Some(SEC), "refused for the deadline");
        assert_eq!(d.on_failure(&Failure::PERMANENT, Duration::ZERO), Action::Stop(StopReason::Permanent));
        assert_eq!(d.last_wait(), None, "no wait chosen for a permanent error");
        // A hint sets the wait: at least the hint.
        let hinted = Failure::THROTTLED.with_hint(Hint::After(Duration::from_secs(5)));
        let mut d = Decision::new(ones(), limits.with_hint_jitter(0.0));
        assert_eq!(d.on_failure(&hinted, Duration::ZERO), Action::Stop(StopReason::Deadline));
        assert_eq!(d.last_wait(), Some(Duration::from_secs(5)));
        // The budget's refusal keeps the wait it refused.
        let budget = Refuse(Cell::new(0));
        let mut d = Decision::with_budget(ones(), Limits::NONE, &budget);
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::ZERO),
            Action::Stop(StopReason::BudgetExhausted)
        );
        assert_eq!(d.last_wait(), Some(SEC));
    }

    #[test]
    fn an_attempts_time_is_its_timeout_clipped_to_the_deadline() {
        let limits = Limits::NONE.with_deadline(Some(Duration::from_secs(10)));
        assert_eq!(limits.attempt_time(SEC, Duration::from_secs(2)), SEC);
        assert_eq!(limits.attempt_time(SEC, Duration::from_millis(9_700)), Duration::from_millis(300));
        assert_eq!(limits.attempt_time(SEC, Duration::MAX), Duration::ZERO);
        assert_eq!(Limits::NONE.attempt_time(SEC, Duration::MAX), SEC);
    }

    #[test]
    fn hints_wait_at_least_the_hint_plus_bounded_jitter() {
        let limits = Limits::NONE.with_max_hint(Some(Duration::from_secs(60)));
        for seed in 0..200 {
            let mut d = Decision::new(ones(), limits).with_hint_seed(seed);
            let hinted = Failure::THROTTLED.with_hint(Hint::After(Duration::from_secs(10)));
            let Action::Retry(wait) = d.on_failure(&hinted, Duration::ZERO) else { panic!("stopped") };
            assert!(wait >= Duration::from_secs(10) && wait <= Duration::from_secs(11), "{wait:?}");
        }
        // A short hint never shortens the scheduled delay.
        let mut d = Decision::new(ones(), limits);
        let short = Failure::TRANSIENT.with_hint(Hint::After(Duration::from_millis(1)));
        assert!(matches!(d.on_failure(&short, Duration::ZERO), Action::Retry(w) if w >= SEC));
    }

    #[test]
    fn hostile_hints_stop_or_stay_within_limits() {
        let limits = Limits::NONE.with_max_hint(Some(Duration::from_secs(60)));
        let mut d = Decision::new(ones(), limits);
        let huge = Failure::TRANSIENT.with_hint(Hint::After(Duration::MAX));
        assert_eq!(d.on_failure(&huge, Duration::ZERO), Action::Stop(StopReason::HintTooLong));
        let mut d = Decision::new(ones(), limits);
        let never = Failure::TRANSIENT.with_hint(Hint::Never);
        assert_eq!(d.on_failure(&never, Duration::ZERO), Action::Stop(StopReason::HintTooLong));
        // At the maximum exactly, the jitter is cut, not the hint.
        let mut d = Decision::new(ones(), limits);
        let at_max = Failure::TRANSIENT.with_hint(Hint::After(Duration::from_secs(60)));
        assert_eq!(d.on_failure(&at_max, Duration::ZERO), Action::Retry(Duration::from_secs(60)));
        // Without a maximum, a huge hint still cannot pass the deadline.
        let mut d = Decision::new(ones(), Limits::NONE.with_deadline(Some(Duration::from_secs(5))));
        assert_eq!(d.on_failure(&huge, Duration::ZERO), Action::Stop(StopReason::Deadline));
        // Without any limit it saturates instead of overflowing.
        let mut d = Decision::new(ones(), Limits::NONE);
        assert_eq!(d.on_failure(&huge, Duration::ZERO), Action::Retry(Duration::MAX));
    }

    struct Refuse(Cell<u32>);
    impl Budget for Refuse {
        fn withdraw(&self, _: &Failure) -> bool {
            self.0.set(self.0.get() + 1);
            false
        }
        fn deposit(&self, _: u32, _: Option<&Failure>) {}
    }

    #[test]
    fn budget_is_asked_last() {
        let budget = Refuse(Cell::new(0));
        let mut d = Decision::with_budget(ones(), Limits::NONE.with_max_attempts(Some(1)), &budget);
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::ZERO),
            Action::Stop(StopReason::AttemptsExhausted)
        );
        assert_eq!(budget.0.get(), 0, "a retry that would not happen costs nothing");
        let mut d = Decision::with_budget(ones(), Limits::NONE, &budget);
        assert_eq!(
            d.on_failure(&Failure::TRANSIENT, Duration::ZERO),
            Action::Stop(StopReason::BudgetExhausted)
        );
        assert_eq!(budget.0.get(), 1);
    }

    /// A budget that records the `last_failure` each deposit is given,
    /// reading it or not as `READS` says.
    struct Deposits<const READS: bool>(Cell<Option<Option<Failure>>>);
    impl<const READS: bool> Budget for Deposits<READS> {
        const READS_LAST_FAILURE: bool = READS;
        fn withdraw(&self, _: &Failure) -> bool {
            true
        }
        fn deposit(&self, _: u32, last_failure: Option<&Failure>) {
            self.0.set(Some(last_failure.copied()));
        }
    }

    #[test]
    fn the_last_failure_reaches_a_budget_that_reads_it() {
        let throttled = Failure::THROTTLED;
        let reads = Deposits::<true>(Cell::new(None));
        let mut d = Decision::with_budget(ones(), Limits::NONE, &reads);
        d.on_failure(&Failure::TRANSIENT, Duration::ZERO);
        d.on_failure(&throttled, Duration::ZERO);
        d.on_success();
        assert_eq!(reads.0.get(), Some(Some(throttled)), "the failure whose retry succeeded");
        // A budget that says it never reads it is not kept for it.
        let ignores = Deposits::<false>(Cell::new(None));
        let mut d = Decision::with_budget(ones(), Limits::NONE, &ignores);
        d.on_failure(&throttled, Duration::ZERO);
        d.on_success();
        assert_eq!(ignores.0.get(), Some(None));
    }

    #[test]
    fn attempt_counter_saturates() {
        let mut d = Decision::new(core::iter::repeat(Duration::ZERO), Limits::NONE);
        d.attempt = u32::MAX - 1;
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(Duration::ZERO));
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(Duration::ZERO));
        assert_eq!(d.attempt(), u32::MAX);
    }
}
