//! A discrete-event simulator that drives the real `staggered` schedules on
//! virtual time. The scenarios land with their issues.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod engine;
#[allow(dead_code, unused_imports)] // used by the contention scenario, next
mod rng;
pub mod units;

pub use engine::Engine;
