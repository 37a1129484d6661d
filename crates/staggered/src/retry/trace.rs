//! The `tracing` integration: one structured event per retry, with the
//! fields of a common structured retry log (`attempt`, `max_attempts`, `delay_ms`, `error_type`,
//! `error_message`), and one when giving up. Compiled out without the feature.

use crate::retry::event::{GiveUpEvent, RetryEvent};

#[cfg(feature = "tracing")]
fn short_type_name<E>() -> &'static str {
    let full = core::any::type_name::<E>();
    let generic_start = full.find('<').unwrap_or(full.len());
    full[..generic_start].rsplit("::").next().unwrap_or(full)
}

#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn retry<E: core::fmt::Display>(event: &RetryEvent<'_, E>) {
    tracing::warn!(
        target: "staggered",
        attempt = event.attempt,
        max_attempts = event.max_attempts,
        delay_ms = u64::try_from(event.delay.as_millis()).unwrap_or(u64::MAX),
        error_type = short_type_name::<E>(),
        error_message = %event.error,
        error_kind = event.failure.kind.name(),
        elapsed_ms = u64::try_from(event.elapsed.as_millis()).unwrap_or(u64::MAX),
        budget_level = event.budget.map(|b| b.level),
        budget_refused = event.budget.map(|b| b.refused),
        "retrying after failed attempt"
    );
}

#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn give_up<E: core::fmt::Display>(event: &GiveUpEvent<'_, E>) {
    tracing::error!(
        target: "staggered",
        attempt = event.attempts,
        max_attempts = event.max_attempts,
        reason = event.reason.name(),
        error_type = short_type_name::<E>(),
        error_message = %event.error,
        elapsed_ms = u64::try_from(event.elapsed.as_millis()).unwrap_or(u64::MAX),
        budget_level = event.budget.map(|b| b.level),
        budget_refused = event.budget.map(|b| b.refused),
        "giving up"
    );
}

#[cfg(not(feature = "tracing"))]
#[inline(always)]
pub(crate) fn retry<E>(_: &RetryEvent<'_, E>) {}

#[cfg(not(feature = "tracing"))]
#[inline(always)]
pub(crate) fn give_up<E>(_: &GiveUpEvent<'_, E>) {}
