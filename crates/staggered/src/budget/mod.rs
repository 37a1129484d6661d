//! Retry budgets: a shared limit that can refuse a retry.
//!
//! # Why budgets and not only `max_attempts`?
//! Retries multiply load: 3 attempts per layer across 5 layers is 3^5 = 243
//! calls for one user request. During an outage that extra load lands on
//! the service least able to take it, and can keep it down after the cause
//! is gone (a metastable failure). `max_attempts` bounds one operation; a
//! budget bounds a whole client: retries are allowed while they are a small
//! fraction of the traffic, and refused when most calls fail. When failures
//! are rare a budget costs nothing.
//!
//! Three published designs, each with its defaults:
//! - [`TokenBucket`]: the AWS SDK's retry quota (500 tokens, a retry costs
//!   5, a timeout 10, a first-try success refunds 1).
//! - [`RatioBudget`]: Finagle's and tower's `TpsBudget` (retries up to 20%
//!   of recent requests plus 10 per second, over a 10 s window). tower's
//!   `deposit` counts a request: here that is [`Budget::record_request`],
//!   and [`Budget::deposit`] records a success.
//! - [`RetryThrottle`]: gRPC retry throttling (`max_tokens` 10,
//!   `token_ratio` 0.1, no retry at or below half).
//!
//! All are lock-free, `Send + Sync`, and cheap to clone: clones share one
//! budget, so give every task of a client a clone of the same handle.
//!
//! The retry decision asks the budget last, only when every other rule would
//! retry, so a refused retry stops with
//! [`StopReason::BudgetExhausted`](crate::StopReason) and a retry the decision
//! would not make costs nothing.

#[cfg(feature = "std")]
mod ratio;
#[cfg(feature = "std")]
mod throttle;
#[cfg(feature = "std")]
mod token_bucket;

#[cfg(feature = "std")]
pub use ratio::{RatioBudget, RatioBudgetBuilder};
#[cfg(feature = "std")]
pub use throttle::RetryThrottle;
#[cfg(feature = "std")]
pub use token_bucket::{TokenBucket, TokenBucketBuilder};

use crate::classify::Failure;

/// A snapshot of a budget's state, for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BudgetMetrics {
    /// What is left now, in retries' worth of the budget's own unit (tokens
    /// for the buckets, retries for the ratio budget).
    pub level: f64,
    /// The most the budget can hold, in the unit of `level`: `Some` for the
    /// token bucket and the gRPC throttle, `None` for a budget with no fixed
    /// ceiling (the ratio budget grows with traffic). Never NaN, so a gauge
    /// or a log line can carry it as it is.
    pub capacity: Option<f64>,
    /// Retries allowed so far.
    pub allowed: u64,
    /// Retries refused so far.
    pub refused: u64,
}

/// A shared limit on retries, consulted by the retry decision.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a retry budget",
    label = "not a `Budget`",
    note = "`TokenBucket`, `RatioBudget` and `RetryThrottle` are, shared by reference, `Arc` or a clone of \
            their handle"
)]
pub trait Budget {
    /// Asks to spend on one retry after `failure`. `false` refuses the retry.
    fn withdraw(&self, failure: &Failure) -> bool;

    /// Records that an operation succeeded on attempt `attempt` (1 is first
    /// try); `last_failure` is the failure whose retry succeeded, if any, so a
    /// budget can give back what that retry cost.
    ///
    /// Coming from tower: this is *not* tower's `Budget::deposit`, which
    /// counts a request; that is [`record_request`](Budget::record_request).
    fn deposit(&self, attempt: u32, last_failure: Option<&Failure>);

    /// Gives back a [`withdraw`](Budget::withdraw) of `failure` whose retry
    /// was never sent: the caller cancelled or dropped the operation during
    /// the wait, or the next attempt got no rate-limiter token before the
    /// deadline. What the withdrawal took comes back, and it no longer
    /// counts as an allowed retry, so operations abandoned mid-wait cannot
    /// drain a budget. The default does nothing.
    fn refund(&self, failure: &Failure) {
        let _ = failure;
    }

