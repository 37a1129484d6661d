//! `stagger run` with real child processes (`sh -c ...`). Schedules are tiny
//! (`--strategy constant --base 10ms`), so a test waits only as long as its
//! commands run.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use serde_json::Value;
use tempfile::TempDir;

use super::{refuses_each, stagger};

/// Ten-millisecond constant delays and at most `attempts` attempts.
fn fast(attempts: u32) -> Vec<String> {
    let attempts = attempts.to_string();
    ["run", "--strategy", "constant", "--base", "10ms", "--attempts", &attempts].map(str::to_owned).to_vec()
}

/// `stagger` with `options`, then `-- sh -c script sh paths...`, timed.
fn run_sh(options: &[String], script: &str, paths: &[&Path]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_stagger")).args(sh_args(options, script, paths)).output();
    (out.expect("stagger runs"), started.elapsed())
}

fn sh_args(options: &[String], script: &str, paths: &[&Path]) -> Vec<String> {
    let mut args = options.to_vec();
    args.extend(["--", "sh", "-c", script, "sh"].map(str::to_owned));
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args
}

fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The lines of the file at `path` (none if it does not exist).
fn lines(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

/// A script that counts its runs in `$1` and exits with `code`.
fn counting(code: u8) -> String {
    format!("echo run >> \"$1\"; exit {code}")
}

fn temp() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("attempts");
    (dir, file)
}

