//! The retry loop: a call through staggered, backon, backoff, retry and
//! tokio-retry against the same call made bare, blocking and async (tokio
//! current-thread), on the success path and on a fail-once path.
//!
//! ```text
//! cargo bench -p bench                                          # both benches, this one and schedules
//! cargo bench -p bench --bench retry_loop                       # the tables
//! cargo bench -p bench --bench retry_loop -- --rounds 61        # more rounds
//! cargo bench -p bench --bench retry_loop -- --filter async-ok  # only the rows whose name contains async-ok
//! cargo bench -p bench --bench retry_loop -- --list             # rows, with their bare baseline
//! cargo bench -p bench --bench retry_loop -- --once blocking-ok-staggered --calls 100000
//! ```
//! `--once` makes a fixed number of calls of one row inside
//! `callgrind_region`, for `valgrind --tool=callgrind` (see `callgrind.sh`).
//! Exits 1 if staggered allocates, 2 on a usage error.

use std::hint::black_box;
use std::process::ExitCode;

use bench::alloc::{count_allocations, CountingAllocator};
use bench::harness::{measure, Args, Settings};
use bench::retry_loop::report::{goals, render, Measured};
use bench::retry_loop::{lineup, Role, Runner, BASE, MAX_ATTEMPTS};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Calls made with the allocation counter on, after the timed rounds.
const COUNTED_CALLS: u64 = 2_000;

/// The region callgrind counts (`--toggle-collect=*callgrind_region*`).
#[inline(never)]
fn callgrind_region(runner: &mut dyn Runner, calls: u64) {
    runner.run(black_box(calls));
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1), "--calls", 100_000, true) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("retry_loop: {message}");
            eprintln!("usage: retry_loop [--rounds N] [--round-ms MS] [--warmup-ms MS] [--filter TEXT] | --list | --once NAME [--calls N]");
            return ExitCode::from(2);
        }
    };
    let mut runners = lineup();
    match (args.list, args.once) {
        (true, _) => {
            // The row, then the bare row of its driver and path.
            for runner in &runners {
                let info = runner.info();
                let bare = runners
                    .iter()
                    .map(|r| r.info())
                    .find(|b| b.role == Role::Bare && b.driver == info.driver && b.path == info.path)
                    .unwrap_or(info);
                println!("{} {}", info.slug, bare.slug);
            }
            ExitCode::SUCCESS
        }
        (false, Some(slug)) => match runners.iter_mut().find(|r| r.info().slug == slug) {
            Some(runner) => {
                callgrind_region(runner.as_mut(), args.count);
                println!("{slug}: {} calls", args.count);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("retry_loop: no row named {slug}; see --list");
                ExitCode::from(2)
            }
        },
        (false, None) => {
            let filter = args.filter;
            // Keep each kept row's bare baseline, so "over bare" still reads.
            let keep: Vec<bool> = {
                let infos: Vec<_> = runners.iter().map(|r| r.info()).collect();
                let wanted = |slug: &str| filter.as_deref().is_none_or(|f| slug.contains(f));
                infos
                    .iter()
                    .map(|i| {
                        wanted(&i.slug)
                            || (i.role == Role::Bare
                                && infos
                                    .iter()
                                    .any(|o| o.driver == i.driver && o.path == i.path && wanted(&o.slug)))
                    })
                    .collect()
            };
            let mut keep = keep.into_iter();
            runners.retain(|_| keep.next().unwrap_or(false));
            table(&args.settings, &mut runners)
        }
    }
}

fn table(settings: &Settings, runners: &mut [Box<dyn Runner>]) -> ExitCode {
    println!(
        "The retry loop around an operation that returns its input (no I/O). Success path: it succeeds at once; \
         the schedule (full jitter where the crate has it, base {BASE:?}, {MAX_ATTEMPTS} attempts) is never read. \
         Fail-once path: it fails once, then succeeds after a zero delay."
    );
    println!(
        "Configurations are built once, outside the timed loop; 'built per call' is what the crate's API makes a \
         user build for each call. Async rows: all the calls of a round in one block_on of a tokio current-thread \
         runtime. tokio's sleep(ZERO) registers a timer rounded up to the next 1 ms tick and yields to the runtime."
    );
    println!(
        "ns/call: median of {} interleaved rounds of ~{:?} after {:?} of warm-up; min: fastest round. \
         over bare: median minus the bare row's median. Allocations: over {COUNTED_CALLS} calls after warm-up.\n",
        settings.rounds, settings.round_time, settings.warmup
    );
    let timings = measure(settings, runners);
    let rows: Vec<Measured> = runners
        .iter_mut()
        .zip(timings)
        .map(|(runner, timing)| {
            let ((), allocations) = count_allocations(|| runner.run(COUNTED_CALLS));
            Measured {
                info: runner.info().clone(),
                timing,
                allocations_per_call: allocations as f64 / COUNTED_CALLS as f64,
            }
        })
        .collect();
    print!("{}", render(&rows));
    if goals(&rows).iter().all(|g| g.met || !g.exact) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
