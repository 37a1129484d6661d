//! The `metrics` integration's side of the drivers: the keys a policy
//! records under, built once per policy, and what each event of the retry
//! loop records (see [`crate::metrics`] for the names). Without the
//! feature everything here is empty and compiled out.

use crate::budget::Budget;
use crate::retry::event::{GiveUpEvent, RetryEvent};
use crate::retry::limit::PolicyLimiter;

/// Whether a policy records metrics, and under which keys: static ones
/// when it has no operation name, its own (with the `staggered.operation`
/// label) when it has one. Off unless the policy asks, so that enabling the
/// feature (perhaps through another crate) costs the policies that did not
/// ask nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Instruments {
    #[cfg(feature = "metrics")]
    keys: Keyed,
}

#[cfg(feature = "metrics")]
#[derive(Debug, Clone, Default)]
enum Keyed {
    #[default]
    Off,
    Unnamed,
    Named(std::sync::Arc<keys::Keys>),
}

impl Instruments {
    /// Records nothing.
    pub(crate) const DEFAULT: Instruments = Instruments {
        #[cfg(feature = "metrics")]
        keys: Keyed::Off,
    };
}

#[cfg(not(feature = "metrics"))]
impl Instruments {
    #[inline]
    pub(crate) fn first_try_success(&self) {}

    pub(crate) fn success_after_retry<B: Budget + ?Sized>(&self, _: &B, _: &PolicyLimiter) {}

