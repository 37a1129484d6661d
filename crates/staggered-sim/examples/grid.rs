//! Times the full published grid of the 2015 experiment (19 client counts x 5
//! strategies x 100 runs) and prints the points at N = 100 next to the
//! published means.
//!
//! ```text
//! cargo run --release -p staggered-sim --example grid [seed]
//! ```

use std::time::Instant;

use staggered_sim::{ContentionParams, ContentionStrategy, Experiment};

/// Published (calls, time) at N = 100, in [`ContentionStrategy::PUBLISHED`] order.
const PUBLISHED_AT_100: [(f64, f64); 5] =
    [(2421.0, 2027.0), (1853.0, 62862.0), (812.0, 6658.0), (797.0, 4879.0), (1002.0, 4530.0)];

fn main() {
    let seed = std::env::args().nth(1).map_or(2015, |s| s.parse().expect("the seed is a u64"));
    let config = ContentionParams { seed, ..ContentionParams::default() };
    let start = Instant::now();
    let report = config.run().expect("valid parameters");
    let wall = start.elapsed();
    println!(
        "full grid: {} runs ({} client counts x {} strategies x {} runs) in {:.3} s",
        config.clients.0.len() * config.strategies.0.len() * config.runs as usize,
        config.clients.0.len(),
        config.strategies.0.len(),
        config.runs,
        wall.as_secs_f64()
    );
    println!("\nN = 100, seed {seed}    calls (sd, published)         time (sd, published)");
    for (row, (calls, time)) in report.rows_for(100).zip(PUBLISHED_AT_100) {
        println!(
            "{:<13} {:>8.0} ({:>5.0}, {:>5.0} {:+5.1}%)  {:>8.0} ({:>5.0}, {:>5.0} {:+5.1}%)",
            row.strategy.name(),
            row.calls.mean,
            row.calls.std_dev,
            calls,
            100.0 * (row.calls.mean / calls - 1.0),
            row.time.mean,
            row.time.std_dev,
            time,
            100.0 * (row.time.mean / time - 1.0),
        );
    }
    if let Some(reading) = report.reading(100) {
        println!("\n{reading}");
    }
    if let Some(reading) = report.reading_if(100, |s| s != ContentionStrategy::NoBackoff) {
        println!("Among the strategies that back off: {reading}");
    }
}
