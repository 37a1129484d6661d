//! The duration grammar of configuration files and the command line
//! (`250ms`, `1.5s`, `1h30m`): a duration that parses prints back (the
//! crate's formatter) to text that parses equal and prints the same; an
//! error is short whatever the input; and any `Duration` (from the input's
//! first twelve bytes) prints to text that parses back to it.

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use staggered::config::{format_duration, parse_duration};

/// The longest error message: it quotes at most a short prefix of the text.
const MAX_MESSAGE_CHARS: usize = 200;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        match parse_duration(text) {
            Ok(duration) => {
                let printed = format_duration(duration);
                assert_eq!(parse_duration(&printed), Ok(duration), "{text:?} printed as {printed:?}");
                assert!(text.starts_with(|c: char| c.is_ascii_digit()), "{text:?} parsed to {duration:?}");
            }
            Err(error) => {
                let chars = error.to_string().chars().count();
                assert!(chars <= MAX_MESSAGE_CHARS, "a message of {chars} characters for {text:?}");
            }
        }
    }
    if let (Some(secs), Some(nanos)) = (data.get(..8), data.get(8..12)) {
        let secs = u64::from_le_bytes(secs.try_into().unwrap());
        let nanos = u32::from_le_bytes(nanos.try_into().unwrap()) % 1_000_000_000;
        let duration = Duration::new(secs, nanos);
        let printed = format_duration(duration);
        assert_eq!(parse_duration(&printed), Ok(duration), "{duration:?} printed as {printed:?}");
    }
});
