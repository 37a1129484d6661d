//! Schedule computation: staggered against backon, backoff, tokio-retry,
//! exponential-backoff and retry-policies, in ns per delay.
//!
//! ```text
//! cargo bench -p bench                                        # both benches, retry_loop and this one
//! cargo bench -p bench --bench schedules                      # the table
//! cargo bench -p bench --bench schedules -- --rounds 61       # more rounds
//! cargo bench -p bench --bench schedules -- --list            # rows, with their staggered equivalent
//! cargo bench -p bench --bench schedules -- --once backon --sequences 10000
//! ```
//! `--once` runs a fixed number of sequences of one row inside
//! `callgrind_region`, for `valgrind --tool=callgrind` (see `callgrind.sh`).
//! Exits 1 if staggered allocates per delay, 2 on a usage error.

use std::hint::black_box;
use std::process::ExitCode;

use bench::alloc::{count_allocations, CountingAllocator};
use bench::harness::{measure, Args, Settings, Workload};
use bench::report::{render, Row, Verdict};
use bench::schedules::{equivalent, lineup, Runner, BASE, DELAYS_PER_SEQUENCE, MAX_DELAY, MULTIPLIER};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Sequences run with the allocation counter on, after the timed rounds.
const COUNTED_SEQUENCES: u64 = 10_000;

/// The region callgrind counts (`--toggle-collect=*callgrind_region*`).
#[inline(never)]
fn callgrind_region(runner: &mut dyn Runner, sequences: u64) {
    runner.run(black_box(sequences));
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1), "--sequences", 10_000, false) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("schedules: {message}");
            eprintln!("usage: schedules [--rounds N] [--round-ms MS] [--warmup-ms MS] | --list | --once NAME [--sequences N]");
            return ExitCode::from(2);
        }
    };
    let mut runners = lineup();
    match (args.list, args.once) {
        (true, _) => {
            // The row, then its staggered equivalent (itself for staggered's rows).
            let infos: Vec<_> = runners.iter().map(|r| r.info()).collect();
            for info in &infos {
                let equivalent = equivalent(info, &infos).unwrap_or(info);
                println!("{} {}", info.slug, equivalent.slug);
            }
            ExitCode::SUCCESS
        }
        (false, Some(slug)) => match runners.iter_mut().find(|r| r.info().slug == slug) {
            Some(runner) => {
                callgrind_region(runner.as_mut(), args.count);
                println!("{slug}: {} delays", args.count * DELAYS_PER_SEQUENCE as u64);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("schedules: no row named {slug}; see --list");
                ExitCode::from(2)
            }
        },
        (false, None) => table(&args.settings, &mut runners),
    }
}

fn table(settings: &Settings, runners: &mut [Box<dyn Runner>]) -> ExitCode {
    println!(
        "Schedule: jittered exponential, base {BASE:?}, multiplier {MULTIPLIER}, max delay {MAX_DELAY:?}, \
         {DELAYS_PER_SEQUENCE} delays per sequence."
    );
    println!(
        "Each sequence starts the crate's schedule anew (see 'per sequence'; the configuration is built once, \
         outside the timed loop) and takes {DELAYS_PER_SEQUENCE} delays; that start is charged to its delays."
    );
    println!(
        "ns/delay: median of {} interleaved rounds of ~{:?} after {:?} of warm-up; min: fastest round. \
         ratio: peer / staggered with the same jitter.\n",
        settings.rounds, settings.round_time, settings.warmup
    );
    let timings = measure(settings, runners);
    let rows: Vec<Row> = runners
        .iter_mut()
        .zip(timings)
        .map(|(runner, timing)| {
            let ((), allocations) = count_allocations(|| runner.run(COUNTED_SEQUENCES));
            let delays = COUNTED_SEQUENCES * runner.units_per_batch();
            Row { info: runner.info(), timing, allocations_per_delay: allocations as f64 / delays as f64 }
        })
        .collect();
    print!("{}", render(&rows));
    if Verdict::of(&rows).allocating.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
