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
//! // SPEC section 8 at N = 100, with 10 runs instead of 100 to stay quick.
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
//! - **contention** (SPEC section 8, AWS 2015): N clients race to update one
//!   row under optimistic concurrency; a point is the mean calls and
//!   completion time over independent runs. [`ContentionConfig`] (validated,
//!   defaults = the published grid), [`run_contention`],
//!   [`ContentionReport`], and [`Reading`] for the one-line verdict. The
//!   exact reading of the model is documented on [`run_contention`] (events)
//!   and [`ContentionStrategy::backoff`] (backoff parameters).
//! - **overload** (SPEC section 7, budgets): a server at 70% load loses half
//!   its capacity for 5 s; clients time out and retry. Without a budget the
//!   retries keep it down after the trigger (a metastable failure); each of
//!   the library's budgets lets it recover. [`OverloadConfig`] (validated,
//!   defaults = the issue's scenario), [`run_overload`] (the model, exactly),
//!   [`OverloadPolicy`], and [`OverloadReport`] with per-second [`OverloadSeries`]
//!   for charts.
//!
//! # Engine and determinism
//! [`Engine`] is a virtual clock and a binary heap of events ordered by (time,
//! insertion order), so ties break the same way every time. Time is in
//! abstract time units ([`units`]: one unit is one millisecond of
//! `Duration`). Every run seeds its generators from its own coordinates
//! (contention: seed, client count, strategy, run index; overload: seed,
//! stream, policy, operation), runs are spread over threads with
//! `std::thread::scope`, and their results are combined in a fixed order: a
//! report is bit-identical for the same configuration on any number of
//! threads.
//!
//! # Crate features
//! None.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod contention;
mod engine;
mod overload;
mod reading;
mod report;
mod rng;
pub mod units;

pub use contention::{
    run_contention, run_contention_with_progress, ContentionConfig, ContentionConfigBuilder, ContentionError,
    ContentionStrategy, RunOutcome, MAX_CLIENTS,
};
pub use engine::Engine;
pub use overload::{
    run_overload, run_overload_with_progress, OverloadConfig, OverloadConfigBuilder, OverloadError,
    OverloadPolicy, OverloadReport, OverloadRow, OverloadSeries, Trigger, MAX_DURATION, MAX_OPERATIONS,
};
pub use reading::{Place, Ranking, Reading, NOISE_Z};
pub use report::{ContentionReport, ContentionRow, Summary};
