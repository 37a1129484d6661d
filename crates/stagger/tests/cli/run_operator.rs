//! What an operator expects around the attempts: input replayed, scripts
//! without `#!` run, a deadline give-up that shows its numbers, counts and
//! seeds that say their range, and a countdown on a terminal only.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};

use super::ends::ended;
use super::{fast, lines, pid, run_sh, sh_args, stderr_text, temp, wait_for};

/// `stagger run OPTIONS -- sh -c SCRIPT sh PATHS` with `input` on stdin.
fn run_with_input(
    options: &[String],
    script: &str,
    paths: &[&std::path::Path],
    input: &[u8],
) -> std::process::Output {
    let mut stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
        .args(sh_args(options, script, paths))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("stagger runs");
    let mut stdin = stagger.stdin.take().unwrap();
    let input = input.to_vec();
    // stagger may stop reading early (too long): a broken pipe is fine.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = ended(stagger);
    writer.join().unwrap();
    out
}

#[test]
fn stdin_is_replayed_to_every_attempt() {
    let (_dir, seen) = temp();
    let mut options = fast(3);
    options.extend(["--stdin", "replay"].map(str::to_owned));
    let out = run_with_input(&options, "cat >> \"$1\"; exit 1", &[&seen], b"data\n\x00\xff");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_text(&out));
    assert_eq!(fs::read(&seen).unwrap(), b"data\n\x00\xffdata\n\x00\xffdata\n\x00\xff");

    // By default attempt 2 reads what attempt 1 left: nothing.
    let (_dir, seen) = temp();
    let out = run_with_input(&fast(3), "cat >> \"$1\"; exit 1", &[&seen], b"data\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(&seen).unwrap(), b"data\n");

    // A command that reads none of it is not held up.
    let out = run_with_input(&options, "exit 0", &[], &vec![b'x'; 1 << 20]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
}

#[test]
fn stdin_past_the_replay_limit_is_refused_before_anything_runs() {
    let (_dir, runs) = temp();
    let mut options = fast(3);
    options.extend(["--stdin", "replay"].map(str::to_owned));
    let out = run_with_input(&options, "echo run >> \"$1\"", &[&runs], &vec![b'x'; (64 << 20) + 1]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: invalid value for --stdin: standard input is longer than 64 MiB"),
        "{stderr}"
    );
    assert_eq!(lines(&runs), 0);
}

#[test]
fn a_script_without_a_shebang_runs_with_sh() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("no-shebang");
    fs::write(&script, "echo \"run $1\" >> \"$2\"\nexit 3\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let runs = dir.path().join("runs");
    let run = |program: &str, path: Option<String>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_stagger"));
        command.args(fast(2)).arg("--").arg(program).arg("arg").arg(&runs);
        if let Some(path) = path {
            command.env("PATH", path);
        }
        command.output().expect("stagger runs")
    };
    let out = run(script.to_str().unwrap(), None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_text(&out));
    assert_eq!(fs::read_to_string(&runs).unwrap(), "run arg\nrun arg\n");
    // Found in PATH, as a shell finds it.
    let path = format!("{}:{}", dir.path().display(), std::env::var("PATH").unwrap_or_default());
    let out = run("no-shebang", Some(path));
    assert_eq!(out.status.code(), Some(3), "{}", stderr_text(&out));
    assert_eq!(lines(&runs), 4);
    // A binary for another system is still refused, and not retried.
    let binary = dir.path().join("binary");
    fs::write(&binary, b"\x7fELF\x02\x01\x01\x00\x00\x00\n").unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    let out = run(binary.to_str().unwrap(), None);
    assert_eq!(out.status.code(), Some(126), "{}", stderr_text(&out));
}

#[test]
fn giving_up_for_the_deadline_says_the_wait_and_the_time_left() {
    // The first wait, 5s, cannot end before the deadline: stop at once.
    let (_dir, runs) = temp();
    let options =
        ["run", "--strategy", "constant", "--base", "5s", "--deadline", "2s", "--log-format", "json"]
            .map(str::to_owned);
    let (out, elapsed) = run_sh(&options, "echo run >> \"$1\"; exit 1", &[&runs]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(lines(&runs), 1);
    assert!(elapsed < Duration::from_secs(2), "no wait: {elapsed:?}");
    let mut lines = stderr.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).expect("JSON"));
    let (give_up, summary) = (lines.next().expect("a give-up"), lines.next().expect("a summary"));
    assert_eq!((summary["event"].as_str(), summary["reason"].as_str()), (Some("summary"), Some("deadline")));
    assert_eq!((summary["attempts"].as_u64(), summary["waited_ms"].as_u64()), (Some(1), Some(0)));
    assert!(lines.next().is_none(), "{stderr}");
    assert_eq!(give_up["reason"], "deadline");
    assert_eq!(give_up["refused_delay_ms"], 5000);
    let left = give_up["time_left_ms"].as_u64().unwrap();
    assert!(left > 0 && left < 2000, "{stderr}");

    let options = ["run", "--strategy", "constant", "--base", "5s", "--deadline", "2s"].map(str::to_owned);
    let (out, _) = run_sh(&options, "exit 1", &[]);
    let stderr = stderr_text(&out);
    assert!(
        stderr.contains("giving up: the next wait, 5s, would end past the deadline, which is 1.9"),
        "{stderr}"
    );
}

