//! Adaptive rate limiting: a client that is being throttled sends slower.
//!
//! # Why a limiter and not only a budget?
//! A [budget](crate::budget) bounds retries during an outage. A client that
//! is throttled (HTTP 429, `SlowDown`, `ThrottlingException`, gRPC
//! `RESOURCE_EXHAUSTED`) has a different problem: it offers more than the
//! server admits, so every attempt, first attempts included, competes for
//! too little capacity, and backing off between the retries of one
//! operation does nothing about the next operation's first attempt. The AWS
//! SDKs answer that with their "adaptive" retry mode, which
//! [`AdaptiveLimiter`] offers to any client:
//!
//! - It is **disabled** until the first throttled response: until then no
//!   attempt takes a token or waits.
//! - It **measures the send rate**: responses counted in half-second
//!   buckets, smoothed (each new bucket's rate weighs 0.8). Until the first
//!   throttle it only counts them, with no clock and no lock, and the first
//!   throttle takes their mean rate as the rate it happened at.
//! - A **throttle cuts the allowed rate** to 0.7 times the rate at which it
//!   happened, and from there the rate **grows back along a cubic curve**
//!   (TCP CUBIC's): quickly while far below the old rate, slowly near it,
//!   then faster again as it probes above.
//! - The allowed rate never exceeds twice the measured rate and never falls
//!   below 0.5 per second; it fills a **token bucket** holding one second of
//!   it (at least one token) from which **every attempt takes a token**
//!   before it is sent, waiting when the bucket is empty.
//!
//! The result: a throttled fleet settles near the rate the server admits
//! instead of hammering it and retrying the rejections.
//!
//! # Two modes
//! The above is [`AdaptiveMode::Aws`], the default. With a few clients each
//! sending a large share of the limit, its deep cuts and slow regrowth
//! leave the fleet well below the limit; [`AdaptiveMode::Tracking`]
//! ([`AdaptiveLimiterBuilder::with_mode`]) measures instead what share of
//! its attempts the server admitted, a second or more at a time, and sends
//! just below that, probing up while nothing is throttled: fast back to
//! what the server last admitted, by 2% a window past it.
//!
//! # Bounded waiting
//! Once on, an attempt waits for its token as long as it takes, up to the
//! policy's deadline. A client that offers more than the server admits
//! then queues without bound: give the policy a
//! [`max_token_wait`](crate::RetryPolicy::with_max_token_wait) and an
//! attempt that would wait longer stops with
//! [`StopReason::TokenWaitTooLong`](crate::StopReason::TokenWaitTooLong),
//! shedding the work at once instead of late.
//!
//! # Announced quotas
//! A server that **announces its quota** (the IETF `RateLimit` fields,
//! `X-RateLimit-Remaining` and `-Reset`) spares the client learning it
//! from throttles: the
//! retry drivers read the quota off every response, successes included,
//! and [`AdaptiveLimiter::announce`] paces the attempts to the requests
//! left over the time left ([`quota`]), before any throttle.

mod adaptive;
mod bucket;
mod cubic;
mod meter;
mod mode;
pub mod quota;
mod tracking;

pub use adaptive::{AdaptiveLimiter, AdaptiveLimiterBuilder, LimiterMetrics};
pub use mode::{AdaptiveMode, UnknownMode};
pub use quota::{MAX_QUOTA_RESET, MAX_QUOTA_WAIT};

use crate::classify::quota::Quota;

use core::time::Duration;

/// A client-side rate limiter the retry drivers take a token from before
/// every attempt (the first included) and report every response to. Give
/// one to a policy with [`RetryPolicy::with_rate_limiter`](crate::RetryPolicy::with_rate_limiter);
/// [`AdaptiveLimiter`] is the one this crate offers.
pub trait RateLimit: Send + Sync {
    /// Takes a token for an attempt about to be sent, or says how long to
    /// wait before asking again.
    fn try_acquire(&self) -> Result<(), Duration>;

    /// Records the response to an attempt: `throttled` if the server said
    /// to slow down (the classifier's [`ErrorKind::Throttled`](crate::ErrorKind::Throttled)).
    fn record_response(&self, throttled: bool);

    /// Tells the limiter the quota a server announced on a response
    /// (`RateLimit`, `X-RateLimit-Remaining`: see
    /// [`classify::quota`](crate::classify::quota)), the response's own
    /// [`record_response`](RateLimit::record_response) aside. Does nothing
    /// unless implemented; an [`AdaptiveLimiter`] paces to it.
    fn announce(&self, quota: Quota) {
        let _ = quota;
    }

    /// Records that an attempt waited `waited` in all for its token, for
    /// metrics. Does nothing unless implemented.
    fn record_wait(&self, waited: Duration) {
        let _ = waited;
    }

    /// A snapshot of the limiter's state, if it keeps one (an
    /// [`AdaptiveLimiter`] does).
    fn metrics(&self) -> Option<LimiterMetrics> {
        None
    }
}

impl<K> RateLimit for AdaptiveLimiter<K>
where
    K: crate::sleep::Clock + Send + Sync,
    K::Instant: Send + Sync,
{
    #[inline]
    fn try_acquire(&self) -> Result<(), Duration> {
        AdaptiveLimiter::try_acquire(self)
    }

    #[inline]
    fn record_response(&self, throttled: bool) {
        AdaptiveLimiter::record_response(self, throttled);
    }

    fn announce(&self, quota: Quota) {
        AdaptiveLimiter::announce(self, quota);
    }

    fn record_wait(&self, waited: Duration) {
        self.count_wait(waited);
    }

    fn metrics(&self) -> Option<LimiterMetrics> {
        Some(AdaptiveLimiter::metrics(self))
    }
}
