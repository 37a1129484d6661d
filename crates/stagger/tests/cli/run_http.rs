//! `stagger run --http-headers FILE`: retries by the HTTP response the
//! command wrote, with curl's `-D FILE` against a server on 127.0.0.1 that
//! the test starts (skipped with a message where curl is not installed),
//! and with any command that writes such a file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Signal};
use serde_json::Value;

use super::ends::ended;
use super::{fast, pid, run_sh, stderr_text, temp};

/// A server on 127.0.0.1 that answers the requests it receives with
/// `responses` in turn (the last one again once they run out), and notes
/// when each request came.
struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Instant>>>,
}

impl Server {
    fn start(responses: &[&str]) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}/health", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let noted = Arc::clone(&requests);
        let responses: Vec<String> = responses.iter().map(|r| (*r).to_owned()).collect();
        // Left blocked in accept when the test ends: the process ends it.
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let served = {
                    let mut requests = noted.lock().unwrap();
                    requests.push(Instant::now());
                    requests.len()
                };
                let response = &responses[(served - 1).min(responses.len() - 1)];
                answer(stream, response);
            }
        });
        Server { url, requests }
    }

    fn requests(&self) -> Vec<Instant> {
        self.requests.lock().unwrap().clone()
    }
}

/// Reads a request's head and writes `response` (a status line and
/// headers, without the blank line; then, after a blank line, the body if
/// any), with its length.
fn answer(mut stream: TcpStream, response: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
        head.push(byte[0]);
    }
    let (response, body) = response.split_once("\r\n\r\n").unwrap_or((response, ""));
    let reply = format!("{response}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    let _ = stream.write_all(reply.as_bytes());
}

/// Whether curl is installed; if not, says the test is skipped.
fn curl_installed() -> bool {
    let found = Command::new("curl").arg("--version").output().is_ok_and(|out| out.status.success());
    if !found {
        eprintln!("skipped: curl is not installed (.ci/run installs it where it can)");
    }
    found
}

/// `stagger run OPTIONS --http-headers HEADERS -- curl -fsS -D HEADERS URL`.
fn curl(options: &[String], headers: &Path, url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagger"));
    command.args(options).arg("--http-headers").arg(headers).arg("--");
    command.args(["curl", "-fsS", "--noproxy", "*", "--max-time", "20", "-D"]).arg(headers).arg(url);
    command
}

fn output(mut command: Command) -> Output {
    ended(command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("stagger runs"))
}

