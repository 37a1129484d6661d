//! The retry decision under arbitrary sequences of failures (with server
//! hints), attempt times, rate-limiter token waits, sends, cancels,
//! dropped retries and successes, against a schedule, limits and a token
//! bucket of arbitrary valid parameters, the bucket shared with another
//! client's withdrawals, refunds and deposits.
//!
//! What the property tests assert, on every step: no wait above the
//! schedule's ceiling except an honoured hint (and then within the hint
//! policy's bound), never past the deadline, attempts as reported, a stop
//! for a reason that holds; and the bucket: its level always what its
//! operations add up to (never below zero, never above capacity), its
//! allowed and refused counts too, and a retry refunded once at most, only
//! when it was never sent.

#![no_main]

use std::cell::{Cell, RefCell};
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use staggered::{
    Action, Backoff, Budget, CapMode, Decision, ErrorKind, Failure, Hint, HintPolicy, Limits, StopReason,
    Strategy, TokenBucket,
};

fuzz_target!(|scenario: Scenario| run(scenario));

#[derive(Arbitrary, Debug)]
struct Scenario {
    schedule: ScheduleParams,
    limits: LimitParams,
    bucket: BucketParams,
    steps: Vec<Step>,
}

/// A duration, from none to `Duration::MAX`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Time {
    Zero,
    Millis(u16),
    Secs(u16),
    Days(u16),
    Max,
}

