//! Retries with exponential backoff and jitter that get the details right.
//!
//! When every client of a struggling service retries on the same schedule,
//! they come back together and knock it over again: the thundering herd.
//! Exponential backoff spreads one client's retries out in time; jitter
//! spreads a fleet's retries apart from each other. `staggered` computes those
//! schedules exactly as they were published, with a cap that is really a cap.
//!
//! ```
//! use std::time::Duration;
//! use staggered::{Backoff, Preset, Strategy};
//!
//! // Full jitter (AWS's recommendation): U[0, min(max_delay, base * 2^(r-1))].
//! let backoff = Backoff::builder(Strategy::Full)
//!     .with_base(Duration::from_millis(100))
//!     .with_max_delay(Duration::from_secs(5))
//!     .with_max_attempts(5)
//!     .build()?;
//! for (retry, delay) in backoff.delays().enumerate() {
//!     assert!(delay <= Duration::from_millis(100 << retry));
//! }
//!
//! // Or a ready preset: "standard", 5 attempts, never above 30 s.
//! let standard = Preset::Standard.backoff();
//! assert!(standard.delays().all(|d| d <= Duration::from_secs(30)));
//! # Ok::<(), staggered::ConfigError>(())
//! ```
//!
//! # Retrying
//! A [`RetryPolicy`] wraps a schedule with a classifier, hooks, limits and a
//! budget, and runs an operation until it succeeds or the policy gives up:
//! blocking with [`RetryPolicy::call`], async with
//! [`RetryPolicy::call_async`] (tokio by default, any runtime through
//! [`sleep::Sleeper`]). Giving up returns a [`RetryError`] with the
//! [`StopReason`], the attempts made and the last error.
//!
//! ```
//! use std::time::Duration;
//! use staggered::{Preset, RetryPolicy, StopReason};
//! use staggered::classify::http::classify_status;
//!
//! let policy = RetryPolicy::new(Preset::Interactive.backoff()) // 3 attempts, hard 3 s cap
//!     .classify(|status: &u16| classify_status(*status)) // 408, 429, 5xx retry; other 4xx stop
//!     .with_deadline(Duration::from_secs(10));
//! let err = policy.call(|_attempt| Err::<(), u16>(404)).unwrap_err();
//! assert_eq!((err.reason(), err.attempts(), *err.error()), (StopReason::Permanent, 1, 404));
//! ```
//!
//! Every driver (these loops, `stagger run`, the simulator, the tower and
//! reqwest integrations) decides through one sans-IO state machine,
//! [`Decision`]: given a classified [`Failure`] and the time elapsed, it
//! answers [`Action::Retry`] with the wait or [`Action::Stop`] with the
//! reason. It owns `max_attempts`, the deadline, server [`hint`]s (what a
//! hint does is a [`HintPolicy`]: ours, the AWS SDKs' or gRPC's) and the
//! [`budget`]; the drivers only sleep and call.
//!
//! # Schedules
//! A [`Backoff`] is a validated, `Copy` configuration: a [`Strategy`] (how
//! the delay is drawn), `base`, `multiplier`, `max_delay`, a factor,
//! a [`CapMode`], `max_attempts` and an optional deadline. Build one with
//! [`Backoff::builder`] or start from a [`Preset`]. Bad parameters give a
//! [`ConfigError`] that names the field and the rule; nothing panics or
//! overflows, for any value up to `Duration::MAX` and any retry up to
//! `u32::MAX`.
//!
//! [`Backoff::delays`] hands out a [`Delays`] iterator for one operation,
//! with its own generator. [`Backoff::bounds`] gives the theoretical range of
//! each retry's delay. Any cloneable iterator of `Duration` is a
//! [`Schedule`] too, and schedules compose ([`compose`]): a first delay
//! before the rest (Polly's "fast first"), one schedule after another, the
//! first `n` retries, and waits chosen by the kind of failure (the AWS
//! SDKs' 1 s after throttling, 50 ms otherwise).
//!
//! # The cap is hard
//! By default ([`CapMode::Delay`]) no delay ever exceeds `max_delay`: for
//! `proportional` and `additive` the interval shrinks so the whole random
//! range fits under the cap. [`CapMode::Interval`] reproduces systems that cap
//! the interval before randomizing (google-http-java-client, gRPC), where a delay
//! can reach `max_delay * (1 + f)`.
//!
//! # Randomness
//! Each [`Delays`] owns its generator: [`FastRng`] (wyrand) seeded from OS
//! entropy, distinct per schedule, with no lock anywhere. An explicit seed
//! ([`BackoffBuilder::with_seed`], [`Backoff::delays_seeded`]) makes a
//! schedule reproducible, and [`Backoff::delays_with_rng`] takes any [`Rng`].
//!
//! # Crate features
//! - `std` (default): entropy seeding, [`Backoff::delays`] and [`Schedule`]
//!   for [`Backoff`], the blocking driver, the budgets, HTTP-date hints.
//!   Without it the crate is `no_std`; seed explicitly.
//! - `tokio` (default): the async driver's default timer and clock
//!   ([`sleep::TokioSleeper`], [`sleep::TokioClock`]), which honour tokio's
//!   paused time. Without it, `run_async_with` takes any runtime's.
//! - `tracing`: one structured event per retry and per give-up, with the
//!   fields `attempt`, `max_attempts`, `delay_ms`, `error_type` and
//!   `error_message`, and the budget's level.
//! - `test-util`: `test_util::MockClock` and
//!   `test_util::RecordingSleeper`, to assert attempts and delays in your
//!   own tests without sleeping.
//! - `http`: the `http` module classifies `http` responses by status
//!   and server hints (`http::ClassifyHttp`) and clones only requests that
//!   are safe to repeat (`http::IdempotentOnly`).
//! - `tower`: `tower::RetryLayer`, a tower middleware on the same retry
//!   decision (implies `tokio`, whose timer it uses by default).
//! - `reqwest`: `reqwest::RetryMiddleware` for `reqwest-middleware`: HTTP
//!   statuses, `Retry-After` and friends, idempotent requests only unless
//!   opted in (implies `http` and `tokio`; reqwest without TLS).
//! - `serde`: `config::RetryConfig`, a whole retry configuration from TOML
//!   or JSON with human durations and errors that name the field.
//!
//! Runnable programs are in `examples/`: `blocking`, `tokio`,
//! `shared_budget`, `tower_stack` and `reqwest_retry_after`
//! (`cargo run -p staggered --example NAME --all-features`).
//!
//! # The guide