#[test]
fn curl_a_404_is_not_retried() {
    if !curl_installed() {
        return;
    }
    let server = Server::start(&["HTTP/1.1 404 Not Found"]);
    let (_dir, headers) = temp();
    let out = output(curl(&fast(5), &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(22), "curl's status for an HTTP error: {stderr}");
    assert_eq!(server.requests().len(), 1, "{stderr}");
    assert!(
        stderr.contains("attempt 1/5 failed (exit code 22, HTTP 404 Not Found); giving up: permanent error"),
        "{stderr}"
    );
}

#[test]
fn curl_a_503_is_retried_until_the_server_is_back() {
    if !curl_installed() {
        return;
    }
    let server = Server::start(&["HTTP/1.1 503 Service Unavailable", "HTTP/1.1 200 OK"]);
    let (_dir, headers) = temp();
    let out = output(curl(&fast(5), &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.requests().len(), 2, "{stderr}");
    assert!(stderr.contains("(exit code 22, HTTP 503 Service Unavailable); retrying in 10ms"), "{stderr}");
}

#[test]
fn curl_retry_after_sets_the_wait() {
    if !curl_installed() {
        return;
    }
    // Retry-After counts whole seconds: the wait is read from the log, and
    // the run cancelled, rather than slept through.
    let server = Server::start(&["HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1"]);
    let (_dir, headers) = temp();
    // The hint is honoured up to --max-hint, by default the schedule's
    // largest delay: here 10ms.
    let mut options = fast(5);
    options.extend(["--log-format", "json", "--max-hint", "5s"].map(str::to_owned));
    let mut stagger = curl(&options, &headers, &server.url).stderr(Stdio::piped()).spawn().expect("runs");
    let mut stderr = BufReader::new(stagger.stderr.take().unwrap());
    let mut line = String::new();
    // curl's own message comes first.
    while !line.starts_with('{') {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "no retry line");
    }
    kill_process(pid(&stagger), Signal::INT).expect("signal stagger");
    let status = ended(stagger).status;
    let retry: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(retry["event"], "retry_attempt", "{line}");
    assert_eq!((retry["http_status"].clone(), retry["hint_ms"].clone()), (429.into(), 1000.into()), "{line}");
    assert_eq!(retry["error_kind"], "throttled");
    let delay = retry["delay_ms"].as_u64().unwrap();
    assert!((1000..=1100).contains(&delay), "at least the hint, plus at most 10% jitter: {line}");
    assert_eq!(status.code(), Some(130));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn curl_a_millisecond_hint_is_waited_for() {
    if !curl_installed() {
        return;
    }
    let server =
        Server::start(&["HTTP/1.1 503 Service Unavailable\r\nx-amz-retry-after: 300", "HTTP/1.1 200 OK"]);
    let (_dir, headers) = temp();
    let mut options = fast(5);
    options.extend(["--max-hint", "5s"].map(str::to_owned));
    let out = output(curl(&options, &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let gap = requests[1] - requests[0];
    assert!(gap >= Duration::from_millis(300), "came back after {gap:?}, before the hint: {stderr}");
}

#[test]
fn curl_a_hint_past_max_hint_stops() {
    if !curl_installed() {
        return;
    }
    let server = Server::start(&["HTTP/1.1 503 Service Unavailable\r\nRetry-After: 120"]);
    let (_dir, headers) = temp();
    let mut options = fast(5);
    options.extend(["--max-hint", "30s"].map(str::to_owned));
    let out = output(curl(&options, &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(22), "{stderr}");
    assert_eq!(server.requests().len(), 1, "{stderr}");
    assert!(
        stderr.contains("server asked for 2m); giving up: the server asked to wait 2m, longer than --max-hint allows (30s)"),
        "{stderr}"
    );
}

#[test]
fn any_command_can_hand_over_its_response() {
    // A script that speaks HTTP its own way: 404 stops, 503 is retried,
    // and the file is emptied before each attempt (no stale 404 is read
    // after an attempt that wrote nothing).
    let (dir, headers) = temp();
    let runs = dir.path().join("runs");
    let script = "echo run >> \"$2\"; n=$(wc -l < \"$2\"); \
                  if [ $n -eq 1 ]; then printf 'HTTP/1.1 503 Service Unavailable\\r\\n\\r\\n' > \"$1\"; fi; \
                  if [ $n -eq 3 ]; then printf 'HTTP/2 404 \\r\\n\\r\\n' > \"$1\"; fi; exit 7";
    let mut options = fast(5);
    options.extend(["--http-headers".to_owned(), headers.display().to_string()]);
    let (out, _) = run_sh(&options, script, &[&headers, &runs]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert_eq!(super::lines(&runs), 3, "{stderr}");
    assert!(
        stderr.contains("attempt 1/5 failed (exit code 7, HTTP 503 Service Unavailable); retrying"),
        "{stderr}"
    );
    assert!(stderr.contains("attempt 2/5 failed (exit code 7); retrying"), "no stale response: {stderr}");
    assert!(
        stderr.contains("attempt 3/5 failed (exit code 7, HTTP 404 Not Found); giving up: permanent error")
    );
}

#[test]
fn the_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let headers = dir.path().join("h").display().to_string();
    let cases: [(Vec<String>, &str); 7] = [
        (vec!["--http-headers".into(), dir.path().display().to_string()], "is not a regular file"),
        (vec!["--http-headers".into(), dir.path().join("no/h").display().to_string()], "no such directory"),
        (vec!["--max-hint".into(), "1m".into()], "--http-headers"),
        (vec!["--http-body".into(), dir.path().join("b").display().to_string()], "--http-headers"),
        (vec!["--throttle-code".into(), "QuotaExceeded".into()], "--http-headers"),
        (vec!["--bare-503-is-throttle".into()], "--http-headers"),
        (
            vec!["--http-headers".into(), headers, "--throttle-code".into(), "ns#Busy".into()],
            "must be letters, digits, '.', '_' or '-'",
        ),
    ];
    for (options, needle) in cases {
        let mut args = vec!["run".to_owned()];
        args.extend(options);
        args.extend(["--", "true"].map(str::to_owned));
        let out = super::super::stagger(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn http_headers_does_not_trust_the_path_a_fifo_or_dev_zero_is_refused_at_once() {
    // The command leaves, where the response should be, a FIFO (whose
    // open() would wait for a writer, deaf to signals) or a link to
    // /dev/zero (endless, of size 0): neither is read, and the file
    // cannot be emptied for the next attempt either.
    for leave in ["mkfifo \"$1\"", "ln -s /dev/zero \"$1\""] {
        let (_dir, headers) = temp();
        let mut options = fast(2);
        options.extend(["--http-headers".to_owned(), headers.display().to_string()]);
        let args = super::sh_args(&options, &format!("rm -f \"$1\"; {leave}; exit 1"), &[&headers]);
        let stagger = Command::new(env!("CARGO_BIN_EXE_stagger")).args(args).stderr(Stdio::piped()).spawn();
        let out = ended(stagger.expect("stagger runs"));
        let stderr = stderr_text(&out);
        let path = headers.display();
        assert!(
            stderr.starts_with(&format!(
                "stagger: warning: cannot read {path}: not a regular file\n\
                 stagger: attempt 1/2 failed (exit code 1); retrying in 10ms\n\
                 error: cannot empty {path}: not a regular file\n"
            )),
            "{leave}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(1), "{leave}: {stderr}");
    }
}

#[test]
fn control_characters_from_the_server_do_not_reach_the_terminal() {
    if !curl_installed() {
        return;
    }
    // A reason phrase that would erase the line and draw a success over
    // it, then one too long to be a reason.
    let forged = "HTTP/1.1 503 \u{1b}[2K\rstagger: attempt 9/9 succeeded";
    let long = format!("HTTP/1.1 503 {}", "x".repeat(5_000));
    let server = Server::start(&[forged, &long]);
    let (_dir, headers) = temp();
    let out = output(curl(&fast(2), &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(22), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|line| line.starts_with("stagger: ")).collect();
    assert_eq!(
        lines,
        [
            "stagger: attempt 1/2 failed (exit code 22, HTTP 503 \\u{1b}[2K\\rstagger: attempt 9/9 \
             succeeded); retrying in 10ms",
            &format!(
                "stagger: attempt 2/2 failed (exit code 22, HTTP 503 {}…); giving up: attempts exhausted",
                "x".repeat(200)
            ),
        ],
        "{stderr}"
    );
    assert!(!stderr.contains(['\u{1b}', '\r']), "{stderr:?}");
}

/// The `error_kind` of each `retry_attempt` line of a JSON log.
fn retry_kinds(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .filter(|event| event["event"] == "retry_attempt")
        .map(|event| event["error_kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn curl_s3s_slow_down_in_the_body_file_is_a_throttle() {
    if !curl_installed() {
        return;
    }
    let slow_down = "HTTP/1.1 503 Slow Down\r\n\r\n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                     <Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
    let server = Server::start(&[slow_down, slow_down, "HTTP/1.1 200 OK"]);
    let dir = tempfile::tempdir().unwrap();
    let (headers, body) = (dir.path().join("h"), dir.path().join("b"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagger"));
    command.args(fast(5)).args(["--log-format", "json", "--http-headers"]).arg(&headers);
    command.arg("--http-body").arg(&body).arg("--");
    command
        .args(["curl", "-sS", "--fail-with-body", "--noproxy", "*", "--max-time", "20", "-D"])
        .arg(&headers);
    command.arg("-o").arg(&body).arg(&server.url);
    let out = output(command);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.requests().len(), 3, "{stderr}");
    assert_eq!(retry_kinds(&stderr), ["throttled", "throttled"], "{stderr}");

    // Without --http-body the same 503 is a plain transient failure.
    let server = Server::start(&[slow_down, "HTTP/1.1 200 OK"]);
    let mut options = fast(5);
    options.extend(["--log-format", "json"].map(str::to_owned));
    let out = output(curl(&options, &headers, &server.url));
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(retry_kinds(&stderr), ["transient"], "{stderr}");
}

#[test]
fn a_throttle_code_of_ones_own_retries_a_400_that_would_stop() {
    // A script that answers like a service of its own: 400 QuotaExceeded.
    let script = "echo run >> \"$2\"; \
                  printf 'HTTP/1.1 400 Bad Request\\r\\nx-amzn-ErrorType: QuotaExceeded\\r\\n\\r\\n' > \"$1\"; exit 22";
    for (extra, runs, last) in [
        (&[][..], 1, "attempt 1/3 failed (exit code 22, HTTP 400 Bad Request); giving up: permanent error"),
        (
            &["--throttle-code", "QuotaExceeded"][..],
            3,
            "attempt 3/3 failed (exit code 22, HTTP 400 Bad Request); giving up",
        ),
    ] {
        let (dir, headers) = temp();
        let ran = dir.path().join("runs");
        let mut options = fast(3);
        options.extend(["--http-headers".to_owned(), headers.display().to_string()]);
        options.extend(extra.iter().map(|s| (*s).to_owned()));
        let (out, _) = run_sh(&options, script, &[&headers, &ran]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(22), "{extra:?}: {stderr}");
        assert_eq!(super::lines(&ran), runs, "{extra:?}: {stderr}");
        assert!(stderr.contains(last), "{extra:?}: {stderr}");
    }
}

#[test]
fn a_bare_503_is_logged_as_a_throttle_only_when_asked() {
    let script = "printf 'HTTP/1.1 503 Service Unavailable\\r\\n\\r\\n' > \"$1\"; exit 22";
    for (extra, kind) in [(&[][..], "transient"), (&["--bare-503-is-throttle"][..], "throttled")] {
        let (_dir, headers) = temp();
        let mut options = fast(2);
        options.extend(["--log-format", "json", "--http-headers"].map(str::to_owned));
        options.push(headers.display().to_string());
        options.extend(extra.iter().map(|s| (*s).to_owned()));
        let (out, _) = run_sh(&options, script, &[&headers]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(22), "{extra:?}: {stderr}");
        assert_eq!(retry_kinds(&stderr), [kind], "{extra:?}: {stderr}");
    }
}
