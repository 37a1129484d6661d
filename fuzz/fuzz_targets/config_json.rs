//! `RetryConfig` from JSON, as one configuration and as a file of several
//! operations: a file that loads validates, builds everything it describes
//! and writes back to TOML and JSON that load equal; one that does not
//! names a field or a line, in a short message (see `src/config.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use staggered::config::RetryConfig;
use staggered_fuzz::config::{check, check_operations};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check(RetryConfig::from_json_str(text));
        check_operations(RetryConfig::operations_from_json_str(text));
    }
});