/// Waits until `path` exists; fails the test after 10 s.
fn wait_for(path: &Path) {
    let started = Instant::now();
    while !path.exists() {
        assert!(started.elapsed() < Duration::from_secs(10), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn pid(child: &Child) -> Pid {
    Pid::from_child(child)
}

#[test]
fn fails_twice_then_succeeds() {
    let (_dir, counter) = temp();
    let script = "n=$(cat \"$1\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$1\"; [ $n -ge 3 ]";
    let (out, _) = run_sh(&fast(5), script, &[&counter]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(fs::read_to_string(&counter).unwrap().trim(), "3");
    assert_eq!(stderr.matches("retrying in 10ms").count(), 2, "{stderr}");
    assert!(stderr.contains("stagger: attempt 1/5 failed (exit code 1); retrying in 10ms"), "{stderr}");
    assert!(!stderr.contains("giving up"), "{stderr}");
}

#[test]
fn exhausted_runs_exit_with_the_commands_code() {
    let (_dir, attempts) = temp();
    let (out, _) = run_sh(&fast(3), &counting(3), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(lines(&attempts), 3);
    assert!(stderr.contains("attempt 3/3 failed (exit code 3); giving up: attempts exhausted"), "{stderr}");
}

#[test]
fn stop_codes_end_at_once() {
    let cases: [(&str, &str, u8); 3] =
        [("--stop-on-exit", "1,4-6", 4), ("--retry-on-exit", "75-78", 3), ("--retry-on-exit", "75,1", 2)];
    for (option, codes, code) in cases {
        let (_dir, attempts) = temp();
        let mut options = fast(5);
        options.extend([option.to_owned(), codes.to_owned()]);
        let (out, _) = run_sh(&options, &counting(code), &[&attempts]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(i32::from(code)), "{option} {codes}: {stderr}");
        assert_eq!(lines(&attempts), 1, "{option} {codes}: {stderr}");
        assert!(stderr.contains("attempt 1/5 failed"), "{stderr}");
        assert!(stderr.contains("giving up: permanent error"), "{stderr}");
    }
    // A code outside --stop-on-exit is retried.
    let (_dir, attempts) = temp();
    let mut options = fast(3);
    options.extend(["--stop-on-exit".to_owned(), "4".to_owned()]);
    let (out, _) = run_sh(&options, &counting(5), &[&attempts]);
    assert_eq!((out.status.code(), lines(&attempts)), (Some(5), 3));
}

#[test]
fn a_hung_attempt_is_killed_at_the_attempt_timeout() {
    let mut options = fast(2);
    options.extend(["--attempt-timeout", "200ms"].map(str::to_owned));
    let mut args = options.clone();
    args.extend(["--", "sleep", "30"].map(str::to_owned));
    let started = Instant::now();
    let out = stagger(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let elapsed = started.elapsed();
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(stderr.matches("timed out after 200ms").count(), 2, "{stderr}");

    // `sleep` is a child of `sh` here: only a kill of the whole process
    // group ends it, and while it lives it holds stdout open, so that
    // `output()` would wait the full 30 s.
    let (out, elapsed) = run_sh(&options, "sleep 30; echo never", &[]);
    assert_eq!(out.status.code(), Some(124), "{}", stderr_text(&out));
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_command_that_ignores_sigterm_is_killed_after_the_grace() {
    let mut options = fast(1);
    options.extend(["--attempt-timeout", "100ms", "--kill-after", "100ms"].map(str::to_owned));
    let (out, elapsed) = run_sh(&options, "trap '' TERM; sleep 30", &[]);
    assert_eq!(out.status.code(), Some(124), "{}", stderr_text(&out));
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn sigterm_to_stagger_reaches_the_command_and_stops_the_retrying() {
    let (dir, attempts) = temp();
    let started = dir.path().join("started");
    let termed = dir.path().join("termed");
    // Exit 5 from the trap shows that stagger passes on the command's own
    // status. The command waits in short sleeps, not `sleep 30 & wait`: a
    // signal landing between the shell's trap check and its blocking wait
    // would only be noticed when the 30 s sleep ended (seen under load).
    let script = "echo run >> \"$1\"; trap 'echo TERM > \"$3\"; exit 5' TERM; \
                  echo > \"$2\"; i=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done";
    let stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
        .args(sh_args(&fast(5), script, &[&attempts, &started, &termed]))
        .stderr(Stdio::piped())
        .spawn()
        .expect("stagger runs");
    wait_for(&started);
    let sent = Instant::now();
    kill_process(pid(&stagger), Signal::TERM).expect("signal stagger");
    let out = stagger.wait_with_output().expect("stagger ends");
    let stderr = stderr_text(&out);
    assert!(sent.elapsed() < Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert_eq!(fs::read_to_string(&termed).unwrap().trim(), "TERM");
    assert_eq!(lines(&attempts), 1, "no retry after a cancel: {stderr}");
    assert!(stderr.contains("attempt 1/5 failed (exit code 5); giving up: cancelled by SIGTERM"), "{stderr}");
}

#[test]
fn a_signal_while_waiting_to_retry_ends_the_run_with_128_plus_the_signal() {
    let (_dir, attempts) = temp();
    let options =
        ["run", "--strategy", "constant", "--base", "30s", "--log-format", "json"].map(str::to_owned);
    let started = Instant::now();
    let mut stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
        .args(sh_args(&options, &counting(1), &[&attempts]))
        .stderr(Stdio::piped())
        .spawn()
        .expect("stagger runs");
    let mut stderr = BufReader::new(stagger.stderr.take().unwrap());
    let mut retry = String::new();
    stderr.read_line(&mut retry).expect("a retry line");
    assert!(retry.contains("\"retry_attempt\""), "{retry}");
    let sent = Instant::now();
    kill_process(pid(&stagger), Signal::INT).expect("signal stagger");
    let status = stagger.wait().expect("stagger ends");
    assert!(sent.elapsed() < Duration::from_secs(10), "the wait is interrupted");
    let run_time = started.elapsed();
    assert_eq!(status.code(), Some(130));
    assert_eq!(lines(&attempts), 1);
    let mut give_up = String::new();
    stderr.read_line(&mut give_up).expect("a give-up line");
    let give_up: Value = serde_json::from_str(&give_up).expect("JSON");
    assert_eq!(give_up["reason"], "cancelled");
    assert_eq!(give_up["signal"], "SIGINT");
    assert_eq!(give_up["exit_code"], 130);
    // The summary counts the part of the 30 s wait that was waited.
    let mut summary = String::new();
    stderr.read_line(&mut summary).expect("a summary line");
    let summary: Value = serde_json::from_str(&summary).expect("JSON");
    assert_eq!((&summary["reason"], &summary["attempts"]), (&Value::from("cancelled"), &Value::from(1)));
    let waited = summary["waited_ms"].as_u64().expect("waited_ms");
    assert!(u128::from(waited) <= run_time.as_millis(), "not the 30s wait: {waited}ms in {run_time:?}");
}

#[test]
fn a_ctrl_c_to_staggers_process_group_reaches_the_command_once() {
    for foreground in [false, true] {
        let (dir, ints) = temp();
        let started = dir.path().join("started");
        // Count the SIGINTs, and give a second one time to arrive.
        let script = "trap 'echo INT >> \"$1\"' INT; echo > \"$2\"; i=0; \
                      while [ ! -s \"$1\" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; \
                      sleep 0.3; exit 9";
        let mut options = fast(5);
        if foreground {
            options.push("--foreground".to_owned());
        }
        let mut command = Command::new(env!("CARGO_BIN_EXE_stagger"));
        // As a shell runs a job: stagger leads a process group, which a
        // terminal's Ctrl-C signals as a whole.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let stagger = command
            .args(sh_args(&options, script, &[&ints, &started]))
            .stderr(Stdio::piped())
            .spawn()
            .expect("stagger runs");
        wait_for(&started);
        kill_process_group(pid(&stagger), Signal::INT).expect("signal the group");
        let out = stagger.wait_with_output().expect("stagger ends");
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(9), "foreground {foreground}: {stderr}");
        assert_eq!(lines(&ints), 1, "foreground {foreground}: one SIGINT, not two: {stderr}");
        assert!(stderr.contains("giving up: cancelled by SIGINT"), "{stderr}");
    }
}

#[test]
fn json_logs_carry_the_documented_fields() {
    let mut options = fast(3);
    options.extend(["--log-format", "json"].map(str::to_owned));
    let (out, _) = run_sh(&options, "exit 3", &[]);
    assert_eq!(out.status.code(), Some(3));
    let records: Vec<Value> = stderr_text(&out)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    assert_eq!(records.len(), 4, "two retries, a give-up and the summary");
    for (i, retry) in records[..2].iter().enumerate() {
        assert_eq!(retry["event"], "retry_attempt");
        assert_eq!(retry["attempt"], i + 1);
        assert_eq!(retry["max_attempts"], 3);
        assert_eq!(retry["delay_ms"], 10);
        assert_eq!(retry["error_type"], "exit_code");
        assert_eq!(retry["error_message"], "exit code 3");
        let timestamp = retry["timestamp"].as_str().expect("a timestamp");
        assert!(humantime::parse_rfc3339(timestamp).is_ok() && timestamp.ends_with('Z'), "{timestamp}");
    }
    let give_up = &records[2];
    assert_eq!(give_up["event"], "give_up");
    assert_eq!(give_up["attempt"], 3);
    assert_eq!(give_up["reason"], "attempts_exhausted");
    assert_eq!(give_up["exit_code"], 3);
    let summary = &records[3];
    assert_eq!(summary["event"], "summary");
    assert_eq!(summary["outcome"], "give_up");
    assert_eq!(
        (&summary["attempts"], &summary["retries"], &summary["max_attempts"]),
        (&3.into(), &2.into(), &3.into())
    );
    assert_eq!(summary["waited_ms"], 20, "two waits of 10ms");
    assert_eq!(summary["reason"], "attempts_exhausted");
    assert_eq!(summary["first_try_success"], false);
    assert_eq!(summary["exit_code"], 3);
    assert!(summary["elapsed_ms"].as_u64().unwrap() >= 20);
}

#[test]
fn the_json_summary_counts_a_success_after_retries_and_a_first_try_success() {
    let (_dir, runs) = temp();
    let mut options = fast(5);
    options.extend(["--log-format", "json"].map(str::to_owned));
    // Fails until its third run.
    let script = "echo run >> \"$1\"; [ $(wc -l < \"$1\") -ge 3 ]";
    let (out, _) = run_sh(&options, script, &[&runs]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let last: Value = serde_json::from_str(stderr.lines().last().expect("lines")).expect("JSON");
    assert_eq!(last["event"], "summary", "{stderr}");
    assert_eq!(
        (&last["outcome"], &last["attempts"], &last["retries"]),
        (&"success".into(), &3.into(), &2.into())
    );
    assert_eq!(
        (&last["waited_ms"], &last["reason"], &last["exit_code"]),
        (&20.into(), &Value::Null, &0.into())
    );
    assert_eq!(last["first_try_success"], false);

    let (out, _) = run_sh(&options, "exit 0", &[]);
    let lines: Vec<Value> =
        stderr_text(&out).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(lines.len(), 1, "nothing to log but the summary");
    assert_eq!((&lines[0]["attempts"], &lines[0]["first_try_success"]), (&1.into(), &true.into()));
    assert_eq!(lines[0]["waited_ms"], 0);

    // The human format and --quiet write no summary.
    let (out, _) = run_sh(&fast(2), "exit 0", &[]);
    assert_eq!(stderr_text(&out), "");
    options.push("--quiet".to_owned());
    let (out, _) = run_sh(&options, "exit 1", &[]);
    assert_eq!(stderr_text(&out), "");
}

#[test]
fn quiet_logs_nothing_and_output_passes_through_untouched() {
    // Bytes that are not UTF-8, no trailing newline, on both streams.
    let script = "printf 'out\\377\\000' ; printf 'err\\376' >&2; exit 1";
    let mut options = fast(2);
    options.push("--quiet".to_owned());
    let (out, _) = run_sh(&options, script, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"out\xff\x00out\xff\x00");
    assert_eq!(out.stderr, b"err\xfeerr\xfe", "only the command's own stderr");
    let (out, _) = run_sh(&fast(2), script, &[]);
    assert_eq!(out.stdout, b"out\xff\x00out\xff\x00");
    assert!(stderr_text(&out).contains("retrying in"));
}

#[test]
fn the_deadline_is_never_overrun() {
    let (_dir, attempts) = temp();
    let options =
        ["run", "--strategy", "constant", "--base", "100ms", "--attempts", "100", "--deadline", "300ms"]
            .map(str::to_owned);
    let (out, elapsed) = run_sh(&options, &counting(1), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let made = lines(&attempts);
    assert!((2..=4).contains(&made), "{made} attempts: {stderr}");
    // The 100ms wait would pass the deadline; under load the attempt
    // itself may have run into it instead.
    assert!(
        stderr.contains("giving up: the next wait, 100ms, would end past the deadline, which is ")
            || stderr.contains("giving up: no time left before the deadline"),
        "{stderr}"
    );
    // The deadline, one short attempt, and starting stagger itself.
    assert!(elapsed < Duration::from_millis(300 + 700), "{elapsed:?}");

    // A running attempt is stopped at the deadline.
    let options = ["run", "--deadline", "300ms", "--attempt-timeout", "10s"].map(str::to_owned);
    let (out, elapsed) = run_sh(&options, "sleep 30", &[]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(stderr.contains("stopped at the deadline after 300ms"), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn the_deadline_stops_a_running_attempt_without_an_attempt_timeout() {
    // No --attempt-timeout: the time left before the deadline is the attempt's limit.
    let options = ["run", "--deadline", "300ms"].map(str::to_owned);
    let (out, elapsed) = run_sh(&options, "sleep 30", &[]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(stderr.contains("stopped at the deadline after 300ms"), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn a_signal_killed_command_is_retried_and_reported_as_128_plus_the_signal() {
    let (_dir, attempts) = temp();
    let (out, _) = run_sh(&fast(2), "echo run >> \"$1\"; kill -KILL $$", &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(137), "{stderr}");
    assert_eq!(lines(&attempts), 2);
    assert!(stderr.contains("attempt 1/2 failed (killed by SIGKILL); retrying"), "{stderr}");
}

#[test]
fn a_command_that_cannot_run_is_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("script");
    fs::write(&not_executable, "#!/bin/sh\nexit 0\n").unwrap();
    let cases = [("stagger-no-such-command", 127), (not_executable.to_str().unwrap(), 126)];
    for (command, code) in cases {
        let out = stagger(&["run", "--", command]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(code), "{stderr}");
        assert!(stderr.starts_with(&format!("error: cannot run {command}: ")), "{stderr}");
        assert!(!stderr.contains("retrying"), "{stderr}");
    }
}

#[test]
fn a_command_stopped_for_the_terminal_ends_the_run_with_126() {
    // What a read from the terminal does to a background process group.
    let (_dir, attempts) = temp();
    let (out, elapsed) = run_sh(&fast(3), "echo run >> \"$1\"; kill -TTIN $$; exit 0", &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert_eq!(lines(&attempts), 1);
    assert!(stderr.contains("stopped by SIGTTIN"), "{stderr}");
    assert!(elapsed < Duration::from_secs(10));
}

#[test]
fn bad_options_exit_2_naming_the_option() {
    let cases: [(&[&str], &str); 8] = [
        (&["--retry-on-exit", "300", "--", "true"], "--retry-on-exit"),
        (&["--stop-on-exit", "9-3", "--", "true"], "--stop-on-exit"),
        (&["--attempt-timeout", "5x", "--", "true"], "--attempt-timeout"),
        (&["--attempt-timeout", "0", "--", "true"], "invalid value for --attempt-timeout"),
        (&["--deadline", "-1s", "--", "true"], "--deadline"),
        (&["--retry-on-exit", "1", "--stop-on-exit", "2", "--", "true"], "--stop-on-exit"),
        (&["--quiet"], "<COMMAND>"),
        (&["--multiplier", "0.5", "--", "true"], "invalid value for --multiplier"),
    ];
    refuses_each(&["run"], &cases);
    let both = stderr_text(&stagger(&["run", "--retry-on-exit", "1", "--stop-on-exit", "2", "--", "true"]));
    assert!(both.contains("cannot be used with"), "{both}");
}

#[test]
fn a_mistyped_option_is_refused_not_run_as_the_command() {
    let (_dir, ran) = temp();
    let script = "echo \"$@\" >> \"$0\"";
    for (typo, closest) in [("--atempts", "--attempts"), ("--dedline", "--deadline")] {
        let out = stagger(&["run", typo, "3", "--", "sh", "-c", script, ran.to_str().unwrap()]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(2), "{typo}: {stderr}");
        assert!(stderr.starts_with(&format!("error: unexpected argument '{typo}'")), "{stderr}");
        assert!(stderr.contains(&format!("a similar argument exists: '{closest}'")), "{stderr}");
    }
    assert!(!ran.exists(), "nothing ran");
    // The command's own options, after `--` or after its first word, are its.
    for dashes in [&["--"][..], &[]] {
        let mut args = vec!["run", "--attempts", "1"];
        args.extend(dashes);
        args.extend(["sh", "-c", script, ran.to_str().unwrap(), "--atempts", "-q"]);
        let out = stagger(&args);
        assert_eq!(out.status.code(), Some(0), "{dashes:?}: {}", stderr_text(&out));
    }
    assert_eq!(fs::read_to_string(&ran).unwrap(), "--atempts -q\n--atempts -q\n");
}

#[test]
fn help_documents_the_exit_status() {
    let help = super::stdout_of(&["run", "--help"]);
    for needle in ["--retry-on-exit <CODES>", "--attempt-timeout <DUR>", "--kill-after <DUR>", "124", "127"] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn help_names_every_json_event_including_the_summary() {
    let help = super::stdout_of(&["run", "--help"]);
    assert!(
        help.contains("(`retry_attempt`, then `give_up` if it gives up, and a `summary` last)"),
        "{help}"
    );
}

/// `stagger run --config FILE`: the file's settings, their precedence, and its errors.
#[path = "run_config.rs"]
mod config;
/// Signal deaths, cancels that escalate, and leftovers.
#[path = "run_ends.rs"]
mod ends;
/// `--http-headers`: retries by the HTTP response, the curl recipe.
#[path = "run_http.rs"]
mod http;
/// Input replay, scripts without `#!`, the deadline's numbers, the countdown.
#[path = "run_operator.rs"]
mod operator;
