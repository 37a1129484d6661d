//! How attempts end: a signal death read as its status (SIGPIPE stops), a
//! cancel that escalates to SIGKILL, and the leftovers of a failed attempt.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};

use super::{fast, lines, pid, run_sh, sh_args, stderr_text, temp, wait_for};

/// Waits for `child` to end and collects its output; fails the test (and
/// kills it) if it is still running after a minute.
pub fn ended(mut child: Child) -> Output {
    let started = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("output")
}

/// Whether process `pid` is alive: it exists and is not a zombie.
fn alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) if Path::new("/proc/self/stat").exists() => false,
        Err(_) => Pid::from_raw(pid).is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok()),
    }
}

/// Whether every process listed in `path` has ended, within 10 s.
fn all_ended(path: &Path) -> bool {
    let pids: Vec<i32> =
        fs::read_to_string(path).unwrap().lines().map(|line| line.trim().parse().unwrap()).collect();
    assert!(!pids.is_empty());
    let started = Instant::now();
    while pids.iter().any(|&pid| alive(pid)) {
        if started.elapsed() > Duration::from_secs(10) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Kills every process listed in `path`: a test's own clean-up.
fn kill_all(path: &Path) {
    for line in fs::read_to_string(path).unwrap_or_default().lines() {
        if let Some(pid) = line.trim().parse().ok().and_then(Pid::from_raw) {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
}

fn options(base: &[String], more: &[&str]) -> Vec<String> {
    let mut all = base.to_vec();
    all.extend(more.iter().map(|s| (*s).to_owned()));
    all
}

#[test]
fn a_reader_that_goes_away_is_not_retried() {
    // `stagger run -- yes | head -c 64`: the command dies of SIGPIPE.
    for (extra, attempts) in [(&[][..], 1), (&["--retry-on-exit", "1,141"][..], 3)] {
        let (_dir, runs) = temp();
        let args = sh_args(&options(&fast(3), extra), "echo run >> \"$1\"; exec yes", &[&runs]);
        let mut stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("stagger runs");
        let mut head = [0_u8; 64];
        stagger.stdout.take().unwrap().read_exact(&mut head).expect("the command's output");
        let out = ended(stagger);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(141), "{extra:?}: {stderr}");
        assert_eq!(lines(&runs), attempts, "{extra:?}: {stderr}");
        assert!(stderr.contains("(killed by SIGPIPE: the reader of its output has gone)"), "{stderr}");
        if attempts == 1 {
            assert!(stderr.contains("attempt 1/3 failed") && stderr.contains("giving up: permanent error"));
        }
    }
}

#[test]
fn the_exit_code_lists_match_128_plus_the_signal() {
    let cases: [(&[&str], usize); 4] = [
        (&[], 3),
        (&["--retry-on-exit", "1"], 1),
        (&["--stop-on-exit", "137"], 1),
        (&["--retry-on-exit", "137"], 3),
    ];
    for (extra, attempts) in cases {
        let (_dir, runs) = temp();
        let (out, _) = run_sh(&options(&fast(3), extra), "echo run >> \"$1\"; kill -KILL $$", &[&runs]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(137), "{extra:?}: {stderr}");
        assert_eq!(lines(&runs), attempts, "{extra:?}: {stderr}");
    }
}

/// A command that does not end on SIGINT or SIGTERM: it notes each in `$3`
/// and waits on, and the `sleep` it started ignores them. It writes the
/// sleep's pid to `$2`, then `$1` once it is ready.
const STUBBORN: &str = "trap '' INT TERM; sleep 30 & echo $! > \"$2\"; \
                        trap 'echo got >> \"$3\"' INT TERM; echo > \"$1\"; while :; do wait; done";

#[test]
fn a_second_cancel_kills_a_command_that_ignores_the_first() {
    for signal in [Signal::TERM, Signal::INT] {
        let (dir, started) = temp();
        let (sleeper, got) = (dir.path().join("sleeper"), dir.path().join("got"));
        let args =
            sh_args(&options(&fast(5), &["--kill-after", "60s"]), STUBBORN, &[&started, &sleeper, &got]);
        let stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .expect("stagger runs");
        wait_for(&started);
        kill_process(pid(&stagger), signal).expect("first signal");
        // Passed on, and shrugged off: the second is a second signal.
        wait_for(&got);
        let sent = Instant::now();
        kill_process(pid(&stagger), signal).expect("second signal");
        let out = ended(stagger);
        let stderr = stderr_text(&out);
        assert!(sent.elapsed() < Duration::from_secs(30), "not the 60 s grace: {stderr}");
        let name = if signal == Signal::TERM { "SIGTERM" } else { "SIGINT" };
        let status = 128 + signal.as_raw();
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "attempt 1/5 failed (killed by SIGKILL: it had not ended on {name}); giving up: cancelled by {name}"
            )),
            "{stderr}"
        );
        assert!(all_ended(&sleeper), "the whole group is killed");
    }
}