    /// Records a retryable failure, whether or not it will be retried (the
    /// retry decision calls it for every transient or throttled failure,
    /// before its other checks). gRPC's throttle counts these; the default
    /// ignores them.
    fn record_failure(&self, failure: &Failure) {
        let _ = failure;
    }

    /// Records that an operation started (its first attempt). Ratio budgets
    /// count these (tower's `Budget::deposit`); the default ignores them.
    fn record_request(&self) {}

    /// The budget's current state, if it keeps one.
    fn metrics(&self) -> Option<BudgetMetrics> {
        None
    }
}

/// No budget: every retry is allowed, nothing is recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoBudget;

impl Budget for NoBudget {
    #[inline]
    fn withdraw(&self, _: &Failure) -> bool {
        true
    }
    #[inline]
    fn deposit(&self, _: u32, _: Option<&Failure>) {}
}

macro_rules! forward_budget {
    ($($ty:ty),*) => {$(
        impl<B: Budget + ?Sized> Budget for $ty {
            #[inline]
            fn withdraw(&self, failure: &Failure) -> bool {
                (**self).withdraw(failure)
            }
            #[inline]
            fn deposit(&self, attempt: u32, last_failure: Option<&Failure>) {
                (**self).deposit(attempt, last_failure)
            }
            #[inline]
            fn refund(&self, failure: &Failure) {
                (**self).refund(failure)
            }
            #[inline]
            fn record_failure(&self, failure: &Failure) {
                (**self).record_failure(failure)
            }
            #[inline]
            fn record_request(&self) {
                (**self).record_request()
            }
            #[inline]
            fn metrics(&self) -> Option<BudgetMetrics> {
                (**self).metrics()
            }
        }
    )*};
}

forward_budget!(&B);

/// An optional budget: `None` allows every retry, as [`NoBudget`] does (a
/// configuration without a `budget` section still makes a policy).
impl<B: Budget> Budget for Option<B> {
    #[inline]
    fn withdraw(&self, failure: &Failure) -> bool {
        self.as_ref().is_none_or(|budget| budget.withdraw(failure))
    }
    #[inline]
    fn deposit(&self, attempt: u32, last_failure: Option<&Failure>) {
        if let Some(budget) = self {
            budget.deposit(attempt, last_failure);
        }
    }
    #[inline]
    fn refund(&self, failure: &Failure) {
        if let Some(budget) = self {
            budget.refund(failure);
        }
    }
    #[inline]
    fn record_failure(&self, failure: &Failure) {
        if let Some(budget) = self {
            budget.record_failure(failure);
        }
    }
    #[inline]
    fn record_request(&self) {
        if let Some(budget) = self {
            budget.record_request();
        }
    }
    #[inline]
    fn metrics(&self) -> Option<BudgetMetrics> {
        self.as_ref().and_then(Budget::metrics)
    }
}

#[cfg(feature = "std")]
forward_budget!(std::sync::Arc<B>);

/// Counts of allowed and refused retries, shared by the budgets.
#[cfg(feature = "std")]
#[derive(Debug, Default)]
pub(crate) struct Tally {
    allowed: crate::sync::AtomicU64,
    refused: crate::sync::AtomicU64,
}

#[cfg(feature = "std")]
impl Tally {
    /// Counts one answer and passes it on.
    #[inline]
    pub(crate) fn record(&self, allowed: bool) -> bool {
        use crate::sync::Ordering::Relaxed;
        if allowed {
            self.allowed.fetch_add(1, Relaxed);
        } else {
            self.refused.fetch_add(1, Relaxed);
        }
        allowed
    }

    /// Takes back one allowed retry that was refunded.
    pub(crate) fn unrecord_allowed(&self) {
        use crate::sync::Ordering::Relaxed;
        let _ = self.allowed.fetch_update(Relaxed, Relaxed, |allowed| allowed.checked_sub(1));
    }

    /// The metrics, given the level and capacity.
    pub(crate) fn metrics(&self, level: f64, capacity: Option<f64>) -> BudgetMetrics {
        use crate::sync::Ordering::Relaxed;
        BudgetMetrics {
            level,
            capacity,
            allowed: self.allowed.load(Relaxed),
            refused: self.refused.load(Relaxed),
        }
    }
}
