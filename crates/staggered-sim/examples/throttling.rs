//! Runs the throttling scenario (its defaults: 20 clients offering 1000
//! operations per second against a server that admits 500, 60 s
//! simulated) for every policy, and prints the per-policy figures and the
//! wall time. A second argument sets the rate limit.
//!
//! ```text
//! cargo run --release -p staggered-sim --example throttling [seed] [rate-limit]
//! ```

use std::time::Instant;

use staggered_sim::{Experiment, ThrottlingParams};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().map_or(2015, |s| s.parse().expect("the seed is a u64"));
    let mut config = ThrottlingParams { seed, ..ThrottlingParams::default() };
    if let Some(limit) = args.next() {
        config.rate_limit = limit.parse().expect("the rate limit is a rate, such as 500 or 500/s");
    }
    let start = Instant::now();
    let report = config.run().expect("valid parameters");
    let wall = start.elapsed();
    println!(
        "{:<19} {:>9} {:>8} {:>7} {:>9} {:>9} {:>9} {:>8} {:>8} {:>10}",
        "policy",
        "throttled",
        "goodput",
        "att/op",
        "wait p50",
        "wait p99",
        "send/s",
        "refused",
        "shed",
        "unfinished"
    );
    for row in report.rows() {
        println!(
            "{:<19} {:>8.2}% {:>7.2}% {:>7.3} {:>8.3}s {:>8.3}s {:>9.1} {:>8} {:>8} {:>10}",
            row.policy.name(),
            100.0 * row.throttled_fraction,
            100.0 * row.goodput,
            row.attempts_per_operation,
            row.wait_p50,
            row.wait_p99,
            row.send_rate,
            row.refused,
            row.shed,
            row.unfinished,
        );
    }
    println!(
        "\n{} policies x {} s simulated, rate limit {}/s, seed {seed}: {:.3} s wall",
        report.rows().len(),
        config.duration.0.as_secs(),
        config.rate_limit.0,
        wall.as_secs_f64()
    );
}