#[test]
fn kill_after_escalates_a_single_cancel() {
    let (dir, started) = temp();
    let (sleeper, got) = (dir.path().join("sleeper"), dir.path().join("got"));
    let args = sh_args(&options(&fast(5), &["--kill-after", "100ms"]), STUBBORN, &[&started, &sleeper, &got]);
    let stagger =
        Command::new(env!("CARGO_BIN_EXE_stagger")).args(args).stderr(Stdio::piped()).spawn().expect("runs");
    wait_for(&started);
    let sent = Instant::now();
    kill_process(pid(&stagger), Signal::TERM).expect("signal");
    let out = ended(stagger);
    let stderr = stderr_text(&out);
    assert!(sent.elapsed() < Duration::from_secs(20), "{stderr}");
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("it had not ended on SIGTERM); giving up: cancelled by SIGTERM"), "{stderr}");
    assert!(all_ended(&sleeper));
    assert_eq!(lines(&got), 1, "passed on once");
}

/// Starts `sleep 131` in the background (its pid appended to `$1`, its
/// output away from stagger's pipes) and exits with `code`; with `stubborn`
/// the sleep ignores SIGTERM.
fn leaves_a_sleep(code: u8, stubborn: bool) -> String {
    let trap = if stubborn { "trap '' TERM; " } else { "" };
    format!("{trap}sleep 131 >/dev/null 2>&1 & echo $! >> \"$1\"; exit {code}")
}

#[test]
fn what_a_failed_attempt_leaves_running_is_ended() {
    for stubborn in [false, true] {
        let (_dir, sleepers) = temp();
        let options = options(&fast(3), &["--kill-after", "100ms"]);
        let (out, elapsed) = run_sh(&options, &leaves_a_sleep(1, stubborn), &[&sleepers]);
        let stderr = stderr_text(&out);
        let ended = all_ended(&sleepers);
        kill_all(&sleepers);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(lines(&sleepers), 3, "{stderr}");
        assert!(ended, "stubborn {stubborn}: a leftover lives on");
        assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    }
}

#[test]
fn leftovers_stay_on_success_with_keep_leftovers_and_in_the_foreground() {
    let cases: [(u8, &[&str]); 3] = [(0, &[]), (1, &["--keep-leftovers"]), (1, &["--foreground"])];
    for (code, extra) in cases {
        let (_dir, sleepers) = temp();
        let (out, _) = run_sh(&options(&fast(2), extra), &leaves_a_sleep(code, false), &[&sleepers]);
        let pids: Vec<i32> =
            fs::read_to_string(&sleepers).unwrap().lines().map(|line| line.trim().parse().unwrap()).collect();
        let living = pids.iter().filter(|&&pid| alive(pid)).count();
        kill_all(&sleepers);
        assert_eq!(out.status.code(), Some(i32::from(code)), "{extra:?}: {}", stderr_text(&out));
        assert_eq!(living, pids.len(), "{extra:?}: every sleep still runs");
    }
}
