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
//!
//! Run the comparison with `cargo bench -p bench --bench schedules`, and
//! count instructions with `crates/bench/callgrind.sh`.

pub mod alloc;
pub mod harness;
pub mod report;
pub mod schedules;
