//! Times one run of the contention experiment with full jitter at N = 1,000,
//! 10,000 and 100,000 clients and prints the nanoseconds per call (per write
//! that reaches the server), to show that the cost of an event does not grow
//! with the fleet.
//!
//! ```text
//! cargo run --release -p staggered-sim --example scale                         # the table and the goals
//! cargo run --release -p staggered-sim --example scale -- --clients 1000,30000  # other client counts
//! cargo run --release -p staggered-sim --example scale -- --once 10000          # one run, for callgrind
//! ```
//!
//! Each client count repeats its run (run 0 of seed 2015, as `stagger
//! simulate --clients N --runs 1 --strategies full` simulates it) until about
//! a second has passed, at least 3 times for the small counts and once for
//! N = 100,000 (about 65.7 million calls), and reports the median
//! repetition. The client counts take turns, so a burst of load from another
//! process spreads over all of them. `--once N` simulates that run once
//! inside `callgrind_region`, for
//! `valgrind --tool=callgrind --toggle-collect='*callgrind_region*'`.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use staggered::Strategy;
use staggered_sim::{ContentionParams, ContentionStrategy, RunOutcome};

/// The client counts timed by default.
const CLIENTS: [u32; 3] = [1_000, 10_000, 100_000];
/// The longest wall time the largest run may take (goal).
const LARGEST_RUN_GOAL: Duration = Duration::from_secs(12);
/// The most the cost per call at the largest count may be, as a multiple of
/// its cost at the smallest (goal).
const FLAT_GOAL: f64 = 1.5;
/// How long each client count is repeated for, at least.
const TIME_PER_COUNT: Duration = Duration::from_secs(1);
/// Repetitions of each client count whose run is shorter than that.
const MIN_REPEATS: usize = 3;

const FULL: ContentionStrategy = ContentionStrategy::Backoff(Strategy::Full);

/// The region callgrind counts.
#[inline(never)]
fn callgrind_region(config: &ContentionParams, clients: u32) -> RunOutcome {
    black_box(config.simulate(black_box(clients), FULL, 0).expect("a valid client count"))
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut clients = CLIENTS.to_vec();
    let mut once = None;
    while let Some(arg) = args.next() {
        let value = args.next();
        let parsed = value.as_deref().map(|v| v.split(',').map(str::parse).collect::<Result<Vec<u32>, _>>());
        match (arg.as_str(), parsed) {
            ("--clients", Some(Ok(list))) if !list.is_empty() => clients = list,
            ("--once", Some(Ok(list))) if list.len() == 1 => once = Some(list[0]),
            _ => {
                eprintln!("scale: bad argument {arg:?}");
                eprintln!("usage: scale [--clients N,N,...] | --once N");
                return ExitCode::from(2);
            }
        }
    }
    let config = ContentionParams {
        strategies: staggered_sim::values::List(vec![FULL]),
        ..ContentionParams::default()
    };
    if clients.iter().chain(&once).any(|n| !(1..=staggered_sim::MAX_CLIENTS).contains(n)) {
        eprintln!("scale: client counts must be 1 to {}", staggered_sim::MAX_CLIENTS);
        return ExitCode::from(2);
    }
    if let Some(n) = once {
        let outcome = callgrind_region(&config, n);
        println!("N = {n}: {} calls", outcome.calls);
        return ExitCode::SUCCESS;
    }

    // One repetition of each count first, which also says how many more fit.
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); clients.len()];
    let mut calls = vec![0; clients.len()];
    for (i, &n) in clients.iter().enumerate() {
        let (outcome, took) = timed(&config, n);
        calls[i] = outcome.calls;
        samples[i].push(took);
    }
    let wanted: Vec<usize> = samples
        .iter()
        .map(|s| match s[0] {
            took if took >= TIME_PER_COUNT => 1,
            took => {
                (TIME_PER_COUNT.as_secs_f64() / took.as_secs_f64()).ceil().max(MIN_REPEATS as f64) as usize
            }
        })
        .collect();
    while let Some(i) = (0..clients.len()).find(|&i| samples[i].len() < wanted[i]) {
        for j in i..clients.len() {
            if samples[j].len() < wanted[j] {
                let (outcome, took) = timed(&config, clients[j]);
                assert_eq!(outcome.calls, calls[j], "a run is deterministic");
                samples[j].push(took);
            }
        }
    }

    println!("contention, full jitter, one run (run 0, seed {}), median of the repetitions", config.seed);
    println!(
        "{:>9} {:>12} {:>8} {:>12} {:>10} {:>8}",
        "clients", "calls", "repeats", "run (s)", "ns/call", "x first"
    );
    let mut per_call = Vec::new();
    for (i, &n) in clients.iter().enumerate() {
        let run = median(&mut samples[i]);
        let ns = run.as_nanos() as f64 / calls[i] as f64;
        per_call.push(ns);
        println!(
            "{n:>9} {:>12} {:>8} {:>12.4} {ns:>10.1} {:>7.2}x",
            calls[i],
            samples[i].len(),
            run.as_secs_f64(),
            ns / per_call[0]
        );
    }
    if clients == CLIENTS {
        let flat = per_call[2] / per_call[0];
        let largest = median(&mut samples[2]);
        let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
        println!(
            "goal: ns/call at N = 100,000 within {FLAT_GOAL}x of N = 1,000: {flat:.2}x, {}",
            verdict(flat <= FLAT_GOAL)
        );
        println!(
            "goal: N = 100,000 in under {} s: {:.2} s, {}",
            LARGEST_RUN_GOAL.as_secs(),
            largest.as_secs_f64(),
            verdict(largest < LARGEST_RUN_GOAL)
        );
    }
    ExitCode::SUCCESS
}

/// One run at `clients`, and how long it took.
fn timed(config: &ContentionParams, clients: u32) -> (RunOutcome, Duration) {
    let start = Instant::now();
    let outcome = black_box(config.simulate(black_box(clients), FULL, 0).expect("a valid client count"));
    (outcome, start.elapsed())
}

/// The median of `samples` (the upper one of the middle two).
fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
