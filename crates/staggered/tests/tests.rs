//! The integration tests of `staggered`: one binary, one module per claim.
//!
//! - `schedules::properties`: every delay lies within `bounds()`, counts match
//!   `max_attempts`, and the cap holds, for any valid parameters (proptest).
//! - `schedules::distributions`: each jittered strategy draws from the
//!   distribution SPEC section 2 documents (Kolmogorov-Smirnov, fixed seed).
//! - `schedules::seeds`: the presets reproduce seed 002's and seed 004's tables
//!   and SPEC section 4's values exactly.
//! - `schedules::limits`: extreme parameters neither panic nor overflow, and
//!   bad parameters are rejected naming the field.

mod schedules;
