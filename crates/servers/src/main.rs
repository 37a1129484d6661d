//! `cargo run --release -p servers -- matrix`: the real-server benchmark.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use servers::matrix::{is_missing, points, run_point, tables, Settings};
use staggered::limiter::AdaptiveMode;

/// Real servers in the loop: staggered's reqwest middleware against nginx,
/// Flask-Limiter and a stalling server on 127.0.0.1.
#[derive(Debug, Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs the matrix (or the points `--only` names) and prints a table per server.
    Matrix(MatrixArgs),
}

#[derive(Debug, clap::Args)]
struct MatrixArgs {
    /// How long requests arrive at each point (a point with a quota of a
    /// minute keeps its own 30 s).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    run_length: Duration,
    /// Only the points whose id contains one of these (comma-separated),
    /// e.g. `nginx-429/limit=50,stalling`.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// The adaptive limiter's mode.
    #[arg(long, default_value = "aws", value_parser = parse_mode)]
    mode: AdaptiveMode,
    /// How long a caller waits for a request.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    caller_timeout: Duration,
    /// The seed of the arrivals.
    #[arg(long, default_value_t = 2015)]
    seed: u64,
    /// Lists the points' ids and runs nothing.
    #[arg(long)]
    list: bool,
}

fn parse_mode(name: &str) -> Result<AdaptiveMode, String> {
    name.parse().map_err(|e| format!("{e}"))
}

fn main() -> ExitCode {
    let Cli { command: Command::Matrix(args) } = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("no tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(matrix(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn matrix(args: MatrixArgs) -> anyhow::Result<()> {
    let chosen: Vec<_> = points(args.mode)
        .into_iter()
        .filter(|p| args.only.is_empty() || args.only.iter().any(|only| p.id.contains(only.as_str())))
        .collect();
    anyhow::ensure!(!chosen.is_empty(), "no point matches --only {}", args.only.join(","));
    if args.list {
        for point in &chosen {
            println!("{}", point.id);
        }
        return Ok(());
    }
    let settings =
        Settings { run_length: args.run_length, caller_timeout: args.caller_timeout, seed: args.seed };
    let mut results = Vec::new();
    for (i, point) in chosen.iter().enumerate() {
        eprint!("[{}/{}] {} ... ", i + 1, chosen.len(), point.id);
        match run_point(point, &settings).await {
            Ok(result) => {
                let s = &result.summary;
                eprintln!(
                    "{} requests, {} attempts, admitted {:.1}/s, throttled {:.1}%, goodput {:.1}%",
                    s.requests,
                    s.attempts,
                    s.admitted_rate,
                    100.0 * s.throttled_fraction,
                    100.0 * s.goodput
                );
                results.push(result);
            }
            Err(error) if is_missing(&error) => eprintln!("skipped: {error}"),
            Err(error) => return Err(error.context(point.id.clone())),
        }
    }
    println!(
        "{} s a point (caller timeout {:?}, limiter mode {}, seed {}); admitted/s over the last half \
         of the arrivals, throttled of the attempts answered, goodput of the requests offered, \
         latencies of the requests as the caller saw them",
        args.run_length.as_secs_f64(),
        args.caller_timeout,
        args.mode,
        args.seed
    );
    print!("{}", tables(&results));
    Ok(())
}
