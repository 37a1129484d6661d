//! The retry loop itself: what wrapping a call in staggered, backon,
//! backoff, retry or tokio-retry costs over calling it bare.
//!
//! The operation is [`operation`], a pure function that returns its
//! [`black_box`]ed input: no I/O, so the loop's own cost is all that differs
//! between rows. Two paths:
//! - [`Path::Success`]: the operation succeeds at once. The schedule (full
//!   jitter where the crate has it, base 100 ms, 3 attempts) is never read,
//!   but is configured as a user would: see [`Info::per_call`].
//! - [`Path::FailOnce`]: the operation fails once, then succeeds, on a
//!   zero-delay schedule, so no blocking row sleeps (`std::thread::sleep`
//!   returns at once for zero). tokio's `sleep(ZERO)` does not: it registers
//!   a timer rounded up to the next millisecond tick and yields to the
//!   runtime, so every async row that sleeps waits up to about 1 ms.
//!
//! Each crate is an adapter ([`BlockingRetry`], [`AsyncRetry`]) configured
//! once, outside the timed loop, and handed a fresh operation per call.
//! [`Calls`] runs one adapter on one path as a timed
//! [`Workload`] of one call per unit; the async
//! rows run all the calls of a round inside one `block_on` of a tokio
//! current-thread runtime, so entering the runtime is not charged per call.

mod adapters;
pub mod report;

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::hint::black_box;
use std::time::Duration;

use tokio::runtime::Runtime;

pub use adapters::{
    Backoff, Backon, BackonReady, Bare, BareSleepZero, Retry, Staggered, StaggeredReady, TokioRetry,
};

use crate::harness::Workload;

/// The base delay of the success path's schedule (never waited: no retry).
pub const BASE: Duration = Duration::from_millis(100);
/// The attempts the success path's schedule allows (2 retries).
pub const MAX_ATTEMPTS: u32 = 3;

/// The operation's error. It never happens on [`Path::Success`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failed;

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed")
    }
}

impl std::error::Error for Failed {}

/// An async attempt cut at its time limit fails too (staggered's async
/// driver asks the error type to say so; the benchmarks never cut one).
impl From<staggered::TimedOut> for Failed {
    fn from(_: staggered::TimedOut) -> Self {
        Failed
    }
}

/// The measured operation: returns its input, opaque to the optimiser.
#[inline(always)]
pub fn operation(x: u64) -> Result<u64, Failed> {
    Ok(black_box(x))
}

/// [`operation`] on input `x` that fails on its first call.
#[inline(always)]
pub fn fail_once(x: u64) -> impl FnMut() -> Result<u64, Failed> {
    let mut failed = false;
    move || {
        if failed {
            operation(x)
        } else {
            failed = true;
            Err(Failed)
        }
    }
}

/// [`operation`] on input `x` as an async operation:
/// `move || async move { operation(x) }` (a macro: a closure returning an
/// `async` block has a type no function signature can name).
macro_rules! operation_async {
    ($x:expr) => {{
        let x: u64 = $x;
        move || async move { operation(x) }
    }};
}

/// [`fail_once`] as an async operation on input `x`.
macro_rules! fail_once_async {
    ($x:expr) => {{
        let x: u64 = $x;
        let mut failed = false;
        move || {
            let fail = !std::mem::replace(&mut failed, true);
            async move {
                if fail {
                    Err(Failed)
                } else {
                    operation(x)
                }
            }
        }
    }};
}

/// A retry loop driven by blocking calls.
pub trait BlockingRetry {
    /// Calls `op` until it succeeds or the crate gives up; the value, if any.
    fn call<F: FnMut() -> Result<u64, Failed>>(&self, op: F) -> Option<u64>;
}

/// A retry loop driven by awaiting.
pub trait AsyncRetry {
    /// Awaits `op` until it succeeds or the crate gives up; the value, if any.
    fn call<F, Fut>(&self, op: F) -> impl Future<Output = Option<u64>>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64, Failed>>;
}

