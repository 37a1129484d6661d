//! Integrations with other crates, each behind its feature: `http`
//! responses, the `tower` middleware, the `reqwest-middleware` middleware,
//! tonic's gRPC calls, and what the request/response ones share (`service`).

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "reqwest")]
pub mod reqwest;
#[cfg(feature = "std")]
pub mod service;
#[cfg(feature = "tonic")]
pub mod tonic;
#[cfg(feature = "tower")]
pub mod tower;
