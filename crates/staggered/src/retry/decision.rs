//! The retry decision: one sans-IO state machine that every
//! driver calls, so the rules live in exactly one place.
//!
//! Given the outcome of attempt `r` and the time elapsed since attempt 1
//! started, [`Decision::on_failure`] answers [`Action::Retry`] with the wait,
//! or [`Action::Stop`] with the [`StopReason`]. It knows no clock and never
//! sleeps: the blocking loop, the async future, the CLI and the simulator
//! each supply the time and do the waiting.

use core::fmt;
use core::time::Duration;

use crate::budget::{Budget, NoBudget};
use crate::classify::{ErrorKind, Failure, Hint};
use crate::math::{from_nanos, to_nanos};
use crate::retry::hint_policy::HintPolicy;
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
    /// The longest an attempt may wait for a client-side rate limiter's
    /// token; a longer wait stops with [`StopReason::TokenWaitTooLong`].
    /// `None`: only the deadline bounds it.
    pub max_token_wait: Option<Duration>,
}

impl Limits {
    /// No limits but the schedule's own end; hint jitter 0.1.
    pub const NONE: Limits = Limits {
        max_attempts: None,
        deadline: None,
        max_hint: None,
        hint_jitter: 0.1,
        hint_policy: HintPolicy::AtLeast,
        max_token_wait: None,
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
    /// The same limits with a bound on each attempt's wait for a token.
    pub const fn with_max_token_wait(mut self, max_token_wait: Option<Duration>) -> Self {
        self.max_token_wait = max_token_wait;
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
    /// The attempt failed and could not be sent again: a request that is
    /// not safe to repeat (a POST), or whose body cannot be copied.
    NotRepeatable,
    /// The attempt would have waited longer than `max_token_wait` for the
    /// client-side rate limiter's token: the client offers more than the
    /// server admits, and the work is shed rather than queued.
    TokenWaitTooLong,
}

impl StopReason {
    /// A short name for logs: `attempts_exhausted`, `permanent`, `deadline`,
    /// `hint_too_long`, `budget_exhausted`, `cancelled`, `not_repeatable`,
    /// `token_wait_too_long`.
    pub const fn name(self) -> &'static str {
        match self {
            StopReason::AttemptsExhausted => "attempts_exhausted",
            StopReason::Permanent => "permanent",
            StopReason::Deadline => "deadline",
            StopReason::HintTooLong => "hint_too_long",
            StopReason::BudgetExhausted => "budget_exhausted",
            StopReason::Cancelled => "cancelled",
            StopReason::NotRepeatable => "not_repeatable",
            StopReason::TokenWaitTooLong => "token_wait_too_long",
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
            StopReason::NotRepeatable => "the request cannot be sent again",
            StopReason::TokenWaitTooLong => "waited too long for the rate limiter",
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

/// The retry state of one operation on the schedule `S`.
///
/// It holds the schedule's delays and walks them as the schedule says (a
/// [`ByKind`](crate::compose::ByKind) schedule picks the wait by the kind of
/// failure; a restartable one starts over after a gRPC pushback), asks the
/// budget `B` before each retry, and keeps the [`Limits`]. For a plain
/// iterator of delays, `S` is the iterator itself ([`Decision::new`]).
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
pub struct Decision<S: Schedule, B = NoBudget> {
    delays: S::Delays,
    budget: B,
    limits: Limits,
    attempt: u32,
    hint_rng: Option<FastRng>,
    cancelled: bool,
    /// The failure whose retry was last allowed: what the budget refunds
    /// when that retry succeeds, or when it is never sent.
    last_failure: Option<Failure>,
    /// The wait the last failure was given or refused, for [`Decision::last_wait`].
    last_wait: Option<Duration>,
    /// Whether the retry the last failure was allowed is still to be sent.
    unsent: bool,
    /// Whether the current attempt may be sent again.
    repeatable: bool,
    /// A hedged call whose server said "never": no more copies.
    hedges_refused: bool,
    /// A hedged call: its success gives back no copy's cost.
    hedged: bool,
    /// When the attempt about to be sent began waiting for its token
    /// (since attempt 1 started), if it has waited.
    token_wait_began: Option<Duration>,
}

impl<I: Iterator<Item = Duration> + Clone> Decision<I> {
    /// The decision for one operation whose waits are `delays`, in order,
    /// with no budget: attempt 1 is next.
    pub fn new(delays: I, limits: Limits) -> Self {
        Decision::with_delays(delays, limits, NoBudget)
    }
}

impl<I: Iterator<Item = Duration> + Clone, B: Budget> Decision<I, B> {
    /// The decision for one operation whose waits are `delays`, in order,
    /// asking `budget` before each retry.
    pub fn with_budget(delays: I, limits: Limits, budget: B) -> Self {
        Decision::with_delays(delays, limits, budget)
    }
}

impl<S: Schedule, B: Budget> Decision<S, B> {
    /// The decision for one operation on `schedule`, with fresh delays,
    /// asking `budget` before each retry; a reproducible schedule seeds the
    /// hints' jitter too ([`Schedule::hint_seed`]). What every driver of a
    /// [`RetryPolicy`](crate::RetryPolicy) uses.
    #[inline]
    pub fn for_schedule(schedule: &S, limits: Limits, budget: B) -> Self {
        let decision = Decision::with_delays(schedule.delays(), limits, budget);
        match schedule.hint_seed() {
            Some(seed) => decision.with_hint_seed(seed),
            None => decision,
        }
    }

    /// The decision for one operation on delays of the schedule `S` made
    /// beforehand (seeded, say: `Decision::<Backoff, _>::with_delays(backoff.delays_seeded(7), ..)`),
    /// asking `budget` before each retry.
    pub fn with_delays(delays: S::Delays, limits: Limits, budget: B) -> Self {
        Decision {
            delays,
            budget,
            limits,
            attempt: 1,
            hint_rng: None,
            cancelled: false,
            last_failure: None,
            last_wait: None,
            unsent: false,
            repeatable: true,
            hedges_refused: false,
            hedged: false,
            token_wait_began: None,
        }
    }

    /// Draws hint jitter from a generator seeded with `seed`, for
    /// reproducible runs (the default seeds from OS entropy on first use).
    pub fn with_hint_seed(mut self, seed: u64) -> Self {
        self.hint_rng = Some(FastRng::seed(seed));
        self
    }

    /// The attempt whose outcome is reported next (1 for the first call).
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The budget.
    pub const fn budget(&self) -> &B {
        &self.budget
    }

    /// The time left before the deadline, `elapsed` after attempt 1 started;
    /// `None` without a deadline. An async per-attempt timeout is clipped to it.
    pub fn time_left(&self, elapsed: Duration) -> Option<Duration> {
        self.limits.time_left(elapsed)
    }

    /// Stops the retrying: the next [`on_failure`](Decision::on_failure)
    /// answers [`StopReason::Cancelled`], and a retry allowed but not yet
    /// sent is given back to the budget.
    pub fn cancel(&mut self) {
        if !self.cancelled {
            self.cancelled = true;
            self.retry_not_sent();
        }
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

    /// Records that the current attempt succeeded (the budget may refund
    /// what the retry that succeeded cost). A hedged call's success gives
    /// back nothing of its copies: each was extra load, won or not, and a
    /// budget that refunded them would not bound hedging.
    pub fn on_success(&mut self) {
        let last_failure = if self.hedged { None } else { self.last_failure.as_ref() };
        self.budget.deposit(self.attempt, last_failure);
    }

    /// Decides after the current attempt failed with `failure`, `elapsed`
    /// after attempt 1 started. The rules, in order: cancelled; permanent;
    /// the attempt cannot be sent again ([`set_repeatable`](Decision::set_repeatable));
    /// attempts exhausted (by `max_attempts` or the schedule's end); a hint
    /// of "never" or one the [`HintPolicy`] refuses (by default, longer than
    /// `max_hint`); the wait (the scheduled delay, or what the hint policy
    /// makes of the hint: by default at least the hint plus a small jitter)
    /// would end at or after the deadline; the budget refuses. Only then
    /// `Retry`, and the attempt number advances.
    ///
    /// An attempt cut at the deadline is a failure like another (a
    /// [`Failure::timeout`]): with no time left, the deadline rule stops it.
    #[inline]
    pub fn on_failure(&mut self, failure: &Failure, elapsed: Duration) -> Action {
        match self.decide(failure, elapsed) {
            Ok(wait) => {
                self.attempt = self.attempt.saturating_add(1);
                self.last_failure = Some(*failure);
                self.unsent = true;
                Action::Retry(wait)
            }
            Err(reason) => Action::Stop(reason),
        }
    }

    /// Decides when a client-side rate limiter asks the next attempt to wait
    /// `wait` for its token, `elapsed` after attempt 1 started:
    /// [`Action::Retry`] with the wait (then ask the limiter again), or
    /// [`StopReason::Deadline`] if it would end at or after the deadline,
    /// [`StopReason::TokenWaitTooLong`] if the time the attempt has waited
    /// for its token, by the clock (`elapsed` since its first wait), and
    /// this wait would add up to more than [`Limits::max_token_wait`], and
    /// [`StopReason::Cancelled`] once cancelled. A retry that stops here
    /// is never sent, so the budget gets back what it spent on it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use staggered::{Action, Decision, Limits, StopReason};
    ///
    /// let ms = Duration::from_millis;
    /// let limits = Limits::NONE.with_max_token_wait(Some(ms(500)));
    /// let mut decision = Decision::new(std::iter::empty(), limits);
    /// assert_eq!(decision.on_token_wait(ms(300), ms(0)), Action::Retry(ms(300)));
    /// // 300 ms waited, 300 more would make 600: shed.
    /// assert_eq!(decision.on_token_wait(ms(300), ms(300)), Action::Stop(StopReason::TokenWaitTooLong));
    ///
    /// // The time waited is the clock's: a wait of 300 ms that woke 150 ms
    /// // late leaves no room for another 100.
    /// let mut decision = Decision::new(std::iter::empty(), limits);
    /// assert_eq!(decision.on_token_wait(ms(300), ms(0)), Action::Retry(ms(300)));
    /// assert_eq!(decision.on_token_wait(ms(100), ms(450)), Action::Stop(StopReason::TokenWaitTooLong));
    /// ```
    pub fn on_token_wait(&mut self, wait: Duration, elapsed: Duration) -> Action {
        // Time waited by the clock, not the waits asked for: a sleeper that
        // wakes late (a timer's granularity, a busy runtime) or a herd of
        // waiters woken for one token must not stretch the bound.
        let began = *self.token_wait_began.get_or_insert(elapsed);
        let waited = elapsed.saturating_sub(began).saturating_add(wait);
        let reason = if self.cancelled {
            StopReason::Cancelled
        } else if self.ends_too_late(wait, elapsed) {
            StopReason::Deadline
        } else if self.limits.max_token_wait.is_some_and(|max| waited > max) {
            StopReason::TokenWaitTooLong
        } else {
            return Action::Retry(wait);
        };
        self.retry_not_sent();
        Action::Stop(reason)
    }

    /// Says whether the current attempt can be sent again: a request that
    /// is not safe to repeat, or whose body cannot be copied, cannot. If
    /// such an attempt fails with a retryable failure, the retrying stops
    /// with [`StopReason::NotRepeatable`].
    pub fn set_repeatable(&mut self, repeatable: bool) {
        self.repeatable = repeatable;
    }

    /// Records that the attempt [`attempt`](Decision::attempt) is being
    /// sent: the retry the last [`Action::Retry`] allowed is spent, and
    /// from now on only a success gives its cost back.
    pub fn on_send(&mut self) {
        self.unsent = false;
        self.token_wait_began = None;
    }

    /// The retry the last [`Action::Retry`] allowed will not be sent (the
    /// caller gave up during the wait, or dropped the operation): the
    /// budget takes back what it spent on it. Does nothing once that
    /// attempt was [sent](Decision::on_send), and nothing the second time.
    pub fn retry_not_sent(&mut self) {
        if core::mem::take(&mut self.unsent) {
            if let Some(failure) = self.last_failure.take() {
                self.budget.refund(&failure);
            }
        }
    }

    /// A hedged call, while its other copies are still running: may one more
    /// copy be sent now, `elapsed` after attempt 1 started? The rules, in
    /// order: cancelled; no more copies (`max_attempts`, or a server said
    /// never); no time left before the deadline; the budget refuses (a copy
    /// costs what a retry does). [`Action::Retry`] (with no wait): send it,
    /// and the attempt number advances.
    pub fn on_hedge(&mut self, elapsed: Duration) -> Action {
        match self.decide_hedge(elapsed) {
            Ok(()) => {
                self.last_failure = Some(Failure::TRANSIENT);
                self.hedged = true;
                self.unsent = true;
                self.attempt = self.attempt.saturating_add(1);
                Action::Retry(Duration::ZERO)
            }
            Err(reason) => Action::Stop(reason),
        }
    }

    fn decide_hedge(&mut self, elapsed: Duration) -> Result<(), StopReason> {
        if self.cancelled {
            return Err(StopReason::Cancelled);
        }
        if self.hedges_refused {
            return Err(StopReason::HintTooLong);
        }
        if matches!(self.limits.max_attempts, Some(max) if self.attempt >= max) {
            return Err(StopReason::AttemptsExhausted);
        }
        if self.ends_too_late(Duration::ZERO, elapsed) {
            return Err(StopReason::Deadline);
        }
        if !self.budget.withdraw(&Failure::TRANSIENT) {
            return Err(StopReason::BudgetExhausted);
        }
        Ok(())
    }

    /// A hedged call: decides after a copy failed with `failure`, `elapsed`
    /// after attempt 1 started. The rules of [`on_failure`](Decision::on_failure)
    /// but the budget's, with one difference: the next copy may go at once,
    /// not after the schedule's delay (after the server's hint, if it gave
    /// one); [`on_hedge`](Decision::on_hedge) then sends it, budget and all.
    /// A stop other than permanent or cancelled means no more copies: those
    /// still running may yet answer.
    pub fn on_hedged_failure(&mut self, failure: &Failure, elapsed: Duration) -> Action {
        if matches!(failure.hint, Some(Hint::Never)) {
            self.hedges_refused = true;
        }
        self.last_wait = None;
        if self.cancelled {
            return Action::Stop(StopReason::Cancelled);
        }
        if failure.kind == ErrorKind::Permanent {
            return Action::Stop(StopReason::Permanent);
        }
        self.budget.record_failure(failure);
        // Past the deadline every copy is cut: that, not the count or a
        // server's "never", is why the call ends.
        if self.ends_too_late(Duration::ZERO, elapsed) {
            return Action::Stop(StopReason::Deadline);
        }
        if self.hedges_refused {
            return Action::Stop(StopReason::HintTooLong);
        }
        if matches!(self.limits.max_attempts, Some(max) if self.attempt >= max) {
            return Action::Stop(StopReason::AttemptsExhausted);
        }
        let wait = match failure.hint {
            Some(Hint::After(hint)) => {
                let max_hint = self.limits.max_hint;
                let policy = self.limits.hint_policy;
                match policy.wait(hint, Duration::ZERO, max_hint, || self.jittered_hint(hint, elapsed)) {
                    Ok(wait) => wait,
                    Err(reason) => return Action::Stop(reason),
                }
            }
            _ => Duration::ZERO,
        };
        self.last_wait = Some(wait);
        if self.ends_too_late(wait, elapsed) {
            return Action::Stop(StopReason::Deadline);
        }
        Action::Retry(wait)
    }

    /// A hedged call: the copy [`on_hedge`](Decision::on_hedge) allowed was
    /// not sent after all (the rate limiter had no token yet): the budget
    /// takes back its cost, and the attempt number goes back.
    pub fn hedge_not_sent(&mut self) {
        if self.unsent {
            self.retry_not_sent();
            self.attempt = self.attempt.saturating_sub(1).max(1);
        }
    }

    fn ends_too_late(&self, wait: Duration, elapsed: Duration) -> bool {
        // An attempt that would start exactly at the deadline would have
        // no time to run: that is a stop too.
        self.limits
            .deadline
            .is_some_and(|deadline| elapsed.checked_add(wait).is_none_or(|end| end >= deadline))
    }

    fn decide(&mut self, failure: &Failure, elapsed: Duration) -> Result<Duration, StopReason> {
        self.last_wait = None;
        if self.cancelled {
            return Err(StopReason::Cancelled);
        }
        if failure.kind == ErrorKind::Permanent {
            return Err(StopReason::Permanent);
        }
        self.budget.record_failure(failure);
        if !self.repeatable {
            return Err(StopReason::NotRepeatable);
        }
        if matches!(self.limits.max_attempts, Some(max) if self.attempt >= max) {
            return Err(StopReason::AttemptsExhausted);
        }
        let scheduled = S::next_delay(&mut self.delays, failure).ok_or(StopReason::AttemptsExhausted)?;
        let hint_policy = self.limits.hint_policy;
        let wait = match failure.hint {
            None => scheduled,
            Some(Hint::Never) => return Err(StopReason::HintTooLong),
            Some(Hint::After(hint)) => {
                let max_hint = self.limits.max_hint;
                hint_policy.wait(hint, scheduled, max_hint, || self.jittered_hint(hint, elapsed))?
            }
        };
        self.last_wait = Some(wait);
        if self.ends_too_late(wait, elapsed) {
            return Err(StopReason::Deadline);
        }
        if !self.budget.withdraw(failure) {
            return Err(StopReason::BudgetExhausted);
        }
        if failure.hint.is_some() && hint_policy.restarts() && S::restartable() {
            S::restart(&mut self.delays);
        }
        Ok(wait)
    }

    /// `hint + U[0, hint * hint_jitter]`, never below the hint and never past
    /// `max_hint` (the jitter is what gets cut, not the hint).
    fn jittered_hint(&mut self, hint: Duration, elapsed: Duration) -> Duration {
        let spread = to_nanos(hint) * self.limits.hint_jitter;
        if spread <= 0.0 {
            return hint;
        }
        let rng = self.hint_rng.get_or_insert_with(|| hint_rng(elapsed));
        let jitter = from_nanos(spread * rng.next_f64());
        let wait = hint.saturating_add(jitter);
        match self.limits.max_hint {
            Some(max) => wait.min(max.max(hint)),
            None => wait,
        }
    }
}

impl<S: Schedule, B: Clone> Clone for Decision<S, B>
where
    S::Delays: Clone,
{
    fn clone(&self) -> Self {
        Decision {
            delays: self.delays.clone(),
            budget: self.budget.clone(),
            limits: self.limits,
            attempt: self.attempt,
            hint_rng: self.hint_rng.clone(),
            cancelled: self.cancelled,
            last_failure: self.last_failure,
            last_wait: self.last_wait,
            unsent: self.unsent,
            repeatable: self.repeatable,
            hedges_refused: self.hedges_refused,
            hedged: self.hedged,
            token_wait_began: self.token_wait_began,
        }
    }
}

impl<S: Schedule, B: fmt::Debug> fmt::Debug for Decision<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decision")
            .field("attempt", &self.attempt)
            .field("limits", &self.limits)
            .field("budget", &self.budget)
            .field("cancelled", &self.cancelled)
            .finish_non_exhaustive()
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

    /// A budget that records the `last_failure` each deposit is given, and
    /// what was refunded.
    #[derive(Default)]
    struct Deposits {
        deposited: Cell<Option<Option<Failure>>>,
        refunded: Cell<u32>,
    }
    impl Budget for Deposits {
        fn withdraw(&self, _: &Failure) -> bool {
            true
        }
        fn deposit(&self, _: u32, last_failure: Option<&Failure>) {
            self.deposited.set(Some(last_failure.copied()));
        }
        fn refund(&self, _: &Failure) {
            self.refunded.set(self.refunded.get() + 1);
        }
    }

    #[test]
    fn the_last_failure_reaches_the_budget() {
        let throttled = Failure::THROTTLED;
        let budget = Deposits::default();
        let mut d = Decision::with_budget(ones(), Limits::NONE, &budget);
        d.on_failure(&Failure::TRANSIENT, Duration::ZERO);
        d.on_failure(&throttled, Duration::ZERO);
        d.on_success();
        assert_eq!(budget.deposited.get(), Some(Some(throttled)), "the failure whose retry succeeded");
    }

    #[test]
    fn a_retry_never_sent_is_refunded_once() {
        let budget = Deposits::default();
        let mut d = Decision::with_budget(ones(), Limits::NONE, &budget);
        d.retry_not_sent();
        assert_eq!(budget.refunded.get(), 0, "nothing was allowed yet");
        assert!(matches!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(_)));
        d.on_send();
        d.cancel();
        assert_eq!(budget.refunded.get(), 0, "the retry was sent: only a success gives it back");
        let mut d = Decision::with_budget(ones(), Limits::NONE, &budget);
        assert!(matches!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(_)));
        d.cancel();
        d.retry_not_sent();
        assert_eq!(budget.refunded.get(), 1, "cancelled during the wait: refunded, once");
    }

    #[test]
    fn a_token_wait_past_the_deadline_stops_and_refunds() {
        let budget = Deposits::default();
        let limits = Limits::NONE.with_deadline(Some(Duration::from_secs(3)));
        let mut d = Decision::with_budget(ones(), limits, &budget);
        assert_eq!(d.on_failure(&Failure::TRANSIENT, Duration::ZERO), Action::Retry(SEC));
        assert_eq!(d.on_token_wait(SEC, SEC), Action::Retry(SEC));
        assert_eq!(budget.refunded.get(), 0);
        assert_eq!(d.on_token_wait(SEC, 2 * SEC), Action::Stop(StopReason::Deadline));
        assert_eq!(budget.refunded.get(), 1);
        assert_eq!(d.on_token_wait(Duration::MAX, Duration::ZERO), Action::Stop(StopReason::Deadline));
        assert_eq!(budget.refunded.get(), 1, "refunded once");
        let mut d = Decision::new(ones(), Limits::NONE);
        assert_eq!(d.on_token_wait(Duration::MAX, Duration::MAX), Action::Retry(Duration::MAX));
        d.cancel();
        assert_eq!(d.on_token_wait(SEC, SEC), Action::Stop(StopReason::Cancelled));
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
