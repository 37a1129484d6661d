//! The shared state behind the clones of the budgets and the adaptive
//! limiter: std's atomics, `Mutex` and `Arc`, or loom's when the crate is
//! built with `--cfg loom`, so that the loom models (`src/loom_models/`)
//! explore every interleaving of the very code users run.

#[cfg(not(loom))]
pub(crate) use std::sync::{
    atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering},
    Arc, Mutex, MutexGuard,
};

#[cfg(loom)]
pub(crate) use loom::sync::{
    atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering},
    Arc, Mutex, MutexGuard,
};
