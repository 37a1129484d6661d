//! The `stagger` binary, run for real: one integration-test binary, with a
//! module per command.

use std::process::{Command, Output};

/// Runs `stagger` with `args`.
fn stagger(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagger")).args(args).output().expect("stagger runs")
}

/// Runs `stagger` and returns its stdout, failing the test unless it exits 0.
fn stdout_of(args: &[&str]) -> String {
    let out = stagger(args);
    assert!(
        out.status.success(),
        "stagger {args:?} failed with {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs `stagger` with `prefix` then each case's options, and checks that
/// each is refused as a usage error: exit 2, an `error: ` line containing
/// the case's text, and nothing on stdout (nothing ran).
fn refuses_each(prefix: &[&str], cases: &[(&[&str], &str)]) {
    for (options, needle) in cases {
        let mut args = prefix.to_vec();
        args.extend(*options);
        let out = stagger(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing runs on bad options");
    }
}

mod schedule {
    use serde_json::Value;

    use super::{stagger, stdout_of};

    /// The table's retry rows, as whitespace-separated cells.
    fn table_rows(text: &str) -> Vec<Vec<String>> {
        text.lines()
            .skip_while(|line| !line.trim_start().starts_with("retry"))
            .skip(1)
            .take_while(|line| !line.trim().is_empty())
            .map(|line| line.split_whitespace().map(str::to_owned).collect())
            .collect()
    }

    /// The (sample, retry, delay_ms) rows of a CSV output, after checking its header.
    fn csv_rows(text: &str) -> Vec<(usize, usize, f64)> {
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("sample,retry,delay_ms"));
        lines
            .map(|line| {
                let cells: Vec<&str> = line.split(',').collect();
                assert_eq!(cells.len(), 3, "{line}");
                let (whole, fraction) = cells[2].split_once('.').expect("a decimal point");
                assert_eq!(fraction.len(), 3, "three decimals: {line}");
                assert!(whole.bytes().all(|b| b.is_ascii_digit()), "{line}");
                (cells[0].parse().unwrap(), cells[1].parse().unwrap(), cells[2].parse().unwrap())
            })
            .collect()
    }

    fn json_of(args: &[&str]) -> Value {
        let mut all = vec!["schedule", "--format", "json"];
        all.extend_from_slice(args);
        serde_json::from_str(&stdout_of(&all)).expect("valid JSON")
    }

    #[test]
    fn google_table_is_the_java_clients_table() {
        let text = stdout_of(&["schedule", "--preset", "google"]);
        let rows = table_rows(&text);
        // No attempt limit: the first 10 retries.
        assert_eq!(rows.len(), 10, "{text}");
        // google-http-java-client's Javadoc: retry_interval and randomized_interval [0.5x, 1.5x], in
        // whole-millisecond intervals (the Java client truncates to ms:
        // 1.687s, not 1.6875s), to four significant digits (the JSON keeps
        // every one: see the golden schedule-google.json).
        let expected = [
            ["1", "500ms", "250ms", "500ms", "750ms"],
            ["2", "750ms", "375ms", "750ms", "1.125s"],
            ["3", "1.125s", "562.5ms", "1.125s", "1.688s"],
            ["4", "1.687s", "843.5ms", "1.687s", "2.531s"],
            ["5", "2.53s", "1.265s", "2.53s", "3.795s"],
            ["6", "3.795s", "1.898s", "3.795s", "5.693s"],
            ["7", "5.692s", "2.846s", "5.692s", "8.538s"],
            ["8", "8.538s", "4.269s", "8.538s", "12.81s"],
            ["9", "12.81s", "6.404s", "12.81s", "19.21s"],
            ["10", "19.21s", "9.605s", "19.21s", "28.82s"],
        ];
        for (row, want) in rows.iter().zip(expected) {
            assert_eq!(row, &want, "{text}");
        }
        assert!(text.contains("no limit (showing the first 10 retries"), "{text}");
        assert!(text.contains("deadline      15m"), "{text}");
        assert!(text.contains("Worst-case total wait over the 10 retries shown"), "{text}");
    }

    #[test]
    fn attempts_override_the_preset_and_the_10_row_default() {
        let rows = table_rows(&stdout_of(&["schedule", "--preset", "google", "--attempts", "13"]));
        assert_eq!(rows.len(), 12);
        assert_eq!(rows[11][1], "43.22s", "interval x(12), to four significant digits");
        let json = json_of(&["--preset", "google", "--attempts", "13"]);
        assert_eq!(json["retries"][11]["interval_ms"], 43222.0, "whole milliseconds");
    }

    #[test]
    fn csv_has_one_row_per_sampled_delay() {
        let text =
            stdout_of(&["schedule", "--samples", "3", "--attempts", "5", "--format", "csv", "--seed", "1"]);
        let rows = csv_rows(&text);
        assert_eq!(rows.len(), 12, "{text}");
        let numbering: Vec<(usize, usize)> = rows.iter().map(|&(s, r, _)| (s, r)).collect();
        let expected: Vec<(usize, usize)> = (1..=3).flat_map(|s| (1..=4).map(move |r| (s, r))).collect();
        assert_eq!(numbering, expected);
    }

    #[test]
    fn csv_without_samples_draws_one_sequence() {
        let rows = csv_rows(&stdout_of(&["schedule", "--preset", "aws", "--format", "csv"]));
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn sampled_delays_stay_within_the_table_bounds() {
        let presets =
            ["interactive", "standard", "batch", "aws", "grpc", "google"].map(|p| vec!["--preset", p]);
        let strategies = [
            "constant",
            "exponential",
            "full",
            "equal",
            "decorrelated",
            "proportional",
            "additive",
            "smooth",
        ]
        .map(|s| vec!["--strategy", s, "--base", "100ms", "--cap", "5s", "--attempts", "9"]);
        let mut interval_cap = vec!["--preset", "standard", "--cap-mode", "interval", "--attempts", "8"];
        interval_cap.extend(["--cap", "4s"]);
        for schedule in presets.into_iter().chain(strategies).chain([interval_cap]) {
            let mut args = vec!["--samples", "200", "--seed", "7"];
            args.extend(&schedule);
            let json = json_of(&args);
            let bounds: Vec<(f64, f64)> = json["retries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["min_ms"].as_f64().unwrap(), r["max_ms"].as_f64().unwrap()))
                .collect();
            assert!(!bounds.is_empty(), "{schedule:?}");
            let mut csv_args = vec!["schedule", "--format", "csv"];
            csv_args.extend(&args);
            let rows = csv_rows(&stdout_of(&csv_args));
            assert_eq!(rows.len(), 200 * bounds.len(), "{schedule:?}");
            for (sample, retry, delay) in rows {
                let (min, max) = bounds[retry - 1];
                // CSV rounds to the microsecond.
                assert!(
                    min - 0.0005 <= delay && delay <= max + 0.0005,
                    "{schedule:?}: sample {sample} retry {retry}: {delay} outside [{min}, {max}]"
                );
            }
        }
    }

    #[test]
    fn same_seed_same_output_and_seeds_differ() {
        for format in ["csv", "table", "json", "markdown"] {
            let run = |seed: &str| {
                stdout_of(&[
                    "schedule",
                    "--strategy",
                    "equal",
                    "--samples",
                    "5",
                    "--seed",
                    seed,
                    "--format",
                    format,
                ])
            };
            assert_eq!(run("42"), run("42"), "{format}");
            assert_ne!(run("42"), run("43"), "{format}");
        }
    }

    #[test]
    fn seeded_csv_is_the_same_on_every_machine() {
        // Sequence i draws from wyrand seeded with the i-th value of
        // FastRng::seed(--seed): integer arithmetic only, so these exact
        // numbers come out everywhere, and a change to the stream shows here.
        let text = stdout_of(&["schedule", "--preset", "aws", "--format", "csv", "--seed", "1"]);
        assert_eq!(text, "sample,retry,delay_ms\n1,1,149.664\n1,2,484.126\n");
    }

    #[test]
    fn json_has_parameters_rows_and_samples() {
        let json = json_of(&["--preset", "grpc", "--samples", "4", "--seed", "3"]);
        assert_eq!(json["strategy"], "proportional");
        assert_eq!(json["preset"], "grpc");
        assert_eq!(json["base_ms"], 1000.0);
        assert_eq!(json["multiplier"], 1.6);
        assert_eq!(json["max_delay_ms"], 120_000.0);
        assert_eq!(json["factor"], 0.2);
        assert_eq!(json["cap_mode"], "delay");
        assert_eq!(json["max_attempts"], 5);
        let retries = json["retries"].as_array().unwrap();
        assert_eq!(retries.len(), 4);
        for (i, retry) in retries.iter().enumerate() {
            assert_eq!(retry["retry"], i + 1);
            for key in
                ["interval_ms", "min_ms", "median_ms", "max_ms", "p50_ms", "p90_ms", "p99_ms", "mean_ms"]
            {
                assert!(retry[key].is_f64(), "{key} in {retry}");
            }
        }
        assert_eq!(retries[1]["interval_ms"], 1600.0);
        let samples = json["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 4);
        assert!(samples.iter().all(|s| s.as_array().unwrap().len() == 4));
        let without = json_of(&["--preset", "grpc"]);
        assert!(without.get("samples").is_none());
    }

    #[test]
    fn markdown_is_a_table() {
        let text = stdout_of(&["schedule", "--preset", "google", "--format", "markdown"]);
        assert!(
            text.contains("| retry | interval | min | median | max |\n|---:|---:|---:|---:|---:|\n"),
            "{text}"
        );
        assert!(text.contains("| 4 | 1.687s | 843.5ms | 1.687s | 2.531s |"), "{text}");
    }

    #[test]
    fn estimated_medians_are_marked() {
        let text = stdout_of(&["schedule", "--strategy", "decorrelated", "--base", "100ms"]);
        let rows = table_rows(&text);
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|row| row[3].starts_with('≈')), "{text}");
        assert!(text.contains("≈ median estimated"), "{text}");
        assert_eq!(text, stdout_of(&["schedule", "--strategy", "decorrelated", "--base", "100ms"]));
    }

    #[test]
    fn bad_options_exit_2_naming_the_option() {
        let cases: [(&[&str], &str); 12] = [
            (
                &["--multiplier", "0.5"],
                "invalid value for --multiplier: invalid multiplier 0.5: must be at least 1",
            ),
            (&["--factor", "2"], "invalid value for --factor"),
            (&["--factor", "NaN"], "invalid value for --factor"),
            (&["--base", "1x"], "--base"),
            (&["--base", "-1s"], "--base"),
            (&["--base", "99999999999999999999999h"], "--base"),
            (&["--cap", "1ms", "--base", "1s"], "invalid value for --cap"),
            (&["--attempts", "0"], "invalid value for --attempts"),
            (&["--attempts", "4294967296"], "--attempts"),
            (&["--strategy", "nope"], "--strategy"),
            (&["--samples", "0"], "--samples"),
            (&["--samples", "1000000", "--attempts", "100"], "invalid value for --samples"),
        ];
        for (options, needle) in cases {
            let mut args = vec!["schedule"];
            args.extend(options);
            let out = stagger(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{options:?}: {stderr}");
            assert!(stderr.contains(needle), "{options:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{options:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{options:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{options:?}: nothing runs on bad options");
        }
    }

    #[test]
    fn huge_attempts_are_cut_with_a_note() {
        let text = stdout_of(&["schedule", "--attempts", "4294967295"]);
        assert_eq!(table_rows(&text).len(), 1000);
        assert!(text.contains("Showing the first 1000 of 4294967294 retries"), "{text}");
        assert!(text.contains("Worst-case total wait: at most "), "{text}");
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let cases: [&[&str]; 5] = [
            &["--base", "0", "--strategy", "smooth", "--samples", "3"],
            &["--base", "5124095576030431h", "--cap", "5124095576030431h", "--samples", "2"],
            &["--multiplier", "1e308", "--attempts", "200", "--format", "json"],
            &["--strategy", "smooth", "--cap", "1000000h", "--attempts", "1000", "--format", "csv"],
            &["--attempts", "1", "--samples", "2", "--format", "markdown"],
        ];
        for options in cases {
            let mut args = vec!["schedule"];
            args.extend(options);
            stdout_of(&args);
        }
    }

    #[test]
    fn help_and_version_exit_0() {
        assert!(stdout_of(&["schedule", "--help"]).contains("--attempts <N>"));
        assert!(stdout_of(&["--version"]).starts_with("stagger "));
        assert_eq!(stagger(&[]).status.code(), Some(2), "a command is required");
    }
}

#[path = "cli/docs.rs"]
mod docs;
#[path = "cli/golden.rs"]
mod golden;
#[path = "cli/install.rs"]
mod install;
#[cfg(unix)]
#[path = "cli/output.rs"]
mod output;
#[cfg(unix)]
#[path = "cli/run.rs"]
mod run;
#[path = "cli/schedule_plot.rs"]
mod schedule_plot;
#[path = "cli/simulate.rs"]
mod simulate;
#[path = "cli/simulate_config.rs"]
mod simulate_config;
#[path = "cli/simulate_frontier.rs"]
mod simulate_frontier;
