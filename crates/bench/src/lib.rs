//! Benchmarks of staggered against its peer crates.
