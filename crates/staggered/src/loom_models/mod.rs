//! loom models of the shared state behind the clones of the budgets and the
//! adaptive limiter: two or three threads take, refund, deposit and read at
//! once, and loom runs every interleaving of their atomic operations and
//! locks (all of them, or those within a preemption bound: see
//! [`explore`]). Each model checks
//! that nothing is created or lost, that levels stay within their bounds,
//! and that the allowed and refused counts add up.
//!
//! Built only with `--cfg loom`, which puts loom's atomics, `Mutex` and
//! `Arc` behind `crate::sync`:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p staggered --lib --release loom_models -- --nocapture
//! ```
//!
//! `LOOM_MAX_PREEMPTIONS` overrides each model's bound.

mod adaptive;
mod ratio;
mod throttle;
mod token_bucket;

use core::time::Duration;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use loom::sync::atomic::{AtomicU64, Ordering::SeqCst};
use loom::sync::Arc;

/// Checks `model` in every interleaving, or with `Some(n)` in every one
/// with at most `n` preemptions (`LOOM_MAX_PREEMPTIONS` overrides both),
/// and prints how many it explored. A bound keeps a model of a few dozen
/// atomic operations per thread to seconds where all of them would take
/// hours, and the bugs found in practice need few preemptions.
fn explore(name: &str, preemptions: Option<usize>, model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = preemptions;
    }
    let bound = builder.preemption_bound;
    let runs = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&runs);
    let start = Instant::now();
    let failed = Failed { name: name.to_owned(), runs: std::sync::Arc::clone(&runs), start };
    builder.check(move || {
        counted.fetch_add(1, Relaxed);
        model();
    });
    core::mem::forget(failed);
    println!(
        "loom model {name}: {} interleavings explored (preemption bound {}) in {:.2?}",
        runs.load(Relaxed),
        bound.map_or_else(|| "none: all of them".to_owned(), |bound| bound.to_string()),
        start.elapsed()
    );
}

/// Says, when a model fails, in which interleaving and how long after the
/// start: dropped only by the unwinding of a failed check (a passing one
/// forgets it).
struct Failed {
    name: String,
    runs: std::sync::Arc<AtomicUsize>,
    start: Instant,
}

impl Drop for Failed {
    fn drop(&mut self) {
        println!(
            "loom model {}: failed in interleaving {}, {:.2?} after the start",
            self.name,
            self.runs.load(Relaxed),
            self.start.elapsed()
        );
    }
}

/// A clock whose time is a loom atomic, so that reading it is a step loom
/// interleaves with the others, and a thread can move it mid-model.
#[derive(Clone)]
struct ModelClock(Arc<AtomicU64>);

impl ModelClock {
    fn at(time: Duration) -> Self {
        ModelClock(Arc::new(AtomicU64::new(nanos(time))))
    }

    fn set(&self, time: Duration) {
        self.0.store(nanos(time), SeqCst);
    }
}

fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).expect("a model's time fits in u64 nanoseconds")
}

impl crate::sleep::Clock for ModelClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.load(SeqCst))
    }

    fn since(&self, start: Duration) -> Duration {
        self.now().saturating_sub(start)
    }
}
