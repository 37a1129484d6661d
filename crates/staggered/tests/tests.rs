//! The integration tests of `staggered`, as one binary.

mod budget;
mod retry;
