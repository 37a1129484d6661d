//! The adaptive limiter's cost per attempt: the token taken before it and
//! the response reported after it, against the same loop with neither.
//!
//! ```text
//! cargo bench -p bench --bench limiter                  # the table and the goals
//! cargo bench -p bench --bench limiter -- --list        # rows, with their baseline
//! crates/bench/callgrind.sh --bench limiter             # instructions per attempt
//! ```
//! Rows: `bare` (the loop alone), `disabled` (a limiter no throttle has
//! turned on: what every client pays until its first throttle), `enabled`
//! (turned on, one thread, a rate it never waits at: the clock, the lock,
//! the bucket and the counting), and `policy-*`: a blocking success through
//! a `RetryPolicy` with no limiter, a disabled one and an enabled one.
//! Exits 1 if a goal is missed, 2 on a usage error.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Duration;

use bench::harness::{measure, Args, Settings, Workload};
use staggered::limiter::AdaptiveLimiter;
use staggered::{Backoff, RetryPolicy, Strategy};

/// Attempts per timed batch.
const BATCH: u64 = 1_000;

/// A rate no attempt ever waits at.
const UNBOUNDED: f64 = 1e12;

/// The region callgrind counts (`--toggle-collect=*callgrind_region*`).
#[inline(never)]
fn callgrind_region(row: &mut Row, attempts: u64) {
    row.attempts(black_box(attempts));
}

enum Kind {
    Bare,
    Limiter(AdaptiveLimiter),
    Policy(Box<RetryPolicy<Backoff>>),
}

struct Row {
    name: &'static str,
    base: &'static str,
    kind: Kind,
}

impl Row {
    #[inline(never)]
    fn attempts(&mut self, n: u64) {
        match &self.kind {
            Kind::Bare => {
                for i in 0..n {
                    black_box(black_box(i));
                }
            }
            Kind::Limiter(limiter) => {
                let limiter = black_box(limiter);
                for i in 0..n {
                    let _ = black_box(limiter.try_acquire());
                    black_box(i);
                    limiter.record_response(false);
                }
            }
            Kind::Policy(policy) => {
                let policy = black_box(policy);
                let (sleeper, clock) = (|_: Duration| {}, || Duration::ZERO);
                for i in 0..n {
                    let _ = black_box(
                        policy
                            .retry(|_| Ok::<_, std::io::Error>(black_box(i)))
                            .with_timer(&sleeper, &clock)
                            .run(),
                    );
                }
            }
        }
    }
}

impl Workload for Row {
    fn units_per_batch(&self) -> u64 {
        BATCH
    }
    fn run(&mut self, batches: u64) {
        self.attempts(batches.saturating_mul(BATCH));
    }
}

fn enabled() -> AdaptiveLimiter {
    let limiter = AdaptiveLimiter::builder().with_min_rate(UNBOUNDED).build().expect("valid parameters");
    limiter.record_response(true);
    limiter
}

fn rows() -> Vec<Row> {
    let backoff = Backoff::builder(Strategy::Full).with_max_attempts(3).build().expect("valid parameters");
    let policy = RetryPolicy::new(backoff);
    vec![
        Row { name: "bare", base: "bare", kind: Kind::Bare },
        Row { name: "disabled", base: "bare", kind: Kind::Limiter(AdaptiveLimiter::new()) },
        Row { name: "enabled", base: "bare", kind: Kind::Limiter(enabled()) },
        Row {
            name: "policy-no-limiter",
            base: "policy-no-limiter",
            kind: Kind::Policy(Box::new(policy.clone())),
        },
        Row {
            name: "policy-disabled",
            base: "policy-no-limiter",
            kind: Kind::Policy(Box::new(policy.clone().with_rate_limiter(AdaptiveLimiter::new()))),
        },
        Row {
            name: "policy-enabled",
            base: "policy-no-limiter",
            kind: Kind::Policy(Box::new(policy.with_rate_limiter(enabled()))),
        },
    ]
}

/// `(row, over its base, at most)`: the goals.
const GOALS: [(&str, f64); 2] = [("disabled", 2.0), ("enabled", 50.0)];

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1), "--calls", 1_000_000, false) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("limiter: {message}");
            eprintln!("usage: limiter [--rounds N] [--round-ms MS] [--warmup-ms MS] | --list | --once NAME [--calls N]");
            return ExitCode::from(2);
        }
    };
    let mut rows = rows();
    if args.list {
        for row in &rows {
            println!("{} {}", row.name, row.base);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(name) = args.once {
        return match rows.iter_mut().find(|row| row.name == name) {
            Some(row) => {
                callgrind_region(row, args.count);
                println!("{name}: {} attempts", args.count);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("limiter: no row named {name}; see --list");
                ExitCode::from(2)
            }
        };
    }
    table(&args.settings, &mut rows)
}

fn table(settings: &Settings, rows: &mut [Row]) -> ExitCode {
    println!(
        "The adaptive limiter per attempt: try_acquire before it, record_response(false) after it. \
         ns/attempt: median of {} interleaved rounds of ~{:?} after {:?} of warm-up; min: fastest round; \
         over base: median minus the base row's median.\n",
        settings.rounds, settings.round_time, settings.warmup
    );
    let timings = measure(settings, rows);
    let median =
        |name: &str| rows.iter().zip(&timings).find(|(row, _)| row.name == name).map(|(_, t)| t.median_ns);
    println!("{:<20} {:>12} {:>8} {:>10}", "row", "ns/attempt", "min", "over base");
    for (row, timing) in rows.iter().zip(&timings) {
        let over = median(row.base).map_or(0.0, |base| timing.median_ns - base);
        println!("{:<20} {:>12.2} {:>8.2} {:>+10.2}", row.name, timing.median_ns, timing.min_ns, over);
    }
    println!();
    let mut met = true;
    for (name, most) in GOALS {
        let over = median(name).unwrap_or(f64::NAN) - median("bare").unwrap_or(f64::NAN);
        let ok = over <= most;
        met &= ok;
        println!(
            "goal {}: {name} limiter: at most {most} ns per attempt over bare: {over:+.2} ns (median)",
            if ok { "met" } else { "MISSED" }
        );
    }
    if met {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
