//! The `tracing` integration: one structured event per retry, with the
//! fields of a common structured retry log (`attempt`, `max_attempts`, `delay_ms`, `error_type`,
//! `error_message`), one when giving up, and one per hedge. Compiled out without the feature.
//!
//! # Levels
//! A retry is a `WARN`: something failed and is being handled. Giving up
//! after a retryable failure is a `WARN` too by default
//! ([`RetryPolicy::with_give_up_level`](crate::RetryPolicy::with_give_up_level)
//! changes it): the error goes back to the caller, who knows whether it is
//! an `ERROR` in their program. A permanent failure on the first attempt
//! is a `DEBUG`: nothing was retried, so the retry loop has nothing to add
//! to what the caller gets.

use crate::retry::event::{GiveUpEvent, RetryEvent};
#[cfg(feature = "tracing")]
use crate::StopReason;

/// The levels of a policy's `tracing` events (empty without the feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TraceLevels {
    /// The level of a give-up after a retryable failure.
    #[cfg(feature = "tracing")]
    pub(crate) give_up: tracing::Level,
}

impl TraceLevels {
    pub(crate) const DEFAULT: TraceLevels = TraceLevels {
        #[cfg(feature = "tracing")]
        give_up: tracing::Level::WARN,
    };
}

/// The name of an error type as its crate exports it, in the common case
/// where a type `Foo` lives in a module `foo` it is re-exported from:
/// `std::io::error::Error` becomes `std::io::Error`, `reqwest::error::Error`
/// `reqwest::Error`. Generic arguments are shortened the same way. Written
/// as it is displayed, without allocating.
#[cfg(any(feature = "tracing", test))]
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadableTypeName(pub(crate) &'static str);

#[cfg(any(feature = "tracing", test))]
impl core::fmt::Display for ReadableTypeName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let full = self.0;
        let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
        let mut path_start = 0;
        for (i, c) in full.char_indices().chain(core::iter::once((full.len(), ' '))) {
            if is_path(c) {
                continue;
            }
            write_path(f, &full[path_start..i])?;
            if i < full.len() {
                core::fmt::Write::write_char(f, c)?;
            }
            path_start = i + c.len_utf8();
        }
        Ok(())
    }
}

/// Writes `path`, without the module before its last segment if that
/// module is the last segment in snake case (and not the crate).
#[cfg(any(feature = "tracing", test))]
fn write_path(f: &mut core::fmt::Formatter<'_>, path: &str) -> core::fmt::Result {
    if let Some((head, name)) = path.rsplit_once("::") {
        if let Some((crate_and_more, module)) = head.rsplit_once("::") {
            if is_snake_case_of(module, name) {
                return write!(f, "{crate_and_more}::{name}");
            }
        }
    }
    f.write_str(path)
}

/// Whether `module` is `name` in snake case (`error` and `Error`,
/// `parse_int_error` and `ParseIntError`).
#[cfg(any(feature = "tracing", test))]
fn is_snake_case_of(module: &str, name: &str) -> bool {
    let mut expected = name.chars().enumerate().flat_map(|(i, c)| {
        let underscore = (i > 0 && c.is_uppercase()).then_some('_');
        underscore.into_iter().chain(c.to_lowercase())
    });
    let mut actual = module.chars();
    loop {
        match (expected.next(), actual.next()) {
            (None, None) => return !module.is_empty(),
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

/// Logs `$($field)*` at `$level`, a level known only at run time.
#[cfg(feature = "tracing")]
macro_rules! event_at {
    ($level:expr, $($field:tt)*) => {{
        let level = $level;
        if level == tracing::Level::ERROR {
            tracing::error!($($field)*)
        } else if level == tracing::Level::WARN {
            tracing::warn!($($field)*)
        } else if level == tracing::Level::INFO {
            tracing::info!($($field)*)
        } else if level == tracing::Level::DEBUG {
            tracing::debug!($($field)*)
        } else {
            tracing::trace!($($field)*)
        }
    }};
}

#[cfg(feature = "tracing")]
fn millis(duration: core::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn retry<E: core::fmt::Display + ?Sized>(event: &RetryEvent<'_, E>, error_type: &'static str) {
    tracing::warn!(
        target: "staggered",
        attempt = event.attempt,
        max_attempts = event.max_attempts,
        delay_ms = millis(event.delay),
        error_type = %ReadableTypeName(error_type),
        error_message = %event.error,
        error_kind = event.failure.kind.name(),
        elapsed_ms = millis(event.elapsed),
        budget_level = event.budget.map(|b| b.level),
        budget_refused = event.budget.map(|b| b.refused),
        "retrying after failed attempt"
    );
}

#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn give_up<E: core::fmt::Display + ?Sized>(
    event: &GiveUpEvent<'_, E>,
    error_type: &'static str,
    levels: TraceLevels,
) {
    /// The last error, or nothing when no attempt failed.
    struct Last<'a, E: ?Sized>(Option<&'a E>);
    impl<E: core::fmt::Display + ?Sized> core::fmt::Display for Last<'_, E> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            match self.0 {
                Some(error) => error.fmt(f),
                None => Ok(()),
            }
        }
    }
    let first_permanent = event.reason == StopReason::Permanent && event.attempts == 1;
    let (level, message) = if first_permanent {
        (tracing::Level::DEBUG, "not retrying: permanent error")
    } else {
        (levels.give_up, "giving up")
    };
    event_at!(
        level,
        target: "staggered",
        attempt = event.attempts,
        max_attempts = event.max_attempts,
        reason = event.reason.name(),
        error_type = %ReadableTypeName(error_type),
        error_message = %Last(event.error),
        elapsed_ms = millis(event.elapsed),
        budget_level = event.budget.map(|b| b.level),
        budget_refused = event.budget.map(|b| b.refused),
        "{message}"
    );
}

/// A hedged call sent one more copy: a `DEBUG`, since nothing failed.
#[cfg(all(feature = "tracing", feature = "std"))]
pub(crate) fn hedge(event: &crate::HedgeEvent) {
    tracing::debug!(
        target: "staggered",
        attempt = event.attempt,
        in_flight = event.in_flight,
        elapsed_ms = millis(event.elapsed),
        budget_level = event.budget.map(|b| b.level),
        "hedging: sending another copy"
    );
}

#[cfg(all(not(feature = "tracing"), feature = "std"))]
pub(crate) fn hedge(_: &crate::HedgeEvent) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn retry<E: ?Sized>(_: &RetryEvent<'_, E>, _: &'static str) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn give_up<E: ?Sized>(_: &GiveUpEvent<'_, E>, _: &'static str, _: TraceLevels) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_types_are_named_as_their_crates_export_them() {
        let name = |full: &'static str| ReadableTypeName(full).to_string();
        assert_eq!(name(core::any::type_name::<std::io::Error>()), "std::io::Error");
        assert_eq!(name("reqwest::error::Error"), "reqwest::Error");
        assert_eq!(name("reqwest_middleware::error::Error"), "reqwest_middleware::Error");
        assert_eq!(
            name("http::response::Response<http_body_util::full::Full<bytes::bytes::Bytes>>"),
            "http::Response<http_body_util::Full<bytes::Bytes>>"
        );
        assert_eq!(name("&str"), "&str");
        assert_eq!(name("core::num::error::ParseIntError"), "core::num::error::ParseIntError");
        assert_eq!(name("my_app::Error"), "my_app::Error");
        assert_eq!(name("my_app::parse_int_error::ParseIntError"), "my_app::ParseIntError");
    }
}
