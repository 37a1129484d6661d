//! Runs the hedging scenario (its defaults: a server of 16 workers whose
//! requests stall for a second 1% of the time, offered 10% to 120% of its
//! capacity, 100,000 operations per load level and policy) and prints per
//! load level and policy the latency percentiles, the attempts per
//! operation and the goodput, and the wall time.
//!
//! ```text
//! cargo run --release -p staggered-sim --example hedging [seed]
//! ```

use std::time::Instant;

use staggered_sim::{Experiment, HedgingParams};

fn main() {
    let seed = std::env::args().nth(1).map_or(2015, |s| s.parse().expect("the seed is a u64"));
    let config = HedgingParams { seed, ..HedgingParams::default() };
    let start = Instant::now();
    let report = config.run().expect("valid parameters");
    let wall = start.elapsed();
    let ms = |d: Option<std::time::Duration>| {
        d.map_or_else(|| "failed".to_owned(), |d| format!("{:.1}", d.as_secs_f64() * 1e3))
    };
    println!(
        "{:>5} {:<14} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8} {:>8} {:>8}",
        "load",
        "policy",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "att/op",
        "goodput",
        "rejected",
        "wasted",
        "refused"
    );
    for row in report.rows() {
        println!(
            "{:>5} {:<14} {:>8} {:>8} {:>8} {:>7.3} {:>7.2}% {:>8} {:>8} {:>8}",
            row.load,
            row.policy.name(),
            ms(row.p50),
            ms(row.p99),
            ms(row.p999),
            row.attempts_per_operation,
            100.0 * row.goodput,
            row.rejected,
            row.wasted,
            row.refused,
        );
    }
    println!(
        "\n{} runs of {} operations, capacity {:.1}/s, seed {seed}: {:.3} s wall",
        report.rows().len(),
        config.operations,
        config.capacity(),
        wall.as_secs_f64()
    );
}
