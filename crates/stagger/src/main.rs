//! `stagger`: retry a command, show a schedule, run the experiments.

fn main() {}