    pub(crate) fn retry<E: ?Sized>(&self, _: &RetryEvent<'_, E>, _: &PolicyLimiter) {}

    pub(crate) fn give_up<E: ?Sized>(&self, _: &GiveUpEvent<'_, E>, _: &PolicyLimiter) {}

    #[cfg(feature = "std")]
    pub(crate) fn hedge(&self) {}

    #[cfg(feature = "std")]
    pub(crate) fn hedge_won(&self, _: u32) {}
}

#[cfg(feature = "metrics")]
impl Instruments {
    /// Records, without an operation name.
    pub(crate) const UNNAMED: Instruments = Instruments { keys: Keyed::Unnamed };

    /// Records, under keys labelled with the operation's name `name`.
    pub(crate) fn named(name: metrics::SharedString) -> Self {
        Instruments { keys: Keyed::Named(std::sync::Arc::new(keys::Keys::named(name))) }
    }

    /// Whether the policy records metrics.
    pub(crate) const fn is_on(&self) -> bool {
        !matches!(self.keys, Keyed::Off)
    }

    /// The keys, if the policy records.
    #[inline]
    fn keys(&self) -> Option<&keys::Keys> {
        match &self.keys {
            Keyed::Off => None,
            Keyed::Unnamed => Some(&keys::UNNAMED),
            Keyed::Named(keys) => Some(keys),
        }
    }

    /// Attempt 1 succeeded: the one thing the success path records, in one
    /// look-up of the recorder.
    #[inline]
    pub(crate) fn first_try_success(&self) {
        let Some(keys) = self.keys() else { return };
        metrics::with_recorder(|recorder| {
            recorder.register_counter(&keys.operations, &crate::metrics::METADATA).increment(1);
            recorder.register_counter(&keys.first_try_successes, &crate::metrics::METADATA).increment(1);
        });
    }

    /// A later attempt succeeded; `budget` has just been told. `limiter`:
    /// the policy's, whose gauges are set with the budget's (its snapshot is
    /// taken only by a policy that records, as it takes the limiter's lock).
    #[inline]
    pub(crate) fn success_after_retry<B: Budget + ?Sized>(&self, budget: &B, limiter: &PolicyLimiter) {
        if let Some(keys) = self.keys() {
            keys.success_after_retry(budget.metrics(), limiter.metrics());
        }
    }

    /// A retry was decided.
    #[inline]
    pub(crate) fn retry<E: ?Sized>(&self, event: &RetryEvent<'_, E>, limiter: &PolicyLimiter) {
        if let Some(keys) = self.keys() {
            keys.retry(event.failure.kind, event.delay, event.budget, limiter.metrics());
        }
    }

    /// The loop gave up.
    #[inline]
    pub(crate) fn give_up<E: ?Sized>(&self, event: &GiveUpEvent<'_, E>, limiter: &PolicyLimiter) {
        if let Some(keys) = self.keys() {
            keys.give_up(event.reason, event.budget, limiter.metrics());
        }
    }

    /// A hedged call sent one more copy.
    pub(crate) fn hedge(&self) {
        if let Some(keys) = self.keys() {
            metrics::with_recorder(|recorder| {
                recorder.register_counter(&keys.hedges, &crate::metrics::METADATA).increment(1);
            });
        }
    }

    /// A hedged call succeeded with its copy `winner` (1 to 5).
    pub(crate) fn hedge_won(&self, winner: u32) {
        if let Some(keys) = self.keys() {
            let index = (winner.clamp(1, keys::COPIES) - 1) as usize;
            metrics::with_recorder(|recorder| {
                recorder.register_counter(&keys.hedge_wins[index], &crate::metrics::METADATA).increment(1);
            });
        }
    }
}

/// Every key a policy records under, built before any operation runs so
/// that recording never allocates.
#[cfg(feature = "metrics")]
mod keys {
    use core::time::Duration;

    use metrics::{Key, Label, SharedString};

    use crate::budget::BudgetMetrics;
    use crate::classify::ErrorKind;
    use crate::limiter::LimiterMetrics;
    use crate::metrics::{
        ATTEMPT, BUDGET_CAPACITY, BUDGET_LEVEL, ERROR_TYPE, FIRST_TRY_SUCCESSES, GIVE_UPS, HEDGES,
        HEDGE_WINS, LIMITER_ENABLED, LIMITER_MEASURED_RATE, LIMITER_RATE, METADATA, OPERATION, OPERATIONS,
        RETRIES, RETRY_DELAY, STOP_REASON,
    };
    use crate::retry::hedging::MAX_HEDGED_ATTEMPTS;

    /// The copies a hedged call may send, each with its win counter.
    pub(super) const COPIES: u32 = MAX_HEDGED_ATTEMPTS;
    use crate::StopReason;

    const KINDS: [ErrorKind; 3] = [ErrorKind::Transient, ErrorKind::Throttled, ErrorKind::Permanent];
    const REASONS: [StopReason; 8] = [
        StopReason::AttemptsExhausted,
        StopReason::Permanent,
        StopReason::Deadline,
        StopReason::HintTooLong,
        StopReason::BudgetExhausted,
        StopReason::Cancelled,
        StopReason::NotRepeatable,
        StopReason::TokenWaitTooLong,
    ];

    pub(super) const fn kind_index(kind: ErrorKind) -> usize {
        match kind {
            ErrorKind::Transient => 0,
            ErrorKind::Throttled => 1,
            ErrorKind::Permanent => 2,
        }
    }

    pub(super) const fn reason_index(reason: StopReason) -> usize {
        match reason {
            StopReason::AttemptsExhausted => 0,
            StopReason::Permanent => 1,
            StopReason::Deadline => 2,
            StopReason::HintTooLong => 3,
            StopReason::BudgetExhausted => 4,
            StopReason::Cancelled => 5,
            StopReason::NotRepeatable => 6,
            StopReason::TokenWaitTooLong => 7,
        }
    }

    #[derive(Debug)]
    pub(super) struct Keys {
        pub(super) operations: Key,
        pub(super) first_try_successes: Key,
        pub(super) retries: [Key; 3],
        pub(super) delays: [Key; 3],
        pub(super) give_ups: [Key; 8],
        pub(super) hedges: Key,
        pub(super) hedge_wins: [Key; COPIES as usize],
        budget_level: Key,
        budget_capacity: Key,
        limiter_enabled: Key,
        limiter_rate: Key,
        limiter_measured_rate: Key,
    }

    /// The label of each kind and reason, in the order of the indices.
    static KIND_LABELS: [[Label; 1]; 3] = [
        [Label::from_static_parts(ERROR_TYPE, KINDS[0].name())],
        [Label::from_static_parts(ERROR_TYPE, KINDS[1].name())],
        [Label::from_static_parts(ERROR_TYPE, KINDS[2].name())],
    ];
    static REASON_LABELS: [[Label; 1]; 8] = [
        [Label::from_static_parts(STOP_REASON, REASONS[0].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[1].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[2].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[3].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[4].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[5].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[6].name())],
        [Label::from_static_parts(STOP_REASON, REASONS[7].name())],
    ];
    static ATTEMPT_LABELS: [[Label; 1]; COPIES as usize] = [
        [Label::from_static_parts(ATTEMPT, "1")],
        [Label::from_static_parts(ATTEMPT, "2")],
        [Label::from_static_parts(ATTEMPT, "3")],
        [Label::from_static_parts(ATTEMPT, "4")],
        [Label::from_static_parts(ATTEMPT, "5")],
    ];

    /// The keys of a policy without an operation name: no label but the
    /// kind or reason, all static.
    pub(super) static UNNAMED: Keys = Keys {
        operations: Key::from_static_name(OPERATIONS),
        first_try_successes: Key::from_static_name(FIRST_TRY_SUCCESSES),
        retries: [
            Key::from_static_parts(RETRIES, &KIND_LABELS[0]),
            Key::from_static_parts(RETRIES, &KIND_LABELS[1]),
            Key::from_static_parts(RETRIES, &KIND_LABELS[2]),
        ],
        delays: [
            Key::from_static_parts(RETRY_DELAY, &KIND_LABELS[0]),
            Key::from_static_parts(RETRY_DELAY, &KIND_LABELS[1]),
            Key::from_static_parts(RETRY_DELAY, &KIND_LABELS[2]),
        ],
        give_ups: [
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[0]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[1]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[2]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[3]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[4]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[5]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[6]),
            Key::from_static_parts(GIVE_UPS, &REASON_LABELS[7]),
        ],
        hedges: Key::from_static_name(HEDGES),
        hedge_wins: [
            Key::from_static_parts(HEDGE_WINS, &ATTEMPT_LABELS[0]),
            Key::from_static_parts(HEDGE_WINS, &ATTEMPT_LABELS[1]),
            Key::from_static_parts(HEDGE_WINS, &ATTEMPT_LABELS[2]),
            Key::from_static_parts(HEDGE_WINS, &ATTEMPT_LABELS[3]),
            Key::from_static_parts(HEDGE_WINS, &ATTEMPT_LABELS[4]),
        ],
        budget_level: Key::from_static_name(BUDGET_LEVEL),
        budget_capacity: Key::from_static_name(BUDGET_CAPACITY),
        limiter_enabled: Key::from_static_name(LIMITER_ENABLED),
        limiter_rate: Key::from_static_name(LIMITER_RATE),
        limiter_measured_rate: Key::from_static_name(LIMITER_MEASURED_RATE),
    };

    impl Keys {
        /// The keys of a policy named `name`: every key carries it.
        pub(super) fn named(name: SharedString) -> Keys {
            let operation = Label::new(OPERATION, name.clone());
            let key = |metric: &'static str, extra: Option<&Label>| {
                let labels: Vec<Label> = extra.into_iter().cloned().chain([operation.clone()]).collect();
                Key::from_parts(metric, labels)
            };
            Keys {
                operations: key(OPERATIONS, None),
                first_try_successes: key(FIRST_TRY_SUCCESSES, None),
                retries: KIND_LABELS.each_ref().map(|[label]| key(RETRIES, Some(label))),
                delays: KIND_LABELS.each_ref().map(|[label]| key(RETRY_DELAY, Some(label))),
                give_ups: REASON_LABELS.each_ref().map(|[label]| key(GIVE_UPS, Some(label))),
                hedges: key(HEDGES, None),
                hedge_wins: ATTEMPT_LABELS.each_ref().map(|[label]| key(HEDGE_WINS, Some(label))),
                budget_level: key(BUDGET_LEVEL, None),
                budget_capacity: key(BUDGET_CAPACITY, None),
                limiter_enabled: key(LIMITER_ENABLED, None),
                limiter_rate: key(LIMITER_RATE, None),
                limiter_measured_rate: key(LIMITER_MEASURED_RATE, None),
            }
        }

        /// A later attempt succeeded; `budget` is the budget's state after it.
        pub(super) fn success_after_retry(
            &self,
            budget: Option<BudgetMetrics>,
            limiter: Option<LimiterMetrics>,
        ) {
            metrics::with_recorder(|recorder| {
                recorder.register_counter(&self.operations, &METADATA).increment(1);
                self.budget(recorder, budget);
                self.limiter(recorder, limiter);
            });
        }

        /// A retry after a failure of `kind`, waiting `delay`.
        pub(super) fn retry(
            &self,
            kind: ErrorKind,
            delay: Duration,
            budget: Option<BudgetMetrics>,
            limiter: Option<LimiterMetrics>,
        ) {
            let kind = kind_index(kind);
            metrics::with_recorder(|recorder| {
                recorder.register_counter(&self.retries[kind], &METADATA).increment(1);
                recorder.register_histogram(&self.delays[kind], &METADATA).record(delay);
                self.budget(recorder, budget);
                self.limiter(recorder, limiter);
            });
        }

        /// A give-up for `reason`.
        pub(super) fn give_up(
            &self,
            reason: StopReason,
            budget: Option<BudgetMetrics>,
            limiter: Option<LimiterMetrics>,
        ) {
            let reason = reason_index(reason);
            metrics::with_recorder(|recorder| {
                recorder.register_counter(&self.operations, &METADATA).increment(1);
                recorder.register_counter(&self.give_ups[reason], &METADATA).increment(1);
                self.budget(recorder, budget);
                self.limiter(recorder, limiter);
            });
        }

        /// The rate limiter's gauges, if there is an adaptive limiter.
        fn limiter(&self, recorder: &dyn metrics::Recorder, limiter: Option<LimiterMetrics>) {
            if let Some(limiter) = limiter {
                let keys = [&self.limiter_enabled, &self.limiter_rate, &self.limiter_measured_rate];
                crate::metrics::set_limiter(recorder, &limiter, keys);
            }
        }

        /// The budget gauges, if there is a budget.
        fn budget(&self, recorder: &dyn metrics::Recorder, budget: Option<BudgetMetrics>) {
            if let Some(budget) = budget {
                crate::metrics::set_budget(recorder, &budget, &self.budget_level, || {
                    self.budget_capacity.clone()
                });
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_indices_match_the_label_tables() {
            for (i, kind) in KINDS.into_iter().enumerate() {
                assert_eq!(kind_index(kind), i);
                assert_eq!(UNNAMED.retries[i].labels().next().unwrap().value(), kind.name());
            }
            for (i, reason) in REASONS.into_iter().enumerate() {
                assert_eq!(reason_index(reason), i);
                assert_eq!(UNNAMED.give_ups[i].labels().next().unwrap().value(), reason.name());
            }
        }

        #[test]
        fn a_named_policy_labels_every_key_with_its_name() {
            let keys = Keys::named("fetch".into());
            let all =
                [&keys.operations, &keys.first_try_successes, &keys.budget_level, &keys.budget_capacity]
                    .into_iter()
                    .chain(&keys.retries)
                    .chain(&keys.delays)
                    .chain(&keys.give_ups);
            for key in all {
                assert!(key.labels().any(|l| l.key() == OPERATION && l.value() == "fetch"), "{key:?}");
            }
            assert_eq!(keys.give_ups[1].labels().next().unwrap().value(), "permanent");
        }
    }
}