impl Time {
    fn get(self) -> Duration {
        match self {
            Time::Zero => Duration::ZERO,
            Time::Millis(n) => Duration::from_millis(n.into()),
            Time::Secs(n) => Duration::from_secs(n.into()),
            Time::Days(n) => Duration::from_secs(u64::from(n) * 86_400),
            Time::Max => Duration::MAX,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct ScheduleParams {
    strategy: u8,
    base: Time,
    /// In hundredths: 100 is 1, and below is refused.
    multiplier: u16,
    max_delay: Time,
    /// In hundredths: above 100 is refused.
    factor: Option<u8>,
    interval_cap: bool,
    /// `None` for no limit; 0 is refused.
    max_attempts: Option<u8>,
    deadline: Option<Time>,
    granularity: Option<Time>,
    seed: u64,
}

/// A limit the policy takes from the schedule, leaves out, or sets.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Override<T> {
    FromSchedule,
    Without,
    With(T),
}

impl<T> Override<T> {
    /// The limit: the schedule's, none, or the value set, as `value` makes it.
    fn apply<U>(self, from_schedule: Option<U>, value: impl FnOnce(T) -> U) -> Option<U> {
        match self {
            Override::FromSchedule => from_schedule,
            Override::Without => None,
            Override::With(set) => Some(value(set)),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct LimitParams {
    max_attempts: Override<u8>,
    deadline: Override<Time>,
    max_hint: Override<Time>,
    /// In hundredths of the hint.
    hint_jitter: u8,
    hint_policy: PolicyArg,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum PolicyArg {
    AtLeast,
    Bounded(Time),
    Capped,
    Pushback,
}

#[derive(Arbitrary, Debug)]
struct BucketParams {
    capacity: u16,
    retry_cost: u8,
    timeout_cost: u8,
    throttled_cost: u8,
    success_refund: u8,
    /// In thousandths of a token; 0 is refused.
    success_reward: Option<u16>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Kind {
    Transient,
    Throttled,
    Permanent,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct FailureArg {
    kind: Kind,
    timed_out: bool,
    hint: Option<HintArg>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum HintArg {
    Never,
    After(Time),
}

impl FailureArg {
    fn get(self) -> Failure {
        let failure = if self.timed_out {
            Failure::timeout()
        } else {
            Failure::new(match self.kind {
                Kind::Transient => ErrorKind::Transient,
                Kind::Throttled => ErrorKind::Throttled,
                Kind::Permanent => ErrorKind::Permanent,
            })
        };
        failure.with_optional_hint(self.hint.map(|hint| match hint {
            HintArg::Never => Hint::Never,
            HintArg::After(wait) => Hint::After(wait.get()),
        }))
    }
}

#[derive(Arbitrary, Debug)]
enum Step {
    /// The current attempt fails after running this long.
    Fail(FailureArg, Time),
    /// The next attempt waits this long for a rate-limiter token.
    TokenWait(Time),
    /// The next attempt is sent: the retry allowed is spent.
    Send,
    /// The caller cancels.
    Cancel,
    /// The retry allowed will not be sent (the caller dropped the operation).
    NotSent,
    /// The current attempt succeeds.
    Succeed,
    /// Whether the current attempt may be sent again.
    Repeatable(bool),
    /// Another client of the same bucket.
    Other(OtherStep),
    /// The operation is dropped and another starts.
    NewOperation,
}

#[derive(Arbitrary, Debug)]
enum OtherStep {
    Withdraw(FailureArg),
    /// Refunds the other client's latest allowed withdrawal, if any.
    Refund,
    Deposit(u8, Option<FailureArg>),
    Acquire(u8),
    Release(u8),
}

fn run(scenario: Scenario) {
    let Some(backoff) = backoff(&scenario.schedule) else { return };
    let limits = limits(&backoff, &scenario.limits);
    let Some(bucket) = bucket(&scenario.bucket) else { return };
    let ledger = Ledger::new(&bucket, &scenario.bucket);
    let mut others: Vec<Failure> = Vec::new();
    let mut op = Operation::new(&backoff, limits, &ledger);
    for step in scenario.steps {
        match step {
            Step::Fail(failure, took) => {
                if op.over {
                    op = Operation::new(&backoff, limits, &ledger);
                }
                op.fail(failure.get(), took.get(), &backoff);
            }
            Step::TokenWait(wait) => op.token_wait(wait.get()),
            Step::Send => op.send(),
            Step::Cancel => {
                let refunds = ledger.refunds.get();
                op.decision.cancel();
                op.cancelled = true;
                op.expect_refund(refunds);
            }
            Step::NotSent => {
                let refunds = ledger.refunds.get();
                op.decision.retry_not_sent();
                op.expect_refund(refunds);
                op.over = true;
            }
            Step::Succeed => {
                if op.over {
                    op = Operation::new(&backoff, limits, &ledger);
                }
                op.succeed();
            }
            Step::Repeatable(repeatable) => {
                op.decision.set_repeatable(repeatable);
                op.repeatable = repeatable;
            }
            Step::Other(other) => match other {
                OtherStep::Withdraw(failure) => {
                    let failure = failure.get();
                    if ledger.withdraw(&failure) {
                        others.push(failure);
                    }
                }
                OtherStep::Refund => {
                    if let Some(failure) = others.pop() {
                        ledger.model.borrow_mut().refund(&failure);
                        bucket.refund(&failure);
                    }
                }
                OtherStep::Deposit(attempt, last) => {
                    ledger.deposit(attempt.into(), last.map(FailureArg::get).as_ref())
                }
                OtherStep::Acquire(n) => {
                    let expected = ledger.model.borrow_mut().acquire(n.into());
                    assert_eq!(bucket.try_acquire(n.into()), expected, "try_acquire({n})");
                }
                OtherStep::Release(n) => {
                    ledger.model.borrow_mut().release(n.into());
                    bucket.release(n.into());
                }
            },
            Step::NewOperation => {
                // A driver dropped mid-wait gives the retry back.
                let refunds = ledger.refunds.get();
                op.decision.retry_not_sent();
                op.expect_refund(refunds);
                op = Operation::new(&backoff, limits, &ledger);
            }
        }
        assert_eq!(op.decision.attempt(), op.retries.saturating_add(1), "attempts as reported");
        ledger.check();
    }
}

fn backoff(params: &ScheduleParams) -> Option<Backoff> {
    let strategy = Strategy::ALL[usize::from(params.strategy) % Strategy::ALL.len()];
    let mut builder = Backoff::builder(strategy)
        .with_base(params.base.get())
        .with_multiplier(f64::from(params.multiplier) / 100.0)
        .with_max_delay(params.max_delay.get())
        .with_cap_mode(if params.interval_cap { CapMode::Interval } else { CapMode::Delay })
        .with_seed(params.seed);
    if let Some(factor) = params.factor {
        builder = builder.with_factor(f64::from(factor) / 100.0);
    }
    builder = match params.max_attempts {
        Some(n) => builder.with_max_attempts(n.into()),
        None => builder.without_max_attempts(),
    };
    if let Some(deadline) = params.deadline {
        builder = builder.with_deadline(deadline.get());
    }
    if let Some(step) = params.granularity {
        builder = builder.with_granularity(step.get());
    }
    // Parameters out of range are refused by name, and give no schedule.
    builder.build().inspect_err(|error| assert!(!error.field().name().is_empty(), "{error}")).ok()
}

fn limits(backoff: &Backoff, params: &LimitParams) -> Limits {
    let schedule = Limits::for_schedule(backoff);
    let policy = match params.hint_policy {
        PolicyArg::AtLeast => HintPolicy::AtLeast,
        PolicyArg::Bounded(extra) => HintPolicy::Bounded { extra: extra.get() },
        PolicyArg::Capped => HintPolicy::Capped,
        PolicyArg::Pushback => HintPolicy::Pushback,
    };
    schedule
        .with_max_attempts(params.max_attempts.apply(schedule.max_attempts, u32::from))
        .with_deadline(params.deadline.apply(schedule.deadline, Time::get))
        .with_max_hint(params.max_hint.apply(schedule.max_hint, Time::get))
        .with_hint_jitter(f64::from(params.hint_jitter) / 100.0)
        .with_hint_policy(policy)
}

fn bucket(params: &BucketParams) -> Option<TokenBucket> {
    let mut builder = TokenBucket::builder()
        .with_capacity(params.capacity.into())
        .with_retry_cost(params.retry_cost.into())
        .with_timeout_cost(params.timeout_cost.into())
        .with_throttled_cost(params.throttled_cost.into())
        .with_success_refund(params.success_refund.into());
    if let Some(reward) = params.success_reward {
        match builder.with_success_reward(f64::from(reward) / 1000.0) {
            Ok(rewarded) => builder = rewarded,
            Err(error) => {
                assert_eq!((reward, error.field().name()), (0, "success_reward"), "{error}");
                return None;
            }
        }
    }
    Some(builder.build())
}

/// The bucket's arithmetic, in thousandths of a token, done plainly.
#[derive(Debug)]
struct Model {
    milli: u64,
    capacity: u64,
    retry: u64,
    timeout: u64,
    throttled: u64,
    refund: u64,
    reward: Option<u64>,
    allowed: u64,
    refused: u64,
}

impl Model {
    fn cost(&self, failure: &Failure) -> u64 {
        if failure.timed_out {
            self.timeout
        } else if failure.kind == ErrorKind::Throttled {
            self.throttled
        } else {
            self.retry
        }
    }

    fn acquire(&mut self, tokens: u64) -> bool {
        let taken = self.milli >= tokens * 1000;
        if taken {
            self.milli -= tokens * 1000;
        }
        taken
    }

    fn add(&mut self, milli: u64) {
        self.milli = (self.milli + milli).min(self.capacity);
    }

    fn release(&mut self, tokens: u64) {
        self.add(tokens * 1000);
    }

    fn withdraw(&mut self, failure: &Failure) -> bool {
        let allowed = self.acquire(self.cost(failure));
        if allowed {
            self.allowed += 1;
        } else {
            self.refused += 1;
        }
        allowed
    }

    fn refund(&mut self, failure: &Failure) {
        self.release(self.cost(failure));
        self.allowed = self.allowed.saturating_sub(1);
    }

    fn deposit(&mut self, last_failure: Option<&Failure>) {
        match (self.reward, last_failure) {
            (Some(reward), _) => self.add(reward),
            (None, Some(failure)) => self.release(self.cost(failure)),
            (None, None) => self.release(self.refund),
        }
    }
}

/// The bucket as the decisions see it: every call goes to the bucket and
/// to the model, and the refunds and deposits are counted, so that each
/// step can be checked against what it should have done.
struct Ledger<'a> {
    bucket: &'a TokenBucket,
    model: RefCell<Model>,
    refunds: Cell<u32>,
    last_deposit: Cell<Option<Option<Failure>>>,
}

impl<'a> Ledger<'a> {
    fn new(bucket: &'a TokenBucket, params: &BucketParams) -> Self {
        let capacity = u64::from(params.capacity) * 1000;
        let model = Model {
            milli: capacity,
            capacity,
            retry: params.retry_cost.into(),
            timeout: params.timeout_cost.into(),
            throttled: params.throttled_cost.into(),
            refund: params.success_refund.into(),
            reward: params.success_reward.map(u64::from),
            allowed: 0,
            refused: 0,
        };
        Ledger { bucket, model: RefCell::new(model), refunds: Cell::new(0), last_deposit: Cell::new(None) }
    }

    /// The bucket's level and counts are the model's, within bounds.
    fn check(&self) {
        let model = self.model.borrow();
        let metrics = self.bucket.metrics().expect("a token bucket keeps metrics");
        assert_eq!(metrics.level, model.milli as f64 / 1000.0, "{model:?}");
        assert!(metrics.level >= 0.0 && Some(metrics.level) <= metrics.capacity, "{metrics:?}");
        assert_eq!((metrics.allowed, metrics.refused), (model.allowed, model.refused), "{model:?}");
    }
}

impl Budget for Ledger<'_> {
    fn withdraw(&self, failure: &Failure) -> bool {
        let allowed = self.bucket.withdraw(failure);
        assert_eq!(allowed, self.model.borrow_mut().withdraw(failure), "withdraw({failure:?})");
        allowed
    }

    fn deposit(&self, attempt: u32, last_failure: Option<&Failure>) {
        self.bucket.deposit(attempt, last_failure);
        self.model.borrow_mut().deposit(last_failure);
        self.last_deposit.set(Some(last_failure.copied()));
    }

    fn refund(&self, failure: &Failure) {
        self.bucket.refund(failure);
        self.model.borrow_mut().refund(failure);
        self.refunds.set(self.refunds.get() + 1);
    }

    fn metrics(&self) -> Option<staggered::BudgetMetrics> {
        self.bucket.metrics()
    }
}

/// One operation's decision, and what the harness knows it should do.
struct Operation<'a> {
    decision: Decision<Backoff, &'a Ledger<'a>>,
    limits: Limits,
    elapsed: Duration,
    retries: u32,
    /// A retry was allowed and not sent yet.
    unsent: bool,
    /// The failure of the last retry allowed, until it is refunded.
    last_retried: Option<Failure>,
    cancelled: bool,
    repeatable: bool,
    /// Stopped, succeeded or dropped.
    over: bool,
    ledger: &'a Ledger<'a>,
}

impl<'a> Operation<'a> {
    fn new(backoff: &Backoff, limits: Limits, ledger: &'a Ledger<'a>) -> Self {
        Operation {
            decision: Decision::for_schedule(backoff, limits, ledger),
            limits,
            elapsed: Duration::ZERO,
            retries: 0,
            unsent: false,
            last_retried: None,
            cancelled: false,
            repeatable: true,
            over: false,
            ledger,
        }
    }

    /// One refund since `refunds` if a retry was allowed and not sent, none
    /// otherwise; the retry is then given back for good.
    fn expect_refund(&mut self, refunds: u32) {
        let expected = refunds + u32::from(self.unsent);
        assert_eq!(self.ledger.refunds.get(), expected, "refunded when {} unsent", u32::from(self.unsent));
        if self.unsent {
            self.last_retried = None;
        }
        self.unsent = false;
    }

    fn send(&mut self) {
        self.decision.on_send();
        self.unsent = false;
    }

    fn succeed(&mut self) {
        // An attempt that succeeded was sent.
        self.send();
        self.ledger.last_deposit.set(None);
        self.decision.on_success();
        assert_eq!(self.ledger.last_deposit.get(), Some(self.last_retried), "what the success gives back");
        self.over = true;
    }

    fn fail(&mut self, failure: Failure, took: Duration, backoff: &Backoff) {
        // An attempt that failed was sent.
        self.send();
        self.elapsed = self.elapsed.saturating_add(took);
        let attempt = self.decision.attempt();
        let (refunds, refused) = (self.ledger.refunds.get(), self.ledger.model.borrow().refused);
        let action = self.decision.on_failure(&failure, self.elapsed);
        assert_eq!(self.ledger.refunds.get(), refunds, "a failure refunds nothing");
        let limit = self.limits.max_attempts.map(|max| max.max(1));
        match action {
            Action::Retry(wait) => {
                assert!(!self.cancelled && self.repeatable && failure.kind != ErrorKind::Permanent);
                assert!(limit.is_none_or(|max| attempt < max), "attempt {attempt} of {limit:?} retried");
                assert!(failure.hint != Some(Hint::Never));
                self.check_wait(wait, &failure, backoff);
                self.retries = self.retries.saturating_add(1);
                self.unsent = true;
                self.last_retried = Some(failure);
                self.elapsed = self.elapsed.saturating_add(wait);
            }
            Action::Stop(reason) => {
                assert_eq!(self.decision.attempt(), attempt, "a stop does not count an attempt");
                self.check_stop(reason, &failure, attempt, refused, backoff);
                self.over = true;
            }
        }
    }

    /// The wait is the schedule's (within its ceiling) or an honoured hint's
    /// (within the policy's bound), and ends before the deadline.
    fn check_wait(&self, wait: Duration, failure: &Failure, backoff: &Backoff) {
        let ceiling = backoff.delay_ceiling();
        if let Some(deadline) = self.limits.deadline {
            let end = self.elapsed.checked_add(wait);
            assert!(
                end.is_some_and(|end| end < deadline),
                "{wait:?} after {:?} passes {deadline:?}",
                self.elapsed
            );
        }
        let max_hint = self.limits.max_hint;
        match failure.hint {
            None => assert!(wait <= ceiling, "{wait:?} above the ceiling {ceiling:?}"),
            Some(Hint::Never) => unreachable!("checked before"),
            Some(Hint::After(hint)) => match self.limits.hint_policy {
                HintPolicy::AtLeast => {
                    assert!(wait >= hint, "{wait:?} below the hint {hint:?}");
                    match max_hint {
                        Some(max) => {
                            assert!(hint <= max, "a hint of {hint:?} above {max:?} honoured");
                            assert!(wait <= max.max(ceiling), "{wait:?} above {max:?} and {ceiling:?}");
                        }
                        None => {
                            let most = hint.as_secs_f64() * (1.0 + self.limits.hint_jitter) + 1e-9;
                            assert!(wait <= ceiling || wait.as_secs_f64() <= most, "{wait:?} for {hint:?}");
                        }
                    }
                }
                HintPolicy::Bounded { extra } => {
                    assert!(wait <= ceiling.saturating_add(extra), "{wait:?} above {ceiling:?} + {extra:?}");
                }
                HintPolicy::Capped => assert_eq!(wait, max_hint.map_or(hint, |max| hint.min(max))),
                HintPolicy::Pushback => {
                    assert_eq!(wait, hint);
                    assert!(max_hint.is_none_or(|max| hint <= max), "{hint:?} above {max_hint:?}");
                }
                _ => unreachable!("a policy this target does not set"),
            },
        }
    }

    /// The reason holds, and the earlier rules did not apply.
    fn check_stop(
        &self,
        reason: StopReason,
        failure: &Failure,
        attempt: u32,
        refused: u64,
        backoff: &Backoff,
    ) {
        assert_eq!(reason == StopReason::Cancelled, self.cancelled, "{reason:?}");
        if self.cancelled {
            return;
        }
        let permanent = failure.kind == ErrorKind::Permanent;
        assert_eq!(reason == StopReason::Permanent, permanent, "{reason:?}");
        if permanent {
            return;
        }
        assert_eq!(reason == StopReason::NotRepeatable, !self.repeatable, "{reason:?}");
        let limit = self.limits.max_attempts.map(|max| max.max(1));
        match reason {
            StopReason::NotRepeatable => {}
            StopReason::AttemptsExhausted => {
                let ended = backoff.max_attempts().is_some_and(|max| attempt >= max);
                assert!(limit.is_some_and(|max| attempt >= max) || ended, "attempt {attempt} of {limit:?}");
            }
            StopReason::HintTooLong => {
                let too_long = match failure.hint {
                    Some(Hint::Never) => true,
                    Some(Hint::After(hint)) => {
                        matches!(self.limits.hint_policy, HintPolicy::AtLeast | HintPolicy::Pushback)
                            && self.limits.max_hint.is_some_and(|max| hint > max)
                    }
                    None => false,
                };
                assert!(too_long, "{failure:?} refused");
            }
            StopReason::Deadline => {
                let deadline = self.limits.deadline.expect("a deadline stop with a deadline");
                let wait = self.decision.last_wait().expect("a deadline stop knows its wait");
                let end = self.elapsed.checked_add(wait);
                assert!(end.is_none_or(|end| end >= deadline), "{wait:?} after {:?} fits", self.elapsed);
            }
            StopReason::BudgetExhausted => {
                assert_eq!(self.ledger.model.borrow().refused, refused + 1, "the bucket refused");
            }
            other => panic!("stopped for {other:?}"),
        }
    }

    fn token_wait(&mut self, wait: Duration) {
        let refunds = self.ledger.refunds.get();
        match self.decision.on_token_wait(wait, self.elapsed) {
            Action::Retry(given) => {
                assert_eq!(given, wait);
                assert!(!self.cancelled);
                if let Some(deadline) = self.limits.deadline {
                    assert!(self.elapsed.checked_add(wait).is_some_and(|end| end < deadline));
                }
                assert_eq!(self.ledger.refunds.get(), refunds, "a token wait refunds nothing");
                self.elapsed = self.elapsed.saturating_add(wait);
            }
            Action::Stop(reason) => {
                if self.cancelled {
                    assert_eq!(reason, StopReason::Cancelled);
                } else {
                    assert_eq!(reason, StopReason::Deadline);
                    let deadline = self.limits.deadline.expect("a deadline stop with a deadline");
                    assert!(self.elapsed.checked_add(wait).is_none_or(|end| end >= deadline));
                }
                self.expect_refund(refunds);
                self.over = true;
            }
        }
    }
}
