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
//! use staggered_sim::{ContentionParams, Experiment};
//!
//! // The 2015 experiment at N = 100, with 10 runs instead of 100 to stay quick.
//! let params = ContentionParams { clients: "100".parse()?, runs: 10, ..ContentionParams::default() };
//! let report = params.run()?;
//! for row in report.rows() {
//!     println!("{:<13} {:>6.0} calls {:>7.0} time units", row.strategy, row.mean_calls(), row.mean_time());
//! }
//! let reading = report.reading(100).unwrap();
//! assert_eq!(reading.work.best.strategy.name(), "full");
//! assert_eq!(reading.time.worst.strategy.name(), "exponential");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Scenarios
//! Each scenario is one module: its parameters as one plain struct (every
//! field a parameter, with its default and its unit in its type, serde on
//! both ways, and, with the `clap` feature, a command-line flag), which is
//! an [`Experiment`]: it validates itself, naming the field at fault
//! ([`Invalid`]), and runs to a report, plain data (`serde::Serialize`)
//! that reads itself (the sentences under the table) and presents itself
//! in the common [`view`] shape ([`Present`]), which the `stagger` CLI
//! exports as a text table, CSV, JSON, Markdown or SVG. The value types are
//! in [`values`].
//!
//! - **contention** (the AWS Architecture Blog's "Exponential Backoff And
//!   Jitter", 2015): N clients race to update one row under optimistic
//!   concurrency; a point is the mean calls and completion time over
//!   independent runs. [`ContentionParams`] (the model, exactly),
//!   [`ContentionReport`] and [`Reading`] for the one-line verdict.
//! - **overload** (retry budgets, as in Finagle, the AWS SDKs and gRPC): a
//!   server at 70% load loses half its capacity for 5 s; clients time out
//!   and retry. Without a budget the retries keep it down after the trigger
//!   (a metastable failure); each of the library's budgets lets it recover.
//!   [`OverloadParams`] and [`OverloadReport`].
//! - **throttling** (the AWS SDKs' adaptive retry mode): clients offer twice
//!   what a rate-limited server admits. Retries add attempts and no
//!   goodput; one [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter)
//!   per client settles the fleet at the server's rate, turning throttles
//!   into waits. [`ThrottlingParams`] and [`ThrottlingReport`]. It shares
//!   with overload its [`Policy`] list and per-second [`Series`].
//! - **hedging** (tail latency, as in "The Tail at Scale" and gRPC's
//!   hedging): a server whose service time has a long tail, with a
//!   concurrency limit and a queue, offered from light load to beyond its
//!   capacity. At light load a copy of a slow request after a learned
//!   percentile cuts the 99.9th percentile many times for a few percent
//!   more requests; near the capacity unbudgeted copies cost goodput, and a
//!   budget bounds them. [`HedgingParams`] and [`HedgingReport`].
//! - **frontier** (a search on the contention experiment): sweeps the
//!   parameters of families of the library's schedules and reports, per
//!   client count, the candidates no other beats on both measures and those
//!   that do the work of `full` in the time of `decorrelated`. Its own
//!   module, [`frontier`], as it has more types than the others.
//!
//! A new scenario is a module beside these, with the same parts, and a
//! variant of [`Scenario`].
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
//! library's binary heap, keyed on both. Time is in abstract time units
//! ([`units`]: one unit is one millisecond of `Duration`). Every run seeds
//! its generators from its own coordinates (contention: seed, client
//! count, strategy, run index; overload: seed, stream, policy, operation;
//! throttling: seed, client, operation; hedging: seed, load, operation,
//! copy), runs are spread over threads with
//! `std::thread::scope`, and their results are combined in a fixed order: a
//! report is bit-identical for the same parameters on any number of
//! threads.
//!
//! # Crate features
//! - `clap`: each scenario's parameters derive `clap::Args` (every field a
//!   flag, its doc comment the help) and [`Scenario`] `clap::ValueEnum`, as
//!   the `stagger` CLI builds `stagger simulate` from them.
//!
//! # The guide
//! The strategies, presets and budgets the experiments drive are explained
//! in [`staggered`'s guide](https://docs.rs/staggered/latest/staggered/guide/index.html).
//! What the experiments show, with their charts, is the chapter "Choosing a
//! strategy" of the repository's `docs/`.
#![deny(missing_docs)]

pub mod contention;
mod engine;
mod experiment;
mod fleet;
pub mod frontier;
pub mod hedging;
pub mod overload;
mod plain;
mod rng;
mod schedule;
mod summary;
pub mod throttling;
pub mod units;
pub mod values;
pub mod view;

pub use contention::{
    ContentionParams, ContentionReport, ContentionRow, ContentionStrategy, Place, Ranking, Reading,
    RunOutcome, MAX_CLIENTS, MAX_CLIENT_PAIRS, MAX_TOTAL_RUNS, NOISE_Z, PUBLISHED_CLIENTS,
};
pub use engine::Engine;
pub use experiment::{Experiment, Invalid, Present, Progress, Scenario, Work};
pub use fleet::{Policy, Series, MAX_ATTEMPTS, MAX_DURATION};
pub use hedging::{HedgingParams, HedgingReport, HedgingRow, MAX_HEDGING_OPERATIONS, MAX_HEDGING_TOTAL};
pub use overload::{OverloadParams, OverloadReport, OverloadRow, MAX_OPERATIONS};
pub use schedule::{
    Median, RetryRow, SampledStats, Samples, Sampling, SamplingError, ScheduleComparison, ScheduleQuery,
    ScheduleReport, WorstCase, ESTIMATE_SEED, ESTIMATE_SEQUENCES, EXACT_SUM_RETRIES, MAX_SAMPLED_DELAYS,
    MAX_SHOWN_RETRIES, UNLIMITED_SHOWN_RETRIES,
};
pub use summary::Summary;
pub use throttling::{
    ThrottlingParams, ThrottlingReport, ThrottlingRow, MAX_THROTTLING_CLIENTS, MAX_THROTTLING_HOP,
    MAX_THROTTLING_OPERATIONS,
};

/// This crate's README (its registry page): its example compiles and runs.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
