//! The budget and the rate limiter of a configuration, built once and
//! shared by every policy built from it.
//!
//! A budget bounds the retries of many operations only if they draw on the
//! same one, and a limiter paces a client's attempts only if they all take
//! its tokens; building a policy per operation from a configuration (as
//! its examples read naturally) must not give each operation fresh ones.

use core::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::{AnyBudget, BudgetConfig, LoadError, RateLimiterConfig};
use crate::limiter::AdaptiveLimiter;

/// What a configuration has built, by the section it was built from. The
/// sections are public fields, so a clone may change one: each section
/// keeps its own budget or limiter, and an unchanged clone shares its
/// original's (a clone is the same configuration, as a clone of a policy
/// is the same policy).
#[derive(Clone, Default)]
pub(super) struct Built(Arc<Mutex<Handles>>);

#[derive(Default)]
struct Handles {
    budgets: Vec<(BudgetConfig, AnyBudget)>,
    limiters: Vec<(RateLimiterConfig, AdaptiveLimiter)>,
}

impl Built {
    fn handles(&self) -> std::sync::MutexGuard<'_, Handles> {
        // Each list is whole between any two statements: a panic elsewhere
        // while holding the lock cannot leave one broken.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The budget built from `section`, built now if none was yet.
    pub(super) fn budget(&self, section: &BudgetConfig) -> Result<AnyBudget, LoadError> {
        let mut handles = self.handles();
        if let Some((_, budget)) = handles.budgets.iter().find(|(built, _)| built == section) {
            return Ok(budget.clone());
        }
        let budget = section.build()?;
        handles.budgets.push((section.clone(), budget.clone()));
        Ok(budget)
    }

    /// The limiter built from `section`, built now if none was yet.
    pub(super) fn limiter(&self, section: &RateLimiterConfig) -> Result<AdaptiveLimiter, LoadError> {
        let mut handles = self.handles();
        if let Some((_, limiter)) = handles.limiters.iter().find(|(built, _)| built == section) {
            return Ok(limiter.clone());
        }
        let limiter = section.build()?;
        handles.limiters.push((section.clone(), limiter.clone()));
        Ok(limiter)
    }
}

/// What was built is no part of a configuration's value: two
/// configurations with the same sections are equal.
impl PartialEq for Built {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for Built {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Built")
    }
}
