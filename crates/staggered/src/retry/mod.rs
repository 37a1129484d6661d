//! The retry decision and its drivers: one sans-IO [`Decision`](crate::Decision)
//! says whether and when to retry; the [`RetryPolicy`](crate::RetryPolicy)
//! configures it once, and the blocking loop and the async future only sleep
//! and call. [`retrying`] runs one operation under a policy with the types
//! flowing from it. Hooks ([`event`]), `tracing` ([`trace`]) and `metrics`
//! ([`instruments`]) hear every retry and give-up from the one place that decides.

pub(crate) mod blocking;
pub(crate) mod decision;
pub(crate) mod event;
pub(crate) mod future;
pub(crate) mod hint_policy;
pub(crate) mod instruments;
pub(crate) mod limit;
pub(crate) mod parts;
pub(crate) mod policy;
pub(crate) mod retry_error;
pub mod retrying;
pub(crate) mod steering;
pub(crate) mod timeout;
pub(crate) mod trace;