/// Blocking call or async await.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// A plain call on this thread.
    Blocking,
    /// Awaited on a tokio current-thread runtime.
    Async,
}

/// What the operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// Succeeds at once: 1 attempt per call.
    Success,
    /// Fails once, then succeeds after a zero delay: 2 attempts per call.
    FailOnce,
}

impl Path {
    /// Attempts (calls of the operation) per retried call.
    pub const fn attempts(self) -> u64 {
        match self {
            Path::Success => 1,
            Path::FailOnce => 2,
        }
    }
}

/// Whose loop a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No retry crate: the baseline of its driver and path.
    Bare,
    /// staggered's `RetryPolicy`.
    Staggered,
    /// A peer crate, or a reference row.
    Peer,
}

/// What a row of the table says about one adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// The crate (or "bare"), as printed.
    pub name: &'static str,
    /// The command-line name of the row, for `--once`: `{driver}-{path}-{name}`.
    pub slug: String,
    /// Whose loop this is.
    pub role: Role,
    /// How it is driven.
    pub driver: Driver,
    /// What the operation does.
    pub path: Path,
    /// The call, as a user writes it.
    pub api: &'static str,
    /// What is built per call (the configuration itself is built once).
    pub per_call: &'static str,
}

/// One adapter on one path, timed one call per unit.
#[derive(Debug)]
pub struct Calls<A> {
    adapter: A,
    info: Info,
    /// The runtime of an async row, `None` for a blocking one.
    runtime: Option<Runtime>,
}

impl<A> Calls<A> {
    fn new(adapter: A, driver: Driver, path: Path, row: Row) -> Self {
        let runtime = match driver {
            Driver::Blocking => None,
            Driver::Async => Some(
                tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .expect("a current-thread runtime"),
            ),
        };
        let slug = format!(
            "{}-{}-{}",
            match driver {
                Driver::Blocking => "blocking",
                Driver::Async => "async",
            },
            match path {
                Path::Success => "ok",
                Path::FailOnce => "fail",
            },
            row.name
        );
        let info =
            Info { name: row.name, slug, role: row.role, driver, path, api: row.api, per_call: row.per_call };
        Calls { adapter, info, runtime }
    }
}

/// The static part of a row's [`Info`].
#[derive(Debug, Clone, Copy)]
struct Row {
    name: &'static str,
    role: Role,
    api: &'static str,
    per_call: &'static str,
}

/// A row of the comparison, behind a trait object so the lineup is one list.
pub trait Runner: Workload {
    /// The row's description.
    fn info(&self) -> &Info;
    /// One call on input `x`: the value returned and the attempts made.
    fn check(&mut self, x: u64) -> (Option<u64>, u64);
}

