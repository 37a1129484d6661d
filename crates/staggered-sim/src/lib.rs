//! A discrete-event simulator that drives the real `staggered` schedules on
//! virtual time.
//!
//! Backoff and jitter are about fleets: one client's schedule looks fine on
//! its own, and the damage only shows when many clients share a resource.
//! This crate replays the published experiments with the library's own
//! [`staggered::Delays`] and [`staggered::Decision`] (every retry or stop is
//! the library's call), so what it measures is the code users run.
//!
//! ```
//! use staggered_sim::{run_contention, ContentionConfig};
//!
//! // The 2015 experiment at N = 100, with 10 runs instead of 100 to stay quick.
//! let config = ContentionConfig::builder().with_clients([100]).with_runs(10).build()?;
//! let report = run_contention(&config);
//! for row in report.rows() {
//!     println!("{:<13} {:>6.0} calls {:>7.0} time units", row.strategy, row.mean_calls(), row.mean_time());
//! }
//! let reading = report.reading(100).unwrap();
//! assert_eq!(reading.work.best.strategy.name(), "full");
//! assert_eq!(reading.time.worst.strategy.name(), "exponential");
//! # Ok::<(), staggered_sim::ContentionError>(())
//! ```
//!
//! # Scenarios
//! Each scenario is one module: a validated configuration with its defaults
//! and errors that name the parameter, the run, a report as plain data
//! (`serde::Serialize`), its reading (the sentences under the table), and
//! its presentation in the common [`view`] shape, which the `stagger` CLI
//! exports as a text table, CSV, JSON, Markdown or SVG. Every configuration
//! is an [`Experiment`] (it knows its [`Work`] and runs with [`Progress`]);
//! every report is [`Present`].
//!
//! - **contention** (the AWS Architecture Blog's "Exponential Backoff And
//!   Jitter", 2015): N clients race to update one row under optimistic
//!   concurrency; a point is the mean calls and completion time over
//!   independent runs. [`ContentionConfig`] (validated, defaults = the
//!   published grid), [`run_contention`], [`ContentionReport`], and
//!   [`Reading`] for the one-line verdict. The exact reading of the model is
//!   documented on [`run_contention`] (events) and
//!   [`ContentionStrategy::backoff`] (backoff parameters).
//! - **overload** (retry budgets, as in Finagle, the AWS SDKs and gRPC): a
//!   server at 70% load loses half its capacity for 5 s; clients time out
//!   and retry. Without a budget the retries keep it down after the trigger
//!   (a metastable failure); each of the library's budgets lets it recover.
//!   [`OverloadConfig`] (validated, defaults = that story), [`run_overload`]
//!   (the model, exactly), [`OverloadPolicy`], and [`OverloadReport`] with
//!   per-second [`OverloadSeries`] for charts.
//! - **throttling** (the AWS SDKs' adaptive retry mode): clients offer twice
//!   what a rate-limited server admits. Retries add attempts and no
//!   goodput; one [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter)
//!   per client settles the fleet at the server's rate, turning throttles
//!   into waits. [`ThrottlingConfig`] (validated, defaults = that story),
//!   [`run_throttling`] (the model, exactly), [`ThrottlingPolicy`], and
//!   [`ThrottlingReport`] with per-second [`ThrottlingSeries`].
//! - **frontier** (a search on the contention experiment): sweeps the
//!   parameters of families of the library's schedules and reports, per
//!   client count, the candidates no other beats on both measures and those
//!   that do the work of `full` in the time of `decorrelated`. Its own
//!   module, [`frontier`], as it has more types than the others.
//!
//! A new scenario is a module beside these, with the same five parts.
//!
//! # Schedule reports
//! [`ScheduleQuery`] and [`ScheduleReport`] report on one schedule as
//! `stagger schedule` shows it: each retry's interval and the range and
//! median of its delay, the worst-case total wait, and sampled sequences
//! with their percentiles; presented in the same [`view`] shape, with a
//! chart of the delays' ranges. [`ScheduleComparison`] puts several
//! strategies with the same parameters in one report and one chart.
//!
//! # Engine and determinism
//! [`Engine`] is a virtual clock and a queue of events ordered by (time,
//! insertion order), so ties break the same way every time: the standard
//! library's binary heap, keyed on both. Time is in abstract time units ([`units`]: one unit is one millisecond of
//! `Duration`). Every run seeds its generators from its own coordinates
//! (contention: seed, client count, strategy, run index; overload: seed,
//! stream, policy, operation; throttling: seed, client, operation), runs are spread over threads with
//! `std::thread::scope`, and their results are combined in a fixed order: a
//! report is bit-identical for the same configuration on any number of
//! threads.
//!
//! # Crate features
//! None.
//!
//! # The guide
#![doc = concat!(
    "What the experiments show, with their charts, is in the guide's chapter [Choosing a strategy](",
    env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/choosing.md)."
)]
#![deny(missing_docs)]

mod contention;
mod engine;
mod experiment;
pub mod frontier;
mod overload;
mod plain;
mod rng;
mod schedule;
mod summary;
mod throttling;
pub mod units;
pub mod view;

pub use contention::{
    run_contention, ContentionConfig, ContentionConfigBuilder, ContentionError, ContentionReport,
    ContentionRow, ContentionStrategy, Place, Ranking, Reading, RunOutcome, MAX_CLIENTS, MAX_CLIENT_PAIRS,
    MAX_TOTAL_RUNS, NOISE_Z, PUBLISHED_CLIENTS,
};
pub use engine::Engine;
pub use experiment::{Experiment, Present, Progress, Work};
pub use overload::{
    run_overload, OverloadConfig, OverloadConfigBuilder, OverloadError, OverloadPolicy, OverloadReport,
    OverloadRow, OverloadSeries, Trigger, MAX_ATTEMPTS, MAX_DURATION, MAX_OPERATIONS,
};
pub use schedule::{
    Median, RetryRow, SampledStats, Samples, Sampling, SamplingError, ScheduleComparison, ScheduleQuery,
    ScheduleReport, WorstCase, ESTIMATE_SEED, ESTIMATE_SEQUENCES, EXACT_SUM_RETRIES, MAX_SAMPLED_DELAYS,
    MAX_SHOWN_RETRIES, UNLIMITED_SHOWN_RETRIES,
};
pub use summary::Summary;
pub use throttling::{
    run_throttling, ThrottlingConfig, ThrottlingConfigBuilder, ThrottlingError, ThrottlingPolicy,
    ThrottlingReport, ThrottlingRow, ThrottlingSeries, MAX_THROTTLING_CLIENTS, MAX_THROTTLING_HOP,
    MAX_THROTTLING_OPERATIONS,
};

/// This crate's README (its registry page): its example compiles and runs.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
