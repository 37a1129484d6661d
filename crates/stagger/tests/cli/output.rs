//! What every command owes its reader: a write error on standard output is
//! an error, a reader that stops early is not, numbers and messages read
//! well, and a long simulation shows progress on a terminal (and only there).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{stagger, stdout_of};

fn stagger_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagger"));
    command.args(args);
    command
}

#[test]
fn a_write_error_on_standard_output_fails_with_a_message() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let commands: [&[&str]; 7] = [
        &["schedule"],
        &["simulate", "--clients", "5", "--runs", "1", "--format", "csv"],
        &["--help"],
        &["schedule", "--help"],
        &["run", "--help"],
        &["completions", "bash"],
        &["man"],
    ];
    for args in commands {
        let full = std::fs::File::options().write(true).open("/dev/full").expect("/dev/full opens");
        let out = stagger_command(args).stdout(full).output().expect("stagger runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: cannot write to standard output: "), "{args:?}: {stderr}");
    }
}

#[test]
fn a_reader_that_stops_early_is_quiet_success() {
    // 100,000 lines, far more than a pipe holds: the writes after the reader
    // goes meet a closed pipe.
    let args = ["schedule", "--samples", "10000", "--attempts", "11", "--seed", "1", "--format", "csv"];
    let mut child = stagger_command(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = [0_u8; 64];
    child.stdout.take().expect("piped").read_exact(&mut first).expect("the header");
    let out = child.wait_with_output().expect("stagger ends");
    assert!(first.starts_with(b"sample,retry,delay_ms\n"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn huge_values_are_written_to_be_read() {
    let text = stdout_of(&["schedule", "--multiplier", "1e308", "--attempts", "4"]);
    assert!(text.contains("\nmultiplier    1e308\n"), "{text}");
    assert!(text.lines().all(|line| line.chars().count() <= 100), "{text}");
}

#[test]
fn a_cap_below_the_first_delay_is_said_once_in_time_units() {
    let out = stagger(&["simulate", "--base", "5", "--cap", "6"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "error: invalid value for --cap: invalid cap 6: below exponential's first delay, 10 time units; the \
         cap must be at least that\n"
    );
}

#[test]
fn a_single_strategy_is_described_not_ranked() {
    let text = stdout_of(&["simulate", "--strategies", "full", "--clients", "5", "--runs", "3"]);
    let reading = text.lines().last().expect("a reading");
    assert!(reading.starts_with("N = 5: full made "), "{text}");
    assert!(reading.contains(" calls per run and finished after ") && reading.ends_with(" time units."));
    assert!(!text.contains("least work") && !text.contains("finished first"), "{text}");
}

/// One point, one run, no backoff: a few seconds in a debug build, the
/// longest of it inside that single run.
const LONG_POINT: [&str; 8] =
    ["simulate", "--clients", "3000", "--runs", "1", "--strategies", "none", "--format"];

#[test]
fn a_long_single_point_shows_progress_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is needed to give stagger a terminal");
        return;
    }
    let command = format!("{} {} csv", env!("CARGO_BIN_EXE_stagger"), LONG_POINT.join(" "));
    let started = Instant::now();
    let out = Command::new("script").args(["-qec", &command, "/dev/null"]).output().expect("script runs");
    let elapsed = started.elapsed();
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{terminal}");
    assert!(terminal.contains("clients,strategy,runs"), "the result: {terminal}");
    // A build fast enough to finish within a second rightly shows nothing.
    if elapsed > Duration::from_millis(1500) {
        assert!(terminal.contains("simulating ["), "no progress after {elapsed:?}: {terminal}");
        assert!(terminal.contains("/3000 clients"), "counted within the run: {terminal}");
    }
}

#[test]
fn progress_stays_hidden_when_standard_error_is_not_a_terminal() {
    let out = stagger(&[&LONG_POINT[..], &["csv"]].concat());
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
