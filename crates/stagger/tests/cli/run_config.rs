//! `stagger run --config FILE`: a TOML or JSON file sets the schedule,
//! limits and exit codes; options win over it; mistakes name file and field.

use super::*;

/// Writes `text` to `name` in `dir`, for `--config`.
fn config_file(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, text).expect("write the config file");
    path
}

/// `stagger run --config path options... -- sh -c script sh paths...`, timed.
fn run_with_config(path: &Path, options: &[&str], script: &str, paths: &[&Path]) -> (Output, Duration) {
    let mut all = vec!["run".to_owned(), "--config".to_owned(), path.display().to_string()];
    all.extend(options.iter().map(|&o| o.to_owned()));
    run_sh(&all, script, paths)
}

const CONSTANT_3_TOML: &str = "[schedule]\nstrategy = \"constant\"\nbase = \"10ms\"\nmax_attempts = 3\n";
const CONSTANT_3_JSON: &str = r#"{"schedule": {"strategy": "constant", "base": "10ms", "max_attempts": 3}}"#;

#[test]
fn a_toml_config_makes_a_failing_command_run_max_attempts_times() {
    let (dir, attempts) = temp();
    let file = config_file(&dir, "retry.toml", CONSTANT_3_TOML);
    let (out, _) = run_with_config(&file, &[], &counting(1), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(lines(&attempts), 3, "{stderr}");
    assert_eq!(stderr.matches("retrying in 10ms").count(), 2, "{stderr}");
    assert!(stderr.contains("attempt 3/3 failed (exit code 1); giving up: attempts exhausted"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_json_config_works_the_same_and_so_does_a_file_without_an_extension() {
    for (name, text) in
        [("retry.json", CONSTANT_3_JSON), ("retry.conf", CONSTANT_3_TOML), ("retry", CONSTANT_3_JSON)]
    {
        let (dir, attempts) = temp();
        let file = config_file(&dir, name, text);
        let (out, _) = run_with_config(&file, &[], &counting(1), &[&attempts]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(lines(&attempts), 3, "{name}: {stderr}");
        assert!(stderr.contains("attempt 3/3 failed (exit code 1); giving up"), "{name}: {stderr}");
    }
}

#[test]
fn an_option_overrides_the_files_value() {
    let (dir, attempts) = temp();
    // Left to the file, the 10 s delays would make this test take 40 s.
    let file = config_file(
        &dir,
        "retry.toml",
        "[schedule]\nstrategy = \"constant\"\nbase = \"10s\"\nmax_attempts = 5\n",
    );
    let (out, elapsed) =
        run_with_config(&file, &["--attempts", "2", "--base", "10ms"], &counting(1), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(lines(&attempts), 2, "{stderr}");
    assert!(stderr.contains("attempt 1/2 failed (exit code 1); retrying in 10ms"), "{stderr}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn the_files_exit_codes_decide_what_is_retried() {
    let classification = |lists: &str| format!("{CONSTANT_3_TOML}[classification]\n{lists}\n");
    // (the file's lists, the command's exit code, attempts made)
    let cases = [
        ("stop_exit_codes = [4, 9]", 4, 1),
        ("stop_exit_codes = [4, 9]", 5, 3),
        ("retry_exit_codes = [75]", 3, 1),
        ("retry_exit_codes = [75]", 75, 3),
    ];
    for (lists, code, made) in cases {
        let (dir, attempts) = temp();
        let file = config_file(&dir, "retry.toml", &classification(lists));
        let (out, _) = run_with_config(&file, &[], &counting(code), &[&attempts]);
        let stderr = stderr_text(&out);
        assert_eq!(out.status.code(), Some(i32::from(code)), "{lists}, exit {code}: {stderr}");
        assert_eq!(lines(&attempts), made, "{lists}, exit {code}: {stderr}");
        if made == 1 {
            assert!(stderr.contains("attempt 1/3 failed (exit code"), "{stderr}");
            assert!(stderr.contains("giving up: permanent error"), "{stderr}");
        }
    }
    // An exit-code option replaces the file's lists: 4 is retried again.
    let (dir, attempts) = temp();
    let file = config_file(&dir, "retry.toml", &classification("stop_exit_codes = [4]"));
    let (out, _) = run_with_config(&file, &["--stop-on-exit", "9"], &counting(4), &[&attempts]);
    assert_eq!((out.status.code(), lines(&attempts)), (Some(4), 3), "{}", stderr_text(&out));
}

#[test]
fn the_files_limits_take_effect() {
    // limits.attempt_timeout stops each attempt.
    let dir = tempfile::tempdir().unwrap();
    let file = config_file(
        &dir,
        "retry.toml",
        "[schedule]\nstrategy = \"constant\"\nbase = \"10ms\"\nmax_attempts = 2\n[limits]\nattempt_timeout = \"200ms\"\n",
    );
    let (out, elapsed) = run_with_config(&file, &[], "sleep 30", &[]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert_eq!(stderr.matches("timed out after 200ms").count(), 2, "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");

    // limits.deadline bounds the run.
    let (dir, attempts) = temp();
    let file = config_file(
        &dir,
        "retry.json",
        r#"{"schedule": {"strategy": "constant", "base": "100ms", "max_attempts": 100},
            "limits": {"deadline": "300ms"}}"#,
    );
    let (out, elapsed) = run_with_config(&file, &[], &counting(1), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!((2..=4).contains(&lines(&attempts)), "{stderr}");
    // The 100ms wait would pass the deadline; under load the attempt
    // itself may have run into it instead.
    assert!(
        stderr.contains("giving up: the next wait, 100ms, would end past the deadline, which is ")
            || stderr.contains("giving up: no time left before the deadline"),
        "{stderr}"
    );
    assert!(elapsed < Duration::from_millis(300 + 700), "{elapsed:?}");
}

#[test]
fn the_files_schedule_takes_effect() {
    // multiplier and max_delay: 10ms, 30ms, then capped at 50ms.
    let dir = tempfile::tempdir().unwrap();
    let file = config_file(
        &dir,
        "retry.toml",
        "[schedule]\nstrategy = \"exponential\"\nbase = \"10ms\"\nmultiplier = 3\nmax_delay = \"50ms\"\n\
         max_attempts = 4\n",
    );
    let (out, _) = run_with_config(&file, &[], "exit 1", &[]);
    let stderr = stderr_text(&out);
    for delay in
        ["attempt 1/4 failed (exit code 1); retrying in 10ms", "retrying in 30ms", "retrying in 50ms"]
    {
        assert!(stderr.contains(delay), "{delay}: {stderr}");
    }

    // granularity: intervals truncated to whole 10ms (15ms, 30ms without it).
    let file = config_file(
        &dir,
        "granular.toml",
        "[schedule]\nstrategy = \"exponential\"\nbase = \"15ms\"\ngranularity = \"10ms\"\nmax_attempts = 3\n",
    );
    let (out, _) = run_with_config(&file, &[], "exit 1", &[]);
    let stderr = stderr_text(&out);
    assert!(stderr.contains("retrying in 10ms") && stderr.contains("retrying in 20ms"), "{stderr}");

    // seed: the same jittered delays as `--seed`, run after run.
    let jittered = "[schedule]\nstrategy = \"full\"\nbase = \"10ms\"\nmax_attempts = 4\n";
    let file = config_file(&dir, "seeded.toml", &format!("{jittered}seed = 7\n"));
    let unseeded = config_file(&dir, "unseeded.toml", jittered);
    let first = stderr_text(&run_with_config(&file, &[], "exit 1", &[]).0);
    let again = stderr_text(&run_with_config(&file, &[], "exit 1", &[]).0);
    let by_option = stderr_text(&run_with_config(&unseeded, &["--seed", "7"], "exit 1", &[]).0);
    assert_eq!(first.matches("retrying in").count(), 3, "{first}");
    assert_eq!(first, again);
    assert_eq!(first, by_option);
}

#[test]
fn a_budget_in_the_file_is_accepted_and_ignored_with_a_warning() {
    // Applied, a one-token throttle would allow no retry at all.
    let (dir, attempts) = temp();
    let file = config_file(
        &dir,
        "retry.toml",
        &format!("{CONSTANT_3_TOML}[budget]\nkind = \"throttle\"\nmax_tokens = 1\n"),
    );
    let (out, _) = run_with_config(&file, &[], &counting(1), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(lines(&attempts), 3, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "warning: {}: budget is ignored: a budget bounds the retries of many operations, and one \
             stagger run is one operation\n",
            file.display()
        )),
        "{stderr}"
    );
    // It is still checked, as the library checks it.
    let file = config_file(&dir, "bad.toml", "[budget]\nkind = \"throttle\"\ntoken_ratio = 0\n");
    let (out, _) = run_with_config(&file, &[], "true", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("bad.toml: budget.token_ratio: invalid token_ratio 0"),
        "{}",
        stderr_text(&out)
    );
}

/// Runs `stagger run --config path -- sh -c ...` with a file that must be
/// refused: exit 2, one error line, and the command never run.
fn refused(path: &Path) -> String {
    let (_dir, attempts) = temp();
    let (out, _) = run_with_config(path, &[], &counting(0), &[&attempts]);
    let stderr = stderr_text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(lines(&attempts), 0, "nothing runs: {stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn a_bad_field_exits_2_naming_the_file_and_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "config.toml",
            "[schedule]\nmultiplier = 0.5\n",
            "schedule.multiplier: invalid multiplier 0.5: must be at least 1",
        ),
        (
            "config.json",
            r#"{"schedule": {"multiplier": 0.5}}"#,
            "schedule.multiplier: invalid multiplier 0.5: must be at least 1",
        ),
        (
            "config.toml",
            "[schedule]\nbase = \"5x\"\n",
            "schedule.base: invalid duration \"5x\": unknown unit 'x'",
        ),
        (
            "config.toml",
            "[limits]\nattempt_timeout = \"0s\"\n",
            "limits.attempt_timeout: invalid attempt_timeout 0s",
        ),
        (
            "config.toml",
            "[limits]\ndeadline = \"0s\"\n",
            "limits.deadline: invalid deadline 0s: must be more than 0",
        ),
        (
            "config.toml",
            "[classification]\nstop_exit_codes = [1, 300]\n",
            "classification.stop_exit_codes[1]: invalid exit code 300: must be between 1 and 255",
        ),
        (
            "config.toml",
            "[classification]\nretry_exit_codes = [3]\nstop_exit_codes = [3]\n",
            "classification.retry_exit_codes[0]: exit code 3 is also in stop_exit_codes",
        ),
    ];
    for (name, text, message) in cases {
        let path = config_file(&dir, name, text);
        let stderr = refused(&path);
        assert!(stderr.starts_with(&format!("error: {}: {message}", path.display())), "{text}: {stderr}");
    }
}

#[test]
fn a_missing_file_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.toml");
    let stderr = refused(&path);
    assert!(stderr.starts_with(&format!("error: {}: No such file or directory", path.display())), "{stderr}");
}

#[test]
fn an_unknown_field_is_rejected_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("retry.toml", "[schedule]\nretries = 3\n", "schedule.retries: unknown field `retries`"),
        ("retry.json", r#"{"schedule": {"retries": 3}}"#, "schedule.retries: unknown field `retries`"),
        ("retry.toml", "[retry]\nmax_attempts = 3\n", "retry: unknown field `retry`"),
        ("retry.conf", "[limits]\ntimeout = \"1s\"\n", "limits.timeout: unknown field `timeout`"),
    ];
    for (name, text, message) in cases {
        let path = config_file(&dir, name, text);
        let stderr = refused(&path);
        assert!(stderr.starts_with(&format!("error: {}: {message}", path.display())), "{text}: {stderr}");
    }
    // Neither TOML nor JSON, and no extension to say which.
    let stderr = refused(&config_file(&dir, "retry.conf", "not a config {"));
    assert!(stderr.contains("retry.conf: neither TOML nor JSON"), "{stderr}");
}

#[test]
fn help_documents_the_config_file() {
    let help = crate::stdout_of(&["run", "--help"]);
    for needle in
        ["--config <FILE>", "options > file > preset > defaults", "[budget]", "one `stagger run` is one"]
    {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}
