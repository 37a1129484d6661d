//! `stagger`: show retry schedules with exponential backoff and jitter, retry
//! commands, and run the simulator's experiments.
//!
//! Exit codes are listed in [`exit::Exit`]: 0 success, 1 failure, 2 usage
//! error; `stagger run` passes on its command's status, and uses 126 and 127
//! for a command it cannot run.

#![forbid(unsafe_code)]

mod backoff_args;
mod cli;
mod duration;
mod exit;
mod generate;
mod numbers;
mod output;
#[cfg(unix)]
mod run;
mod schedule;
mod simulate;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::exit::Exit;

fn main() -> ExitCode {
    run().into()
}

/// Parses the command line, runs the command and reports its error, if any.
fn run() -> Exit {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap writes help and version to stdout and errors to stderr.
            if let Err(io) = err.print().and_then(|()| std::io::Write::flush(&mut std::io::stdout())) {
                if io.kind() != std::io::ErrorKind::BrokenPipe {
                    eprintln!("error: cannot write to standard output: {io}");
                    return Exit::Failure;
                }
            }
            return if err.use_stderr() { Exit::Usage } else { Exit::Success };
        }
    };
    match cli.command.execute() {
        Ok(exit) => exit,
        Err(err) => {
            let exit = Exit::of_error(&err);
            if !exit::is_broken_pipe(&err) {
                eprintln!("error: {err:#}");
            }
            exit
        }
    }
}
