//! `stagger`: retry a command, show a schedule, run the experiments.

#![forbid(unsafe_code)]
// The parser lands before the commands that use it.
#![allow(dead_code)]

mod duration;

fn main() {}
