//! What the fuzz targets assert, where more than one needs it: a server
//! hint's wait through the retry decision, and what a configuration that
//! loads (or fails to) promises. Each target lives in `fuzz_targets/`.

#![forbid(unsafe_code)]

pub mod config;
pub mod hint;

/// The parser of `stagger run --http-headers`, the very file the binary
/// builds (it uses nothing but the `http` crate).
#[path = "../../crates/stagger/src/run/http/parse.rs"]
pub mod header_dump;
