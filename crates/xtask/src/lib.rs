//! What of the project's own checks only a doctest can do: the repository's
//! front page, which no published package ships, keeps Rust examples that
//! compile and run. (The checks themselves are the `xtask` binary.)

/// The repository's README: its Rust examples compile and run.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