/// Counts the calls of `op` in `calls`.
fn counted<'a, T, F: FnMut() -> T + 'a>(calls: &'a Cell<u64>, mut op: F) -> impl FnMut() -> T + 'a {
    move || {
        calls.set(calls.get() + 1);
        op()
    }
}

/// A blocking row: [`BlockingRetry`] on its path.
#[derive(Debug)]
pub struct BlockingRow<A>(pub Calls<A>);

impl<A: BlockingRetry> Workload for BlockingRow<A> {
    fn units_per_batch(&self) -> u64 {
        1
    }

    fn run(&mut self, calls: u64) {
        // Opaque at every call: the configuration is read from memory, as a
        // user's would be, and nothing read from it is kept from one call to
        // the next, however much of a crate's loop is inlined here.
        let adapter = &self.0.adapter;
        match self.0.info.path {
            Path::Success => {
                for i in 0..calls {
                    let x = black_box(i);
                    black_box(black_box(adapter).call(move || operation(x)));
                }
            }
            Path::FailOnce => {
                for i in 0..calls {
                    black_box(black_box(adapter).call(fail_once(black_box(i))));
                }
            }
        }
    }
}

impl<A: BlockingRetry> Runner for BlockingRow<A> {
    fn info(&self) -> &Info {
        &self.0.info
    }

    fn check(&mut self, x: u64) -> (Option<u64>, u64) {
        let calls = Cell::new(0);
        let value = match self.0.info.path {
            Path::Success => self.0.adapter.call(counted(&calls, move || operation(x))),
            Path::FailOnce => self.0.adapter.call(counted(&calls, fail_once(x))),
        };
        (value, calls.get())
    }
}

/// An async row: [`AsyncRetry`] on its path, on a current-thread runtime.
#[derive(Debug)]
pub struct AsyncRow<A>(pub Calls<A>);

impl<A: AsyncRetry> Workload for AsyncRow<A> {
    fn units_per_batch(&self) -> u64 {
        1
    }

    fn run(&mut self, calls: u64) {
        // Opaque at every call, as for a blocking row.
        let adapter = &self.0.adapter;
        let runtime = self.0.runtime.as_ref().expect("an async row has a runtime");
        let path = self.0.info.path;
        // One `block_on` for all the calls: the runtime is entered once.
        runtime.block_on(async move {
            match path {
                Path::Success => {
                    for i in 0..calls {
                        black_box(black_box(adapter).call(operation_async!(black_box(i))).await);
                    }
                }
                Path::FailOnce => {
                    for i in 0..calls {
                        black_box(black_box(adapter).call(fail_once_async!(black_box(i))).await);
                    }
                }
            }
        });
    }
}

impl<A: AsyncRetry> Runner for AsyncRow<A> {
    fn info(&self) -> &Info {
        &self.0.info
    }

    fn check(&mut self, x: u64) -> (Option<u64>, u64) {
        let calls = Cell::new(0);
        let runtime = self.0.runtime.as_ref().expect("an async row has a runtime");
        let adapter = &self.0.adapter;
        let value = runtime.block_on(async {
            match self.0.info.path {
                Path::Success => adapter.call(counted(&calls, operation_async!(x))).await,
                Path::FailOnce => adapter.call(counted(&calls, fail_once_async!(x))).await,
            }
        });
        (value, calls.get())
    }
}

fn blocking<A: BlockingRetry + 'static>(adapter: A, path: Path, row: Row) -> Box<dyn Runner> {
    Box::new(BlockingRow(Calls::new(adapter, Driver::Blocking, path, row)))
}

fn asynchronous<A: AsyncRetry + 'static>(adapter: A, path: Path, row: Row) -> Box<dyn Runner> {
    Box::new(AsyncRow(Calls::new(adapter, Driver::Async, path, row)))
}

const BARE: Row = Row { name: "bare", role: Role::Bare, api: "op()", per_call: "nothing" };
const BARE_ASYNC: Row = Row { name: "bare", role: Role::Bare, api: "op().await", per_call: "nothing" };

