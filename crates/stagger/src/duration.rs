//! Human durations on the command line: `250ms`, `1.5s`, `2m`, `1h30m`, `0`.
//!
//! The parser and the formatter are the library's
//! ([`staggered::config::parse_duration`] and
//! [`staggered::config::format_duration`]), so a duration reads the same in
//! an option and in a `--config` file. It reads the digits exactly, with no
//! float rounding (`0.1s` is exactly 100 ms), and `parse(&format(d)) == Ok(d)`
//! for every `Duration`. A duration a command computed is rounded in
//! tables, notes and logs, all alike ([`staggered_sim::view::format_rounded`]).

pub use staggered::config::{format_duration as format, parse_duration as parse};
pub use staggered_sim::view::format_rounded;