#![doc = concat!(
    "The guide, in the repository's [`docs/`](", env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/README.md), ",
    "explains every strategy with a chart of its delays, the cap, the presets and where their values ",
    "come from, the retry decision, budgets, and how to choose a strategy from the simulator's results; ",
    "its chapter [Coming from another library](", env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/coming-from.md) ",
    "maps backon, backoff, tokio-retry, tower, the AWS SDKs, gRPC and Polly onto this crate."
)]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The tree is the architecture: schedules (how long to wait), the retry
// decision and its drivers (whether to retry, and the loops that wait and
// call), budgets (whether the client may retry at all), classification (what
// a failure is), and the integrations with other crates. Public paths are
// re-exports, so they do not move when a file does.
pub mod budget;
pub mod classify;
#[cfg(feature = "serde")]
pub mod config;
mod error;
mod integrations;
#[cfg(feature = "std")]
pub mod limiter;
mod math;
mod retry;
mod rng;
mod schedule;
pub mod sleep;
// Unit tests use the mock clock too, with or without the feature.
#[cfg(all(feature = "std", any(test, feature = "test-util")))]
pub mod test_util;

#[doc(inline)]
pub use classify::hint;
#[cfg(feature = "http")]
pub use integrations::http;
#[cfg(feature = "reqwest")]
pub use integrations::reqwest;
#[cfg(feature = "std")]
pub use integrations::service;
#[cfg(feature = "tower")]
pub use integrations::tower;

pub use error::{ConfigError, Field, Rule};
pub use rng::{FastRng, Rng};
pub use schedule::backoff::{Backoff, BackoffBuilder};
pub use schedule::bounds::{Bounds, RetryBounds};
pub use schedule::delays::Delays;
pub use schedule::preset::Preset;
pub use schedule::strategy::{CapMode, Strategy, UnknownName};
pub use schedule::Schedule;

pub use budget::{Budget, BudgetMetrics, NoBudget};
#[cfg(feature = "std")]
pub use budget::{RatioBudget, RetryThrottle, TokenBucket};
pub use classify::{AlwaysTransient, Classifier, ErrorKind, Failure, Hint, RetryIf};
#[cfg(feature = "std")]
pub use limiter::AdaptiveLimiter;
pub use retry::decision::{Action, Decision, Limits, StopReason};
pub use retry::event::{GiveUpEvent, NoNotify, Notify, RetryEvent};
pub use retry::hint_policy::HintPolicy;
pub use retry::policy::RetryPolicy;
pub use retry::retry_error::{Retried, RetryError, TimedOut};
pub use retry::timeout::{AttemptTimeout, MakeTimeoutError, NoTimeout, TimeoutFor};
pub use schedule::compose;

/// The README's example compiles and runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// This crate's own README (its registry page): its example compiles and runs.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;

/// The guide's Rust examples compile and run, chapter by chapter.
#[cfg(all(doctest, feature = "std"))]
mod guide {
    /// "Coming from another library".
    #[doc = include_str!("../../../docs/coming-from.md")]
    pub struct ComingFrom;
    /// "Strategies".
    #[doc = include_str!("../../../docs/strategies.md")]
    pub struct Strategies;
    /// "The cap, and the interval mode".
    #[doc = include_str!("../../../docs/cap.md")]
    pub struct Cap;
    /// "Presets".
    #[doc = include_str!("../../../docs/presets.md")]
    pub struct Presets;
    /// "The retry decision".
    #[doc = include_str!("../../../docs/retrying.md")]
    pub struct Retrying;
    /// "Budgets".
    #[doc = include_str!("../../../docs/budgets.md")]
    pub struct Budgets;
}
