//! Retries with exponential backoff and jitter that get the details right.
//!
//! When every client of a struggling service retries on the same schedule,
//! they come back together and knock it over again: the thundering herd.
//! Exponential backoff spreads one client's retries out in time; jitter
//! spreads a fleet's retries apart from each other. `staggered` computes those
//! schedules exactly as they were published, with a cap that is really a cap,
//! and retries with limits that mean what they say.
//!
//! # Retrying a call
//! Build a [`RetryPolicy`] once, then retry any closure with it. A blocking
//! operation (it returns a `Result`) ends with `.call()`; an async one (it
//! returns a future) with `.call().await`:
//!
//! ```
//! use staggered::{Preset, RetryPolicy};
//!
//! let policy = RetryPolicy::new(Preset::Standard.backoff()); // 5 attempts, additive jitter, 30 s cap
//!
//! let manifest = policy.retry(|_attempt| std::fs::read_to_string("Cargo.toml")).call()?;
//! # assert!(manifest.contains("[package]"));
//! # Ok::<(), staggered::RetryError<std::io::Error>>(())
//! ```
//!
//! Which errors to retry and what to log go between the two, as closures
//! whose argument types come from the operation: `e` below is a
//! `&std::io::Error`, `event` a [`&RetryEvent`](RetryEvent) of one, and
//! neither needs writing down.
//!
//! ```
//! # use staggered::{Preset, RetryPolicy};
//! use std::io::ErrorKind;
//!
//! # let policy = RetryPolicy::new(Preset::Standard.backoff());
//! let manifest = policy
//!     .retry(|_| std::fs::read_to_string("Cargo.toml"))
//!     .when(|e| e.kind() != ErrorKind::NotFound) // the rest are permanent: stop at once
//!     .on_retry(|event| eprintln!("{event}")) // attempt 1/5 failed (...); retrying in 1.1s
//!     .on_give_up(|event| eprintln!("{event}")) // gave up after 5 attempts (...): ...
//!     .call()?;
//! # Ok::<(), staggered::RetryError<std::io::Error>>(())
//! ```
//!
//! ```
//! # use staggered::{Preset, RetryPolicy};
//! # async fn fetch(_: &str) -> Result<String, std::io::Error> { Ok(String::new()) }
//! # async fn demo() -> Result<(), staggered::RetryError<std::io::Error>> {
//! # let policy = RetryPolicy::new(Preset::Standard.backoff());
//! let body = policy
//!     .retry(|_| fetch("http://127.0.0.1:8080/flaky"))
//!     .when(|e| e.kind() != std::io::ErrorKind::PermissionDenied)
//!     .call()
//!     .await?;
//! # Ok(())
//! # }
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(demo()).unwrap();
//! ```
//!
//! Why this shape. The policy comes first because it is what a program
//! keeps: the schedule, the limits and a budget shared by every call of a
//! client. The operation comes next, because it fixes the types: once the
//! compiler knows what it returns, the predicate's `e` and the hook's
//! `event` are known too, as with backon's `op.retry(builder)`, and no
//! closure needs an annotation. What the operation returns also picks
//! blocking or async, so the one expression serves both, with no trait to
//! import. Every driver (these calls, the tower, reqwest and tonic
//! integrations, `stagger run`) steps the same machine per operation, on
//! the same [`Decision`]: a call adds its predicate and hooks, nothing else.
//!
//! The same call polls until a value is ready ([`Retrying::until`]), stops
//! when a signal fires ([`Retrying::cancel_on`]), and takes a sleeper and a
//! clock of your own for tests ([`Retrying::with_timer`]); `.run()` instead
//! of `.call()` also returns the attempts made and the time waited.
//!
//! A retry that gives up returns a [`RetryError`]: why it stopped
//! ([`StopReason`]: attempts exhausted, permanent error, deadline, hint too
//! long, budget exhausted, cancelled, not repeatable), how many attempts
//! were made, and the last error as its `source()`.
//!
//! # The policy
//! [`RetryPolicy::new`] takes any [`Schedule`] (a [`Backoff`], a
//! [`Preset`]'s, or a plain iterator of delays) and its limits; the rest is
//! set once for every call:
//!
//! ```
//! use std::time::Duration;
//! use staggered::classify::io::classify_io;
//! use staggered::{Preset, RetryPolicy, TokenBucket};
//!
//! let budget = TokenBucket::new(); // one per client: clones share the bucket
//! let policy = RetryPolicy::new(Preset::Interactive.backoff()) // 3 attempts, hard 3 s cap
//!     .with_max_attempts(5)? // the limit applied: the schedule goes on by its formula
//!     .classify(classify_io) // reset, refused, timed out... retry; the rest stop
//!     .with_deadline(Duration::from_secs(10))?
//!     .with_budget(budget.clone())
//!     .on_retry(|event| eprintln!("{event}")); // any operation's error, as text
//! assert_eq!(policy.limits().max_attempts, Some(5));
//! let done = policy.retry(|_| std::fs::read_to_string("Cargo.toml")).call();
//! # assert!(done.is_ok());
//! # Ok::<(), staggered::ConfigError>(())
//! ```
//!
//! Its defaults, every limit and the `max_hint` of each driver are listed
//! under [`RetryPolicy`'s defaults](RetryPolicy#defaults). In short: the
//! schedule's `max_attempts` and deadline; every error of an operation
//! transient, HTTP responses by the HTTP rules (408, 429, 5xx and their
//! `Retry-After`); no hooks, budget or per-attempt timeout; and a server
//! hint honoured up to the schedule's largest delay for a plain operation,
//! up to a minute (or that delay, if longer) in the HTTP and gRPC
//! integrations.
//!
//! Nothing is changed behind your back: `with_max_attempts(10)` on a
//! 3-attempt schedule makes 10 attempts (the schedule goes on by its own
//! formula, or the call is refused for a fixed list of delays), 0 attempts
//! is an error as in every builder, and the hooks and `tracing` events
//! report the limit that is applied.
//!
//! Every driver (these loops, `stagger run`, the simulator, the tower,
//! reqwest and tonic integrations) decides through one sans-IO state machine,
//! [`Decision`]: given a classified [`Failure`] and the time elapsed, it
//! answers [`Action::Retry`] with the wait or [`Action::Stop`] with the
//! reason. It owns `max_attempts`, the deadline, server [`hint`]s (what a
//! hint does is a [`HintPolicy`]: ours, the AWS SDKs' or gRPC's) and the
//! [`budget`]; the drivers only sleep and call.
//!
//! A client that a server throttles (HTTP 429, an AWS throttling code such
//! as S3's `SlowDown`, GitHub's rate limits, gRPC `RESOURCE_EXHAUSTED`: see
//! [what counts](guide::adaptive#what-counts-as-a-throttle))
//! also needs to send slower: [`RetryPolicy::with_rate_limiter`] puts an
//! [`AdaptiveLimiter`] (the AWS SDKs' adaptive retry mode, see [`limiter`])
//! in front of every attempt of every driver, the first attempt included.
//!
//! # Classifying
//! One vocabulary for every driver (see [`classify`]): a [`Classifier`]
//! classifies errors, and any `Fn(&E) -> Failure` is one ([`classify_io`](classify::io::classify_io),
//! a closure); [`RetryIf`] makes one from a predicate. Where an attempt
//! returns a response that may itself be a failure (an HTTP 503), a
//! [`ClassifyResult`] judges both; every classifier of errors is one, so
//! `.classify(classify_io)` works on a tower layer too.
//!
//! # Deadlines
//! The deadline is the total time from the start of attempt 1, the
//! operations' own time included. No wait ever ends at or after it. An
//! async attempt can be cut, so in every async driver
//! (`.retry(..).call().await`, the tower layer, the reqwest middleware, a
//! tonic call's `retry_grpc`) an attempt still running when the time left
//! runs out is cut there, with or without a per-attempt timeout
//! ([`RetryPolicy::with_attempt_timeout`]). The cut attempt fails with
//! [`TimedOut`], so an async operation's error type holds one
//! (`E: From<TimedOut>`: `std::io::Error`, `String`, `Box<dyn Error + Send + Sync>`
//! and `anyhow::Error` do; for a type of your own, implement it, or a
//! compile error says so, [`FromTimedOut`]).
//!
//! A blocking call cannot be cut: the blocking driver never starts an
//! attempt once the wait before it would reach the deadline, but it cannot
//! stop one that runs past it. For the same reason a policy with a
//! per-attempt timeout has no blocking `call`: it is a compile error
//! ([`CanBlock`]), not a timeout silently ignored.
//!
//! # State across attempts
//! The operation is an `FnMut`: state that only the closure changes, before
//! each attempt's future starts, can be captured by `move` and changed
//! freely. State the attempts' futures change goes where the futures can
//! reach it without borrowing the closure: behind a reference to a
//! `RefCell` (or `Cell`) the closure captures, or, in a spawned task, in
//! an `Arc` (with a `Mutex` or atomics) of which each attempt's future gets
//! its own handle; the retry future is then `Send`:
//!
//! ```
//! # async fn demo() {
//! use std::sync::{Arc, Mutex};
//! use staggered::{Preset, RetryPolicy};
//!
//! let policy = Arc::new(RetryPolicy::new(Preset::Interactive.backoff()));
//! let tried = Arc::new(Mutex::new(Vec::new())); // what every attempt saw
//! let task = tokio::spawn({
//!     let (policy, tried) = (Arc::clone(&policy), Arc::clone(&tried));
//!     async move {
//!         let mut calls = 0; // changed by the closure alone: captured by `move`
//!         policy
//!             .retry(move |attempt| {
//!                 calls += 1;
//!                 let tried = Arc::clone(&tried); // this attempt's handle
//!                 async move {
//!                     tokio::task::yield_now().await;
//!                     tried.lock().unwrap().push((attempt, calls));
//!                     if attempt < 2 { Err(std::io::Error::other("busy")) } else { Ok(attempt) }
//!                 }
//!             })
//!             .call()
//!             .await
//!     }
//! });
//! assert_eq!(task.await.unwrap().unwrap(), 2);
//! assert_eq!(*tried.lock().unwrap(), [(1, 1), (2, 2)]);
//! # }
//! # tokio::runtime::Builder::new_multi_thread().enable_time().build().unwrap().block_on(demo());
//! ```
//!
//! An async closure (`async |attempt| ...`) that borrows its surroundings
//! is not an `FnMut` returning a future (each call's future would borrow
//! the closure); keep its state behind a reference as above.
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
//! Generated from the comments on the features in `Cargo.toml`:
//!
#![cfg_attr(feature = "document-features", doc = document_features::document_features!())]
#![cfg_attr(
    not(feature = "document-features"),
    doc = "(The list is there when the documentation is built with the `document-features` \
           feature, as docs.rs builds it: `cargo doc -p staggered --all-features`.)"
)]
//!
//! Runnable programs are in `examples/`: `blocking`, `tokio`,
//! `spawned_state`, `shared_budget`, `toml_config`, `tower_stack`,
//! `reqwest_retry_after`, `tonic_retry`, `tracing_events`, `metrics` and
//! `adaptive_limiter` (`cargo run -p staggered --example NAME --all-features`).
//!
//! # The guide
//! [The guide](guide) explains every strategy with a chart of its delays,
//! the cap, the presets and where their values come from, the retry
//! decision, budgets, adaptive rate limiting, gRPC with tonic and metrics;
//! its chapter [Coming from another library](guide::coming_from) maps
//! backon, backoff, tokio-retry, tower, the AWS SDKs, gRPC and Polly onto
//! this crate.
#![cfg_attr(not(feature = "std"), no_std)]
// On docs.rs, each item gated by a feature says which (`rustdoc-args` in
// `Cargo.toml`).
#![cfg_attr(docsrs, feature(doc_cfg))]
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
// Documentation only: the chapters, their examples (run as doctests) and
// charts stay out of every build that is not rustdoc's.
mod error;
#[cfg(doc)]
pub mod guide;
mod integrations;
#[cfg(feature = "std")]
pub mod limiter;
mod math;
#[cfg(feature = "metrics")]
pub mod metrics;
mod retry;
mod rng;
mod schedule;
pub mod sleep;
#[cfg(feature = "std")]
mod sync;
// The budgets' and the limiter's shared state under loom (`--cfg loom`).
#[cfg(all(test, loom))]
mod loom_models;
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
#[cfg(feature = "tonic")]
pub use integrations::tonic;
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
pub use classify::quota::Quota;
pub use classify::{
    AlwaysTransient, ByResult, Classifier, ClassifyResult, DefaultRules, ErrorKind, Errors, Failure, Hint,
    ResponseRules, RetryIf,
};
#[cfg(feature = "std")]
pub use limiter::AdaptiveLimiter;
#[cfg(feature = "std")]
pub use retry::cancel::CancelFlag;
pub use retry::decision::{Action, Decision, Limits, StopReason};
pub use retry::event::{GiveUpEvent, HedgeEvent, Hooks, NoNotify, Notify, OnGiveUp, OnRetry, RetryEvent};
pub use retry::failed::FailedAttempt;
#[cfg(feature = "std")]
pub use retry::hedging::{Hedging, MAX_HEDGED_ATTEMPTS};
pub use retry::hint_policy::HintPolicy;
pub use retry::policy::{RetryPolicy, SERVICE_MAX_HINT};
#[cfg(feature = "std")]
pub use retry::retry_error::BoxedError;
pub use retry::retry_error::{Cancelled, Retried, RetryError, TimedOut};
pub use retry::retrying;
pub use retry::retrying::Retrying;
pub use retry::timeout::{AttemptTimeout, CanBlock, FromTimedOut, NoTimeout, Timeout};
pub use schedule::compose;

/// This crate's own README (its registry page): its example compiles and runs.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
