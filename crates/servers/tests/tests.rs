//! Real servers in the loop, one integration binary: nginx's `limit_req`,
//! Flask-Limiter under gunicorn, and the in-process stalling server, each
//! driven for a few seconds through staggered's reqwest middleware. They
//! assert counts and fractions (what the server admitted, what the
//! limiter recorded, which copies a server dropped), never wall time.
//!
//! A test whose server program is missing says it is skipped and passes,
//! except under CI (`CI` set), where .ci/run installs them and a missing
//! one is a failure.

mod real;