/// Every row: per path, the blocking rows then the async ones, each group
/// starting with its bare baseline and staggered.
pub fn lineup() -> Vec<Box<dyn Runner>> {
    use Path::{FailOnce, Success};
    let staggered = Row {
        name: "staggered",
        role: Role::Staggered,
        api: "policy.retry(|_| op()).call()",
        per_call: "nothing: the policy is kept",
    };
    let staggered_async = Row { api: "policy.retry(|_| async { op() }).call()", ..staggered };
    let backon = Row {
        name: "backon",
        role: Role::Peer,
        api: "op.retry(builder).call()",
        per_call: "backoff from the builder (seeds fastrand)",
    };
    let backon_async = Row { api: "op.retry(builder).await", ..backon };
    let backoff = Row {
        name: "backoff",
        role: Role::Peer,
        api: "backoff::retry(b.clone(), op)",
        per_call: "clone of the backoff; reset() reads the clock",
    };
    let backoff_zero = Row { per_call: "backoff::backoff::Constant::new(ZERO)", ..backoff };
    let backoff_async = Row { api: "backoff::future::retry(b.clone(), op)", ..backoff };
    let backoff_async_zero = Row { api: "backoff::future::retry(Constant::new(ZERO), op)", ..backoff_zero };
    let retry = Row {
        name: "retry",
        role: Role::Peer,
        api: "retry::retry(delays, op)",
        per_call: "Exponential::from_millis(100).map(jitter).take(2)",
    };
    let retry_zero = Row { per_call: "NoDelay.take(2)", ..retry };
    let tokio_retry = Row {
        name: "tokio-retry",
        role: Role::Peer,
        api: "Retry::start(delays, op) (spawn's new name)",
        per_call: "ExponentialBackoff::from_millis(2).factor(50).map(jitter).take(2)",
    };
    let tokio_retry_zero = Row { per_call: "FixedInterval::from_millis(0).take(2)", ..tokio_retry };
    let sleep_zero = Row {
        name: "bare-sleep0",
        role: Role::Peer,
        api: "op(), else sleep(ZERO).await; op()",
        per_call: "a tokio timer (the cost of sleeping 0)",
    };
    let staggered_ready = Row {
        name: "staggered-ready",
        api: "policy.retry(|_| op()).with_timer(&|_| ready(()), &TokioClock).call()",
        per_call: "nothing; the sleeper is ready at once (no timer)",
        ..staggered
    };
    let backon_ready = Row {
        name: "backon-ready",
        api: "op.retry(builder).sleep(|_| ready(())).await",
        per_call: "backoff from the builder; the sleeper is ready at once (no timer)",
        ..backon
    };
    vec![
        blocking(Bare, Success, BARE),
        blocking(Staggered::jittered(), Success, staggered),
        blocking(Backon::jittered(), Success, backon),
        blocking(Backoff::jittered(), Success, backoff),
        blocking(Retry::jittered(), Success, retry),
        asynchronous(Bare, Success, BARE_ASYNC),
        asynchronous(Staggered::jittered(), Success, staggered_async),
        asynchronous(Backon::jittered(), Success, backon_async),
        asynchronous(Backoff::jittered(), Success, backoff_async),
        asynchronous(TokioRetry::jittered(), Success, tokio_retry),
        blocking(Bare, FailOnce, Row { api: "op(), else op()", ..BARE }),
        blocking(Staggered::zero(), FailOnce, staggered),
        blocking(Backon::zero(), FailOnce, backon),
        blocking(Backoff::zero(), FailOnce, backoff_zero),
        blocking(Retry::zero(), FailOnce, retry_zero),
        asynchronous(Bare, FailOnce, Row { api: "op().await, else op().await", ..BARE_ASYNC }),
        asynchronous(BareSleepZero, FailOnce, sleep_zero),
        asynchronous(Staggered::zero(), FailOnce, staggered_async),
        asynchronous(Backon::zero(), FailOnce, backon_async),
        asynchronous(Backoff::zero(), FailOnce, backoff_async_zero),
        asynchronous(TokioRetry::zero(), FailOnce, tokio_retry_zero),
        asynchronous(StaggeredReady::zero(), FailOnce, staggered_ready),
        asynchronous(BackonReady::zero(), FailOnce, backon_ready),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_unique_and_every_group_has_one_bare_baseline() {
        let infos: Vec<Info> = lineup().iter().map(|r| r.info().clone()).collect();
        for (i, a) in infos.iter().enumerate() {
            assert!(infos[i + 1..].iter().all(|b| b.slug != a.slug), "duplicate {}", a.slug);
            let bare = infos
                .iter()
                .filter(|b| b.role == Role::Bare && b.driver == a.driver && b.path == a.path)
                .count();
            assert_eq!(bare, 1, "{}", a.slug);
        }
    }

    #[test]
    fn fail_once_fails_once() {
        let mut op = fail_once(7);
        assert_eq!((op(), op(), op()), (Err(Failed), Ok(7), Ok(7)));
    }
}
