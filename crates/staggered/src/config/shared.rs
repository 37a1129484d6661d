//! The budget, the rate limiter and the hedging of a configuration, built
//! once and shared by every policy built from it.
//!
//! A budget bounds the retries of many operations only if they draw on the
//! same one, and a limiter paces a client's attempts only if they all take
//! its tokens; building a policy per operation from a configuration (as
//! its examples read naturally) must not give each operation fresh ones.

use core::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::{AnyBudget, BudgetConfig, HedgingConfig, LoadError, RateLimiterConfig};
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
    hedgings: Vec<(HedgingConfig, crate::Hedging)>,
}

impl Built {
    fn handles(&self) -> std::sync::MutexGuard<'_, Handles> {
        // Each list is whole between any two statements: a panic elsewhere
        // while holding the lock cannot leave one broken.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The budget built from `section`, built now if none was yet.
    pub(super) fn budget(&self, section: &BudgetConfig) -> Result<AnyBudget, LoadError> {
        get_or_build(&mut self.handles().budgets, section, BudgetConfig::build)
    }

    /// The limiter built from `section`, built now if none was yet.
    pub(super) fn limiter(&self, section: &RateLimiterConfig) -> Result<AdaptiveLimiter, LoadError> {
        get_or_build(&mut self.handles().limiters, section, RateLimiterConfig::build)
    }

    /// The hedging built from `section`, built now if none was yet.
    pub(super) fn hedging(&self, section: &HedgingConfig) -> Result<crate::Hedging, LoadError> {
        get_or_build(&mut self.handles().hedgings, section, HedgingConfig::build)
    }
}

/// The handle `built` holds for `section`, or a new one `build` makes from
/// it, kept there.
fn get_or_build<S: PartialEq + Clone, H: Clone>(
    built: &mut Vec<(S, H)>,
    section: &S,
    build: impl FnOnce(&S) -> Result<H, LoadError>,
) -> Result<H, LoadError> {
    if let Some((_, handle)) = built.iter().find(|(from, _)| from == section) {
        return Ok(handle.clone());
    }
    let handle = build(section)?;
    built.push((section.clone(), handle.clone()));
    Ok(handle)
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
