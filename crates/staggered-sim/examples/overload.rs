//! Runs the overload scenario (its defaults: 700 requests per second
//! on a server of 1000 whose capacity halves from 10 s to 15 s, 60 s
//! simulated) for every policy, and prints the per-policy table and the
//! wall time.
//!
//! ```text
//! cargo run --release -p staggered-sim --example overload [seed]
//! ```

use std::time::Instant;

use staggered_sim::{Experiment, OverloadParams};

fn main() {
    let seed = std::env::args().nth(1).map_or(2015, |s| s.parse().expect("the seed is a u64"));
    let config = OverloadParams { seed, ..OverloadParams::default() };
    let start = Instant::now();
    let report = config.run().expect("valid parameters");
    let wall = start.elapsed();
    let opt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.3}"));
    println!(
        "{:<19} {:>8} {:>9} {:>8} {:>7} {:>8} {:>8} {:>7} {:>8}",
        "policy", "goodput", "recovery", "amp trig", "amp aft", "drained", "amp drn", "peak 1s", "refused"
    );
    for row in report.rows() {
        println!(
            "{:<19} {:>7.2}% {:>9} {:>8} {:>7} {:>8} {:>8} {:>7} {:>8}",
            row.policy.name(),
            100.0 * row.goodput,
            row.recovery_time_secs().map_or("never".to_owned(), |t| format!("{t:.0} s")),
            opt(row.amplification_trigger),
            opt(row.amplification_after),
            row.drained_at.map_or("-".to_owned(), |d| format!("{:.2} s", d.as_secs_f64())),
            opt(row.amplification_drained),
            opt(row.peak_amplification_drained),
            row.refused,
        );
    }
    println!(
        "\namp: attempts reaching the server / first attempts, during the trigger (trig), after it (aft),\n\
         and from the budget's first refusal (drained) until recovery (drn; peak 1s: its worst second).\n\
         recovery: from the trigger's end until goodput holds 95% of the offered load for 5 s."
    );
    println!(
        "\n{} policies x {} s simulated, seed {seed}: {:.3} s wall",
        report.rows().len(),
        config.duration.0.as_secs(),
        wall.as_secs_f64()
    );
}