#[test]
fn counts_and_seeds_say_their_range_and_attempts_may_be_unlimited() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "--attempts", "-1", "--", "true"],
            "'-1' for '--attempts <N>': must be at least 1, or `unlimited`",
        ),
        (&["run", "--attempts", "0", "--", "true"], "invalid max_attempts 0: must be at least 1"),
        (&["run", "--seed", "-1", "--", "true"], "a seed is a whole number from 0 to 18446744073709551615"),
        (&["simulate", "--runs", "-1"], "'-1' for '--runs <R>': must be at least 1"),
    ];
    for (args, needle) in cases {
        let out = super::super::stagger(args);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("0..="), "no range that 0 is then refused from: {stderr}");
    }
    let (_dir, runs) = temp();
    let options =
        ["run", "--attempts", "unlimited", "--strategy", "constant", "--base", "1ms", "--deadline", "10s"]
            .map(str::to_owned);
    let script = "echo run >> \"$1\"; [ $(wc -l < \"$1\") -ge 7 ]";
    let (out, _) = run_sh(&options, script, &[&runs]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(lines(&runs), 7, "more than the default 5 attempts");
    assert!(stderr_text(&out).contains("stagger: attempt 1 failed (exit code 1); retrying in 1ms"));
}

/// A terminal for stagger: util-linux `script` runs the command on a pty
/// and copies what it writes to our pipe. `None` (and a message) without it.
fn on_a_terminal(command: &str) -> Option<(std::process::Child, Arc<Mutex<Vec<u8>>>)> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is needed to give stagger a terminal");
        return None;
    }
    let mut script = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script runs");
    let transcript = Arc::new(Mutex::new(Vec::new()));
    let copy = Arc::clone(&transcript);
    let mut terminal = script.stdout.take().unwrap();
    thread::spawn(move || {
        let mut chunk = [0_u8; 4096];
        while let Ok(n @ 1..) = terminal.read(&mut chunk) {
            copy.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
    Some((script, transcript))
}

/// Stagger's pid, which its command wrote to `path`.
fn pid_in(path: &std::path::Path) -> Pid {
    wait_for(path);
    let started = Instant::now();
    loop {
        if let Some(pid) =
            fs::read_to_string(path).ok().and_then(|t| t.trim().parse().ok()).and_then(Pid::from_raw)
        {
            return pid;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no pid in {}", path.display());
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_countdown_runs_on_a_terminal_and_quiet_hides_it() {
    for quiet in [false, true] {
        let (_dir, pid_file) = temp();
        let command = format!(
            "{} run --strategy constant --base 30s --attempts 2 {} -- sh -c 'echo $PPID > {}; exit 1'",
            env!("CARGO_BIN_EXE_stagger"),
            if quiet { "--quiet" } else { "" },
            pid_file.display()
        );
        let Some((script, transcript)) = on_a_terminal(&command) else { return };
        let stagger = pid_in(&pid_file);
        let started = Instant::now();
        let text = || String::from_utf8_lossy(&transcript.lock().unwrap()).into_owned();
        if quiet {
            // What would show, shows at once: give it a moment to.
            thread::sleep(Duration::from_millis(300));
        } else {
            while !text().contains("stagger: attempt 2/2 in ") {
                assert!(started.elapsed() < Duration::from_secs(20), "no countdown: {}", text());
                thread::sleep(Duration::from_millis(10));
            }
        }
        kill_process(stagger, Signal::INT).expect("signal stagger");
        let status = ended(script).status;
        let shown = text();
        assert_eq!(status.code(), Some(130), "{shown}");
        assert_eq!(shown.contains("stagger: attempt 2/2 in "), !quiet, "quiet {quiet}: {shown}");
        if !quiet {
            assert!(shown.contains("in 30s") || shown.contains("in 29s"), "{shown}");
        }
    }
}

#[test]
fn no_countdown_when_standard_error_is_not_a_terminal() {
    let options = ["run", "--strategy", "constant", "--base", "30s"].map(str::to_owned);
    let mut stagger = Command::new(env!("CARGO_BIN_EXE_stagger"))
        .args(sh_args(&options, "exit 1", &[]))
        .stderr(Stdio::piped())
        .spawn()
        .expect("stagger runs");
    let mut stderr = BufReader::new(stagger.stderr.take().unwrap());
    let mut retry = String::new();
    stderr.read_line(&mut retry).expect("a retry line");
    // Were it drawn, the countdown would come at once.
    thread::sleep(Duration::from_millis(300));
    kill_process(pid(&stagger), Signal::INT).expect("signal stagger");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("the rest");
    assert_eq!(ended(stagger).status.code(), Some(130));
    assert!(retry.ends_with("retrying in 30s\n"), "{retry}");
    assert!(!rest.contains("attempt 2/5 in"), "{rest}");
    assert!(
        rest.starts_with("stagger: attempt 1/5 failed (exit code 1); giving up: cancelled by SIGINT"),
        "{rest}"
    );
}
