//! The retry decision and its drivers: one sans-IO [`Decision`](crate::Decision)
//! holds every stop rule; one machine per operation ([`operation`]) does
//! everything a driver must do around an attempt; the blocking loop, the
//! async future and the integrations only sleep, call and race.
//! [`retrying`] is the public face: `policy.retry(op)...call()`.

pub(crate) mod blocking;
#[cfg(feature = "std")]
pub(crate) mod cancel;
pub(crate) mod decision;
pub(crate) mod event;
pub(crate) mod failed;
pub(crate) mod future;
#[cfg(feature = "std")]
pub(crate) mod hedge;
#[cfg(feature = "std")]
pub(crate) mod hedging;
pub(crate) mod hint_policy;
pub(crate) mod instruments;
pub(crate) mod judge;
pub(crate) mod limit;
pub(crate) mod operation;
pub(crate) mod policy;
pub(crate) mod retry_error;
pub mod retrying;
pub(crate) mod timeout;
pub(crate) mod trace;
