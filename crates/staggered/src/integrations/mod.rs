//! Integrations with other crates, each behind its feature: `http`
//! responses, the `tower` middleware, the `reqwest-middleware` middleware, and
//! what the request/response ones share (`service`).

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "reqwest")]
pub mod reqwest;
#[cfg(feature = "std")]
pub mod service;
#[cfg(feature = "tower")]
pub mod tower;
