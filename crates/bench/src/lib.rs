//! Benchmarks of `staggered` against its peer crates. Unpublished: it exists
//! so that the library's own dependency tree never sees the peers.
//!
//! - [`harness`]: a small, honest timing harness (warm-up, interleaved rounds
//!   timed with `Instant`, median and min per unit of work), reusable by any
//!   bench target of this crate.
//! - [`alloc`]: a counting global allocator, to prove "no heap allocation
//!   per delay".
//! - [`schedules`]: the same jittered exponential schedule configured in
//!   staggered and in backon, backoff, tokio-retry, exponential-backoff and
//!   retry-policies, behind one adapter trait.
//! - [`report`]: the comparison table, as plain text.
//! - [`retry_loop`]: the retry loop itself, on the success path and on a
//!   fail-once path, through staggered, backon, backoff, retry and
//!   tokio-retry against a bare call, blocking and async, with its own
//!   tables ([`retry_loop::report`]).
//!
//! `cargo bench -p bench` runs both benches (`retry_loop` and `schedules`,
//! in that order); `--bench NAME` runs one. Count instructions with
//! `crates/bench/callgrind.sh` (schedules) and
//! `crates/bench/callgrind.sh --bench retry_loop`.

pub mod alloc;
pub mod harness;
pub mod report;
pub mod retry_loop;
pub mod schedules;
