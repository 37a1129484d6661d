//! The guide: retries with exponential backoff and jitter, from the words
//! to the choice of a strategy.
//!
//! Each chapter is a page of this module; the API reference is the rest of
//! this crate's documentation.
//!
//! ![Four strategies side by side: per retry the range and median of the delay, and the worst-case total wait](charts/compare.svg)
//!
//! # Schedules
//!
//! - [The words](terms): attempt, retry, max_attempts, base, multiplier,
//!   max_delay, deadline.
//! - [Strategies](strategies): every strategy, its formula, where it comes
//!   from, and a chart of its delays.
//! - [The cap, and the interval mode](cap): why no delay passes
//!   `max_delay`, and how to reproduce systems that cap the interval instead.
//! - [Presets](presets): ready schedules and where each value comes from.
//!
//! # Retrying
//!
//! - [The retry decision](retrying): the calls, classification, server
//!   hints, the deadline, stop reasons, hooks and logs, polling until a
//!   value is ready, cancelling, hedging.
//! - [Budgets](budgets): the AWS token bucket, Finagle's ratio budget and
//!   gRPC's retry throttling.
//! - [Adaptive rate limiting](adaptive): the AWS SDKs' adaptive retry mode,
//!   a client-side rate limiter that learns a throttling server's rate.
//! - [Hedging](hedging): a copy of a slow request, the first answer wins;
//!   where it cuts the tail for a few percent more load, where it harms a
//!   busy server, and what a budget saves.
//!
//! # Using it
//!
//! - [Crate features and integrations](features): `no_std`, tokio, tower,
//!   reqwest, tracing, metrics, configuration files.
//! - [gRPC with tonic](grpc): retrying tonic calls by gRPC's retry design:
//!   status codes, server pushback, `grpc-timeout`, the retry throttle.
//! - [Metrics](metrics): counters of operations, retries and give-ups, the
//!   retry delays and the budget's level, for Prometheus, OpenTelemetry or
//!   any `metrics` exporter.
//! - [Coming from another library](coming_from): backon, backoff,
//!   tokio-retry, tower, the AWS SDKs, gRPC, Polly, Google, cenkalti.
//!
//! The command-line tool ([`stagger`](https://crates.io/crates/stagger))
//! and the simulator ([`staggered-sim`](https://docs.rs/staggered-sim))
//! have chapters of their own in the repository's `docs/`: the command
//! line, `stagger run`, choosing a strategy from the simulator's
//! experiments, a throttling server, and the benchmarks against the peer
//! crates.
//!
//! Every chart in this guide is drawn by `stagger` itself, and each chapter
//! gives the command that draws it again; a test checks that the files the
//! crate ships are what those commands print. The Rust examples are
//! compiled and run as tests.
// `chart!` below, written out: a macro is not yet defined up here.
#![doc = concat!(
    "<script type=\"image/svg+xml\" data-chart=\"charts/compare.svg\">\n",
    include_str!("charts/compare.svg"),
    "</script>"
)]
#![doc = include_str!("charts.html")]

// The chapters are Markdown files beside this one, so that they read as
// Markdown in the repository too; their links to each other and to the API
// are rustdoc's intra-doc links. Their charts are SVG files under
// `charts/`: a chapter shows one as a Markdown image, and `chart!` ships the
// file's text in the page, where `charts.html` points the image at it
// (docs.rs hosts the documentation, not the crate's other files).

/// The text of the chart file `$path` (relative to this directory) in a
/// block of the page that `charts.html` finds by that path.
macro_rules! chart {
    ($path:literal) => {
        concat!(
            "<script type=\"image/svg+xml\" data-chart=\"",
            $path,
            "\">\n",
            include_str!($path),
            "</script>"
        )
    };
}

#[doc = include_str!("terms.md")]
pub mod terms {}

#[doc = include_str!("strategies.md")]
#[doc = chart!("charts/constant.svg")]
#[doc = chart!("charts/exponential.svg")]
#[doc = chart!("charts/full.svg")]
#[doc = chart!("charts/equal.svg")]
#[doc = chart!("charts/decorrelated.svg")]
#[doc = chart!("charts/proportional.svg")]
#[doc = chart!("charts/additive.svg")]
#[doc = chart!("charts/smooth.svg")]
#[doc = include_str!("charts.html")]
pub mod strategies {}

#[doc = include_str!("cap.md")]
#[doc = chart!("charts/cap-delay.svg")]
#[doc = chart!("charts/cap-interval.svg")]
#[doc = include_str!("charts.html")]
pub mod cap {}

#[doc = include_str!("presets.md")]
pub mod presets {}

#[doc = include_str!("retrying.md")]
pub mod retrying {}

#[doc = include_str!("budgets.md")]
pub mod budgets {}

#[doc = include_str!("adaptive.md")]
pub mod adaptive {}

// Its example hedges an async call on tokio's paused time.
#[cfg_attr(any(not(doctest), feature = "tokio"), doc = include_str!("hedging.md"))]
#[cfg_attr(all(doctest, not(feature = "tokio")), doc = "Its examples run with the `tokio` feature.")]
#[doc = chart!("charts/hedging.svg")]
#[doc = include_str!("charts.html")]
pub mod hedging {}

#[doc = include_str!("features.md")]
pub mod features {}

// A chapter whose examples need a feature is a doctest only with it; its
// page is there in every build of the documentation.
#[cfg_attr(any(not(doctest), feature = "tonic"), doc = include_str!("grpc.md"))]
#[cfg_attr(all(doctest, not(feature = "tonic")), doc = "Its examples run with the `tonic` feature.")]
pub mod grpc {}

#[cfg_attr(any(not(doctest), feature = "metrics"), doc = include_str!("metrics.md"))]
#[cfg_attr(all(doctest, not(feature = "metrics")), doc = "Its examples run with the `metrics` feature.")]
pub mod metrics {}

#[doc = include_str!("coming-from.md")]
pub mod coming_from {}
