//! Retry budgets (SPEC section 7): a shared limit that can refuse a retry.
//!
//! The retry decision asks the budget last, only when every other rule would
//! retry, so a refused retry stops with
//! [`StopReason::BudgetExhausted`](crate::StopReason) and a retry the decision
//! would not make costs nothing.

use crate::classify::Failure;

/// A shared limit on retries, consulted by the retry decision.
pub trait Budget {
    /// Asks to spend on one retry after `failure`. `false` refuses the retry.
    fn withdraw(&self, failure: &Failure) -> bool;

    /// Records that an operation succeeded on attempt `attempt` (1 is first try).
    fn deposit(&self, attempt: u32);
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
    fn deposit(&self, _: u32) {}
}

impl<B: Budget + ?Sized> Budget for &B {
    #[inline]
    fn withdraw(&self, failure: &Failure) -> bool {
        (**self).withdraw(failure)
    }
    #[inline]
    fn deposit(&self, attempt: u32) {
        (**self).deposit(attempt)
    }
}

#[cfg(feature = "std")]
impl<B: Budget + ?Sized> Budget for std::sync::Arc<B> {
    #[inline]
    fn withdraw(&self, failure: &Failure) -> bool {
        (**self).withdraw(failure)
    }
    #[inline]
    fn deposit(&self, attempt: u32) {
        (**self).deposit(attempt)
    }
}
