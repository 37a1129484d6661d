//! `stagger simulate`, run for real on small grids (two client counts, five
//! runs) so that each test takes a fraction of a second in debug; the full
//! published grid takes seconds in release and is left to the README. The
//! overload scenario's default run takes about 0.25 s in debug, so its tests
//! run it as is.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use staggered_sim::Scenario;

use super::{refuses_each, stagger, stdout_of};

/// The published strategies, in the 2015 experiment's order.
const PUBLISHED: [&str; 5] = ["none", "exponential", "equal", "full", "decorrelated"];

/// `stagger simulate` on the small grid, with `extra` options.
fn small(extra: &[&str]) -> String {
    let mut args = vec!["simulate", "--clients", "10,20", "--runs", "5"];
    args.extend_from_slice(extra);
    stdout_of(&args)
}

/// The reading under the table's last grid, its wrapped lines joined again.
fn reading_of(table: &str) -> String {
    let paragraphs: Vec<&str> = table.trim_end().split("\n\n").collect();
    let reading = paragraphs.iter().skip_while(|p| !p.starts_with("N = ")).copied();
    reading.collect::<Vec<_>>().join(" ").replace('\n', " ")
}

/// A path in the temporary directory, unique to this process and `name`.
fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("stagger-simulate-{}-{name}", std::process::id()))
}

#[test]
fn same_seed_same_output_and_seeds_differ() {
    for format in ["table", "csv", "json", "markdown"] {
        let run = |seed: &str| small(&["--seed", seed, "--format", format]);
        let first = run("7");
        assert_eq!(first, run("7"), "{format}");
        assert_ne!(first, run("8"), "{format}");
    }
    assert_eq!(small(&[]), small(&["--seed", "2015"]), "the default seed is 2015");
}

#[test]
fn seeded_csv_is_the_same_on_every_machine() {
    // The simulator seeds each run from (seed, clients, strategy, run) and
    // combines runs in order; these exact digits come out on any machine and
    // any number of cores, and a change to the model or its streams shows here.
    let text = stdout_of(&[
        "simulate",
        "--clients",
        "3",
        "--runs",
        "2",
        "--strategies",
        "full,none",
        "--format",
        "csv",
    ]);
    assert_eq!(
        text,
        "clients,strategy,runs,mean_calls,sd_calls,min_calls,max_calls,mean_time,sd_time,min_time,max_time\n\
         3,full,2,6,0,6,6,140.62077085633473,19.796988086546413,126.62218633326846,154.619355379401\n\
         3,none,2,6,0,6,6,125.11786660870368,5.178193107328795,121.45633114821804,128.7794020691893\n"
    );
}

#[test]
fn json_has_an_object_per_client_count_and_strategy() {
    let json: Value = serde_json::from_str(&small(&["--format", "json"])).expect("valid JSON");
    let objects = json.as_array().expect("an array");
    assert_eq!(objects.len(), 2 * 5);
    let order: Vec<(u64, &str)> =
        objects.iter().map(|o| (o["clients"].as_u64().unwrap(), o["strategy"].as_str().unwrap())).collect();
    let expected: Vec<(u64, &str)> = [10, 20].into_iter().flat_map(|n| PUBLISHED.map(|s| (n, s))).collect();
    assert_eq!(order, expected, "client counts major, strategies in the order given");
    for object in objects {
        assert_eq!(object["runs"], 5, "{object}");
        for measure in ["calls", "time"] {
            let stat = |s: &str| {
                object[format!("{s}_{measure}")].as_f64().unwrap_or_else(|| panic!("{s}_{measure}"))
            };
            assert!(stat("min") <= stat("mean") && stat("mean") <= stat("max"), "{object}");
            assert!(stat("sd") >= 0.0, "{object}");
        }
        // Every client's write succeeds once, so a run makes at least N calls.
        assert!(object["min_calls"].as_f64().unwrap() >= object["clients"].as_f64().unwrap(), "{object}");
        assert_eq!(object.as_object().unwrap().len(), 3 + 2 * 4, "{object}");
    }
}

#[test]
fn csv_has_a_header_and_a_row_per_point_matching_json() {
    let text = small(&["--format", "csv"]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("clients,strategy,runs,mean_calls,sd_calls,min_calls,max_calls,mean_time,sd_time,min_time,max_time")
    );
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    assert_eq!(rows.len(), 10);
    let json_text = small(&["--format", "json"]);
    let json: Value = serde_json::from_str(&json_text).unwrap();
    for (row, object) in rows.iter().zip(json.as_array().unwrap()) {
        assert_eq!(row.len(), 11, "{row:?}");
        assert_eq!(row[0], object["clients"].to_string());
        assert_eq!(format!("\"{}\"", row[1]), object["strategy"].to_string());
        // serde_json's default parser may miss the last bit; the text has every digit.
        let mean_time: f64 = row[7].parse().unwrap();
        assert!((mean_time / object["mean_time"].as_f64().unwrap() - 1.0).abs() < 1e-15, "{row:?}");
        assert!(json_text.contains(&format!("\"mean_time\": {}", row[7])), "{row:?}");
    }
}

#[test]
fn markdown_has_a_table_per_measure() {
    let text = small(&["--format", "markdown"]);
    let header =
        "| clients | none | exponential | equal | full | decorrelated |\n|---:|---:|---:|---:|---:|---:|\n";
    assert_eq!(text.matches(header).count(), 2, "{text}");
    assert!(text.contains("**Mean calls per run over 5 runs**"), "{text}");
    assert!(text.contains("**Mean completion time in time units over 5 runs**"), "{text}");
    assert!(text.starts_with("- **scenario**: contention"), "{text}");
    assert_eq!(
        text.lines().filter(|line| line.starts_with("| 10 | ") || line.starts_with("| 20 | ")).count(),
        4
    );
}

#[test]
fn table_shows_both_measures_in_time_units_and_a_reading() {
    let text = small(&[]);
    assert!(text.contains(
        "\nMean calls per run over 5 runs:\nclients  none  exponential  equal  full  decorrelated\n"
    ));
    assert!(text.contains("\nMean completion time in time units over 5 runs:\n"), "{text}");
    assert!(text.contains("time units are the model's own, not ms"), "{text}");
    let reading = reading_of(&text);
    assert!(reading.starts_with("N = 20: "), "the reading is at the largest count: {text}");
    assert!(reading.contains(". Among the strategies that back off: N = 20: "), "{text}");
    assert!(text.lines().all(|line| line.chars().count() <= 100), "lines are wrapped: {text}");
}

#[test]
fn the_reading_names_full_for_work_and_decorrelated_for_time() {
    // As the simulator's own tests: at N = 100, full jitter does the least
    // work; none finishes first at three times the calls, and among the
    // strategies that back off, decorrelated does.
    let text = stdout_of(&["simulate", "--clients", "100", "--runs", "20"]);
    let reading = reading_of(&text);
    let (all, backing_off) =
        reading.split_once(" Among the strategies that back off: ").expect("two readings");
    assert!(all.starts_with("N = 100: full did the least work, "), "{text}");
    assert!(all.contains(". none finished first, after "), "{text}");
    assert!(backing_off.starts_with("N = 100: full did the least work, "), "{text}");
    assert!(backing_off.contains(". decorrelated finished first, after "), "{text}");
}

#[test]
fn plot_writes_an_svg_with_two_panels_and_a_line_per_strategy() {
    let path = temp_path("chart.svg");
    let text = small(&["--plot", path.to_str().unwrap()]);
    assert!(text.contains("Mean calls per run"), "the table is still printed");
    let svg = fs::read_to_string(&path).expect("the chart was written");
    fs::remove_file(&path).ok();
    assert!(!temp_path("chart.svg.tmp").exists(), "written through a temporary file, then renamed");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(100)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    for title in ["Calls vs clients", "Completion time vs clients", "clients (N)", "(log scale)"] {
        assert!(svg.contains(title), "{title} missing");
    }
    // Series are drawn 2 px wide (axes and grid 1 px): in each of the two
    // panels, a line and a legend sample per strategy, each in its own color.
    let series: Vec<&str> = svg
        .lines()
        .filter(|line| line.starts_with("<polyline") && line.contains("stroke-width=\"2\""))
        .collect();
    assert_eq!(series.len(), 2 * 2 * PUBLISHED.len());
    let colors: BTreeSet<&str> =
        series.iter().filter_map(|line| line.split("stroke=\"").nth(1)?.split('"').next()).collect();
    assert_eq!(colors.len(), PUBLISHED.len(), "{colors:?}");
    for name in PUBLISHED {
        assert_eq!(svg.matches(&format!(">\n{name}\n</text>")).count(), 2, "{name} in both legends");
    }
    assert_eq!(svg.matches("<circle").count(), 2 * 2 * PUBLISHED.len(), "a marker per point per panel");
}

#[test]
#[cfg(target_os = "linux")]
fn an_unwritable_chart_is_refused_before_the_work_with_2() {
    // The directory exists, but not even root may create a file in it.
    let out = stagger(&["simulate", "--clients", "5", "--runs", "1", "--plot", "/proc/stagger-chart.svg"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: invalid value for --plot: cannot write /proc/stagger-chart.svg: "),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing was simulated");
}

#[test]
fn bad_options_exit_2_naming_the_option() {
    let cases: [(&[&str], &str); 17] = [
        (&["--clients", "0"], "'0' for '--clients <LIST>': client count 0 is not between 1 and 100000"),
        (&["--clients", "10..5/1"], "'--clients <LIST>': range 10..5/1 counts down"),
        (&["--clients", "10..190/0"], "'--clients <LIST>': range 10..190/0 has step 0"),
        (&["--clients", "ten"], "'--clients <LIST>': \"ten\" is not a count or a range"),
        (&["--clients", "100001"], "'--clients <LIST>': client count 100001"),
        (&["--clients", "10,10"], "invalid value for --clients"),
        (&["--runs", "0"], "invalid value for --runs: invalid runs 0: must be at least 1"),
        (
            &["--runs", "1000000"],
            "invalid value for --runs: invalid runs, clients and strategies: 95000000 runs",
        ),
        (&["--strategies", "nope"], "'--strategies <LIST>': unknown strategy \"nope\""),
        (&["--base", "-1"], "'--base <UNITS>': -1 is not a positive number of time units"),
        (&["--base", "5ms"], "'--base <UNITS>': \"5ms\" is not a number: contention counts"),
        (
            &["--cap", "1", "--base", "5"],
            "invalid value for --cap: invalid cap 1: below exponential's first delay, 10",
        ),
        (
            &["--cap", "8"],
            "invalid value for --cap: invalid cap 8: below exponential's first delay, 10 time units",
        ),
        (&["--seed", "-1"], "'--seed <S>'"),
        (&["--scenario", "nope"], "'--scenario <NAME>'"),
        (&["--plot", "chart.png"], "invalid value for --plot: chart.png does not end in .svg"),
        (
            &["--plot", "no/such/dir/chart.svg"],
            "invalid value for --plot: the directory no/such/dir does not exist",
        ),
    ];
    refuses_each(&["simulate"], &cases);
}

/// Every scenario bounds the work it could do at worst by one rule, before
/// it runs anything: options under which a run could go on for hours or
/// without end (with `--timeout 1ns`, each of 100,000 operations makes all
/// of 2^32 - 1 attempts) are refused naming the option, even where this
/// run's attempts would mostly succeed (hedging's light load).
#[test]
fn every_scenario_refuses_work_without_bound() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--scenario", "contention", "--clients", "100000", "--runs", "10"],
            "invalid value for --runs: invalid runs, clients and strategies: 5.000e11 calls at worst",
        ),
        (
            &["--scenario", "overload", "--attempts", "4294967295", "--timeout", "1ns"],
            "invalid value for --attempts: invalid attempts, arrival-rate and duration: 1.804e14 attempts at worst",
        ),
        (
            &["--scenario", "throttling", "--attempts", "4294967295", "--timeout", "1ms"],
            "invalid value for --attempts: invalid attempts, arrival-rate and duration: 2.577e14 attempts at worst",
        ),
        (
            &["--scenario", "frontier", "--clients", "100000", "--runs", "10"],
            "invalid value for --runs: invalid runs, clients and families: 7.600e12 calls at worst",
        ),
        (
            &["--scenario", "hedging", "--loads", "0.1", "--policies", "retry", "--attempts", "4294967295"],
            "invalid value for --attempts: invalid attempts and operations: 4.295e14 attempts at worst",
        ),
    ];
    let scenarios: Vec<&str> = cases.iter().map(|(options, _)| options[1]).collect();
    assert_eq!(scenarios, Scenario::ALL.map(Scenario::name), "a case per scenario, in their order");
    refuses_each(&["simulate"], &cases);
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let out = stagger(&["simulate", "--clients", "10", "--runs", "3"]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn help_documents_lists_and_time_units() {
    let help = stdout_of(&["simulate", "--help"]);
    for needle in ["--clients <LIST|N>", "10..190/10", "--plot <FILE.svg>", "time units", "- contention: "] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    assert!(stdout_of(&["--help"]).contains("simulate"));
}

/// `stagger simulate --scenario overload`.
mod overload {
    use std::fs;

    use serde_json::Value;

    use super::{refuses_each, stagger, stdout_of, temp_path};

    /// The policies, in the order of the output.
    const POLICIES: [&str; 5] = ["no-retry", "retry", "retry+token-bucket", "retry+ratio", "retry+throttle"];

    /// The bound on amplification after the trigger under a budget.
    const BOUND: f64 = 1.25;

    /// `stagger simulate --scenario overload` with `extra` options.
    fn overload(extra: &[&str]) -> String {
        let mut args = vec!["simulate", "--scenario", "overload"];
        args.extend_from_slice(extra);
        stdout_of(&args)
    }

    /// The JSON output's objects, one per policy.
    fn json(extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let json: Value = serde_json::from_str(&overload(&args)).expect("valid JSON");
        json.as_array().expect("an array").clone()
    }

    fn number(object: &Value, key: &str) -> f64 {
        object[key].as_f64().unwrap_or_else(|| panic!("{key} is a number in {object}"))
    }

    #[test]
    fn json_has_an_object_per_policy_with_the_issue_fields() {
        let objects = json(&[]);
        let policies: Vec<&str> = objects.iter().map(|o| o["policy"].as_str().unwrap()).collect();
        assert_eq!(policies, POLICIES);
        for object in &objects {
            assert!(object["recovered"].is_boolean(), "{object}");
            assert!(object["recovery_time"].is_f64() || object["recovery_time"].is_null(), "{object}");
            assert_eq!(object["recovered"].as_bool(), Some(object["recovery_time"].is_f64()), "{object}");
            for key in ["amplification_trigger", "amplification_after", "amplification"] {
                assert!(number(object, key) >= 1.0, "{key}: {object}");
            }
            let goodput = number(object, "goodput");
            assert!((0.0..=1.0).contains(&goodput), "{object}");
            let (operations, succeeded) = (number(object, "operations"), number(object, "succeeded"));
            assert_eq!(
                goodput,
                succeeded / operations,
                "goodput is the share of first attempts that succeeded"
            );
            assert!(object["refused"].is_u64(), "{object}");
            assert!(object.get("amplification_drained").is_some(), "{object}");
        }
        let (no_retry, retry) = (&objects[0], &objects[1]);
        assert_eq!((no_retry["recovered"].as_bool(), number(no_retry, "amplification")), (Some(true), 1.0));
        // A metastable failure: every operation makes all 3 attempts after the trigger.
        assert_eq!(retry["recovered"], false);
        assert_eq!(retry["recovery_time"], Value::Null);
        assert!(number(retry, "amplification_after") > 2.9, "{retry}");
        for budgeted in &objects[2..] {
            assert_eq!(budgeted["recovered"], true, "{budgeted}");
            assert!(number(budgeted, "recovery_time") >= 0.0, "{budgeted}");
            assert!(number(budgeted, "amplification_after") <= BOUND, "{budgeted}");
            assert!(number(budgeted, "amplification_drained") <= BOUND, "{budgeted}");
            assert!(number(budgeted, "refused") > 0.0, "{budgeted}");
            assert!(number(budgeted, "drained_at") >= 10.0, "drained during the trigger: {budgeted}");
        }
    }

    #[test]
    fn the_table_has_a_row_per_policy_and_reads_the_result() {
        let text = overload(&[]);
        assert!(text.starts_with("scenario "), "{text}");
        assert!(text.contains("trigger         capacity 0.5x (500/s) from 10s to 15s\n"), "{text}");
        let header =
            text.lines().position(|line| line.trim_start().starts_with("policy  goodput")).expect("grid");
        let rows: Vec<&str> = text.lines().skip(header + 1).take_while(|line| !line.is_empty()).collect();
        let names: Vec<&str> = rows.iter().map(|row| row.split_whitespace().next().unwrap()).collect();
        assert_eq!(names, POLICIES, "{text}");
        assert!(rows[1].contains(" never "), "{text}");
        let reading = text.split("\n\n").skip(2).collect::<Vec<_>>().join(" ").replace('\n', " ");
        assert!(
            reading.starts_with("retry without a budget never recovered: a metastable failure."),
            "{text}"
        );
        assert!(reading.contains("(2100/s for a capacity of 1000/s)"), "{text}");
        assert!(reading.contains("Every budget recovered, within "), "{text}");
        assert!(text.lines().all(|line| line.chars().count() <= 100), "lines are wrapped: {text}");
    }

    #[test]
    fn same_seed_same_output_and_seeds_differ() {
        let short = ["--duration", "20s", "--trigger", "5s..10s"];
        for format in ["table", "csv", "json", "markdown"] {
            let run = |seed: &str| {
                let mut args = vec!["--seed", seed, "--format", format];
                args.extend(short);
                overload(&args)
            };
            let first = run("7");
            assert_eq!(first, run("7"), "{format}");
            assert_ne!(first, run("8"), "{format}");
        }
        let mut seeded = short.to_vec();
        seeded.extend(["--seed", "2015"]);
        assert_eq!(overload(&short), overload(&seeded), "the default seed is 2015");
    }

    #[test]
    fn seeded_csv_is_the_same_on_every_machine() {
        // Arrivals and service draw from (seed, stream), jitter from (seed,
        // policy, operation): these digits come out on any machine and any
        // number of cores, and a change to the model or its streams shows here.
        let text = overload(&[
            "--duration",
            "3s",
            "--trigger",
            "1s..2s",
            "--policies",
            "retry,retry+throttle",
            "--format",
            "csv",
        ]);
        assert_eq!(
            text,
            "policy,recovered,recovery_time,amplification_trigger,amplification_after,goodput,\
             amplification_drained,peak_amplification_drained,amplification,drained_at,operations,attempts,\
             succeeded,timed_out,refused\n\
             retry,false,,1.9652173913043478,3.0291970802919708,0.4337921214997627,,,2.1324157570004747,,2107,\
             4493,914,3579,0\n\
             retry+throttle,false,,1.0057971014492753,1,0.639297579496915,1,1,1.0018984337921215,1.379403479,\
             2107,2111,1347,764,760\n"
        );
    }

    #[test]
    fn csv_has_a_header_and_a_row_per_policy_matching_json() {
        let text = overload(&["--format", "csv"]);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(
            header[..6],
            [
                "policy",
                "recovered",
                "recovery_time",
                "amplification_trigger",
                "amplification_after",
                "goodput"
            ]
        );
        let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
        assert_eq!(rows.len(), POLICIES.len());
        let objects = json(&[]);
        for (row, object) in rows.iter().zip(&objects) {
            assert_eq!(row.len(), header.len(), "{row:?}");
            assert_eq!(object.as_object().unwrap().len(), header.len(), "the same fields: {object}");
            for (key, cell) in header.iter().zip(row) {
                let value = &object[*key];
                match value {
                    Value::Null => assert_eq!(*cell, "", "{key}"),
                    Value::String(s) => assert_eq!(cell, s, "{key}"),
                    Value::Bool(b) => assert_eq!(*cell, b.to_string(), "{key}"),
                    Value::Number(n) => {
                        let (cell, n): (f64, f64) = (cell.parse().unwrap(), n.as_f64().unwrap());
                        assert!((cell - n).abs() <= 1e-15 * n.abs(), "{key}: {cell} vs {n}");
                    }
                    other => panic!("{key}: {other}"),
                }
            }
        }
    }

    #[test]
    fn markdown_is_the_table() {
        let text = overload(&["--format", "markdown"]);
        assert!(text.starts_with("- **scenario**: overload"), "{text}");
        assert!(text.contains(
            "| policy | goodput | recovery | trigger | after | drained | peak | overall | refused |\n"
        ));
        assert_eq!(text.lines().filter(|line| line.starts_with("| retry")).count(), 4, "{text}");
    }

    #[test]
    fn without_a_trigger_the_budgets_cost_nothing() {
        let objects = json(&["--trigger", "none", "--error-rate", "0.01"]);
        let retry = &objects[1];
        for object in &objects {
            assert_eq!(object["amplification_trigger"], Value::Null, "{object}");
            assert_eq!(object["amplification_after"], Value::Null, "{object}");
        }
        assert!(number(&objects[0], "goodput") < 0.995, "1% of first attempts fail without retries");
        for budgeted in &objects[2..] {
            assert_eq!(budgeted["refused"], 0, "{budgeted}");
            assert_eq!(budgeted["goodput"], retry["goodput"], "{budgeted}");
            assert_eq!(budgeted["amplification"], retry["amplification"], "{budgeted}");
        }
        let text = overload(&["--trigger", "none", "--error-rate", "1%"]);
        assert!(text.replace('\n', " ").contains("Without a trigger the budgets cost nothing"), "{text}");
    }

    #[test]
    fn plot_writes_a_panel_per_policy() {
        let path = temp_path("overload.svg");
        let text = overload(&["--plot", path.to_str().unwrap()]);
        assert!(text.contains("policy  goodput"), "the table is still printed");
        let svg = fs::read_to_string(&path).expect("the chart was written");
        fs::remove_file(&path).ok();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        for title in [
            "no-retry: goodput 86.33%, recovered 4s after the trigger",
            "retry: goodput 16.86%, never recovered",
            "retry+ratio: goodput 70.10%, recovered 14s after the trigger",
            "offered load",
            "server arrivals",
            "goodput",
            "capacity",
            "trigger",
            "seconds since the run began",
        ] {
            assert!(svg.contains(&format!(">\n{title}\n</text>")), "{title} missing");
        }
        for policy in POLICIES {
            assert!(svg.contains(&format!(">\n{policy}: goodput ")), "{policy}'s panel");
        }
    }

    #[test]
    fn budget_options_without_their_policy_warn() {
        let out =
            stagger(&["simulate", "--scenario", "overload", "--policies", "retry", "--bucket-capacity", "9"]);
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr,
            "warning: --bucket-capacity has no effect: retry+token-bucket is not among the policies\n"
        );
    }

    #[test]
    fn bad_options_exit_2_naming_them() {
        let cases: [(&[&str], &str); 14] = [
            (&["--arrival-rate", "0"], "'--arrival-rate <R>': the rate must be above 0"),
            (&["--error-rate", "2"], "'--error-rate <F|P%>': must be between 0 and 1"),
            (
                &["--trigger", "15s..10s"],
                "'--trigger <START..END|none>': the trigger must start before it ends",
            ),
            (&["--policies", "nope"], "'--policies <LIST>': unknown policy \"nope\""),
            (
                &["--policies", "retry,retry"],
                "invalid value for --policies: invalid policies: retry is given twice",
            ),
            (
                &["--trigger", "50s..70s"],
                "invalid value for --trigger: invalid trigger 50s..1m10s: ends after the run's duration, 1m",
            ),
            (
                &["--duration", "12s"],
                "invalid value for --duration: invalid trigger 10s..15s: ends after the run's duration, 12s",
            ),
            (&["--base", "5"], "'--base <DUR>': missing unit after 5"),
            (&["--cap", "10ms"], "invalid value for --cap: "),
            (&["--trigger-capacity", "0x"], "'--trigger-capacity <R|Fx|P%>': the capacity must be above 0"),
            (&["--ratio-ttl", "2m"], "invalid value for --ratio-ttl: invalid budget for retry+ratio: "),
            (
                &["--clients", "10"],
                "--clients is an option of --scenario contention, throttling and frontier; it does not apply to --scenario overload",
            ),
            (
                &["--runs", "5"],
                "--runs is an option of --scenario contention and frontier; it does not apply to --scenario overload",
            ),
            (&["--plot", "chart.png"], "invalid value for --plot: chart.png does not end in .svg"),
        ];
        let contention: [(&[&str], &str); 3] = [
            (&["--arrival-rate", "700"], "--arrival-rate is an option of --scenario overload and throttling; it does not apply to --scenario contention"),
            (&["--policies", "retry"], "--policies is an option of --scenario overload"),
            (&["--scenario", "contention", "--bucket-refund", "2"], "--bucket-refund is an option of --scenario overload"),
        ];
        refuses_each(&["simulate", "--scenario", "overload"], &cases);
        refuses_each(&["simulate"], &contention);
    }
}

/// `stagger simulate --scenario throttling`, on a small fleet (5 clients
/// offering 200/s against 100/s for 20 s) so that each run takes a fraction
/// of a second in debug.
mod throttling {
    use std::fs;

    use serde_json::Value;

    use super::{refuses_each, stagger, stdout_of, temp_path};

    /// The policies, in the order of the output.
    const POLICIES: [&str; 5] = ["no-retry", "retry", "retry+token-bucket", "adaptive", "adaptive-tracking"];

    /// The small fleet's options.
    const SMALL: [&str; 8] =
        ["--clients", "5", "--arrival-rate", "200/s", "--rate-limit", "100", "--duration", "20s"];

    /// `stagger simulate --scenario throttling` on the small fleet, with `extra` options.
    fn throttling(extra: &[&str]) -> String {
        let mut args = vec!["simulate", "--scenario", "throttling"];
        args.extend_from_slice(&SMALL);
        args.extend_from_slice(extra);
        stdout_of(&args)
    }

    fn json(extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let json: Value = serde_json::from_str(&throttling(&args)).expect("valid JSON");
        json.as_array().expect("an array").clone()
    }

    fn number(object: &Value, key: &str) -> f64 {
        object[key].as_f64().unwrap_or_else(|| panic!("{key} is a number in {object}"))
    }

    #[test]
    fn json_has_an_object_per_policy_with_the_measures() {
        let objects = json(&[]);
        let policies: Vec<&str> = objects.iter().map(|o| o["policy"].as_str().unwrap()).collect();
        assert_eq!(policies, POLICIES);
        for object in &objects {
            for key in [
                "throttled_fraction",
                "goodput",
                "attempts_per_operation",
                "wait_p50",
                "wait_p99",
                "send_rate",
            ] {
                assert!(number(object, key) >= 0.0, "{key} in {object}");
            }
        }
        let (retry, adaptive) = (&objects[1], &objects[3]);
        assert!(number(adaptive, "throttled_fraction") <= number(retry, "throttled_fraction") / 2.0);
        assert!(number(adaptive, "goodput") >= number(retry, "goodput") - 0.02);
        assert!((number(adaptive, "send_rate") / 100.0 - 1.0).abs() <= 0.25, "{adaptive}");
        let csv = throttling(&["--format", "csv"]);
        assert!(csv.starts_with(
            "policy,throttled_fraction,goodput,attempts_per_operation,wait_p50,wait_p99,send_rate,operations,"
        ));
        assert_eq!(csv.lines().count(), 6);
    }

    #[test]
    fn the_table_reads_the_figures_and_markdown_has_the_parameters() {
        let text = throttling(&[]);
        assert!(
            text.starts_with("scenario     throttling: clients offer more than a rate-limited server admits")
        );
        assert!(text.contains("load         5 clients offering 200 operations/s in all"), "{text}");
        let prose = text.replace('\n', " ");
        assert!(prose.contains("The server admits 100/s; the clients offered 200/s."), "{text}");
        assert!(prose.contains("adaptive throttled "), "{text}");
        let markdown = throttling(&["--format", "markdown"]);
        assert!(markdown.starts_with("- **scenario**: throttling"), "{markdown}");
        // Twice the offered load as the limit: nothing throttled, one result.
        let out = stagger(&[
            "simulate",
            "--scenario",
            "throttling",
            "--clients",
            "5",
            "--arrival-rate",
            "200",
            "--rate-limit",
            "400",
            "--duration",
            "20s",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
        assert!(
            text.contains("Nothing was throttled") && text.contains("every policy gave the same results")
        );
    }

    #[test]
    fn plot_writes_a_panel_per_policy() {
        let path = temp_path("throttling.svg");
        let text = throttling(&["--plot", path.to_str().unwrap()]);
        assert!(text.contains("policy  throttled"), "the table is still printed");
        let svg = fs::read_to_string(&path).expect("the chart was written");
        fs::remove_file(&path).ok();
        for title in ["offered load", "attempts sent", "goodput", "rate limit", "seconds since the run began"]
        {
            assert!(svg.contains(&format!(">\n{title}\n</text>")), "{title} missing");
        }
        for policy in POLICIES {
            assert!(svg.contains(&format!(">\n{policy}: ")), "{policy}'s panel");
        }
    }

    #[test]
    fn options_of_no_effect_warn_and_bad_options_exit_2_naming_them() {
        let out = stagger(&[
            "simulate",
            "--scenario",
            "throttling",
            "--duration",
            "2s",
            "--policies",
            "no-retry",
            "--attempts",
            "5",
        ]);
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "warning: --attempts has no effect: no policy retries\n"
        );
        let cases: [(&[&str], &str); 7] = [
            (&["--rate-limit", "0"], "'--rate-limit <R>': the rate must be above 0"),
            (&["--policies", "retry+ratio"], "invalid value for --policies: unknown policy \"retry+ratio\""),
            (&["--clients", "10,20"], "'--clients <N>': must be a whole number"),
            (&["--clients", "0"], "invalid value for --clients: invalid clients 0"),
            (
                &["--max-token-wait", "0s"],
                "invalid value for --max-token-wait: invalid max_token_wait 0s: must be from 1ms to 24h",
            ),
            (&["--runs", "3"], "--runs is an option of --scenario contention"),
            (&["--base", "5"], "'--base <DUR>': missing unit after 5"),
        ];
        refuses_each(&["simulate", "--scenario", "throttling"], &cases);
        let out = stagger(&["simulate", "--scenario", "overload", "--rate-limit", "5"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr)
            .contains("--rate-limit is an option of --scenario throttling"));
    }
}

/// `stagger simulate --scenario hedging`, at a light load and near the
/// capacity with 5,000 operations each, a fraction of a second in debug.
mod hedging {
    use std::fs;

    use serde_json::Value;

    use super::{refuses_each, stagger, stdout_of, temp_path};

    /// The policies, in the order of the output at each load.
    const POLICIES: [&str; 5] = ["no-retry", "retry", "hedge", "hedge+learned", "hedge+ratio"];

    /// `stagger simulate --scenario hedging` on the small run, with `extra` options.
    fn hedging(extra: &[&str]) -> String {
        let mut args =
            vec!["simulate", "--scenario", "hedging", "--loads", "0.1,0.9", "--operations", "5000"];
        args.extend_from_slice(extra);
        stdout_of(&args)
    }

    #[test]
    fn json_has_an_object_per_load_and_policy_and_csv_matches() {
        let json: Value = serde_json::from_str(&hedging(&["--format", "json"])).expect("valid JSON");
        let objects = json.as_array().expect("an array");
        let keys: Vec<(f64, &str)> =
            objects.iter().map(|o| (o["load"].as_f64().unwrap(), o["policy"].as_str().unwrap())).collect();
        let expected: Vec<(f64, &str)> =
            [0.1, 0.9].into_iter().flat_map(|load| POLICIES.map(|policy| (load, policy))).collect();
        assert_eq!(keys, expected);
        let (none, learned) = (&objects[0], &objects[3]);
        let p999 = |o: &Value| o["latency_p999"].as_f64().unwrap();
        assert!(p999(learned) * 5.0 <= p999(none), "{learned} against {none}");
        // A percentile among the failed operations is null.
        assert!(objects[6]["latency_p999"].is_null(), "{}", objects[6]);
        let csv = hedging(&["--format", "csv"]);
        assert!(csv
            .starts_with("load,policy,latency_p50,latency_p99,latency_p999,attempts_per_operation,goodput,"));
        assert_eq!(csv.lines().count(), 11);
        assert!(csv.lines().nth(7).unwrap().starts_with("0.9,retry,,,,"), "{csv}");
    }

    #[test]
    fn the_table_reads_the_figures_and_plot_draws_four_panels() {
        let path = temp_path("hedging.svg");
        let text = hedging(&["--plot", path.to_str().unwrap()]);
        assert!(
            text.starts_with("scenario      hedging: hedged requests on a server with a long tail"),
            "{text}"
        );
        let prose = text.replace('\n', " ");
        assert!(prose.contains("At 10% load, no-retry's p99.9 was 1.02s: "), "{text}");
        assert!(prose.contains("At 90% load, near the capacity, hedge+ratio sent "), "{text}");
        let svg = fs::read_to_string(&path).expect("the chart was written");
        fs::remove_file(&path).ok();
        for title in ["Median latency", "Goodput", "offered load, a fraction of the capacity"] {
            assert!(svg.contains(title), "{title} missing");
        }
        for policy in POLICIES {
            assert!(svg.contains(&format!(">\n{policy}\n</text>")), "{policy}'s line");
        }
    }

    #[test]
    fn options_of_no_effect_warn_and_bad_options_exit_2_naming_them() {
        let out = stagger(&[
            "simulate",
            "--scenario",
            "hedging",
            "--loads",
            "0.5",
            "--operations",
            "200",
            "--policies",
            "no-retry,hedge",
            "--percentile",
            "0.9",
        ]);
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "warning: --percentile has no effect: hedge+learned is not among the policies\n"
        );
        let cases: [(&[&str], &str); 5] = [
            (&["--loads", "0"], "invalid value for --loads: invalid load 0"),
            (&["--hedge-attempts", "1"], "invalid value for --hedge-attempts: invalid hedge-attempts 1"),
            (
                &["--percentile", "1.5"],
                "invalid value for --percentile: invalid percentile for hedge+learned",
            ),
            (&["--policies", "retry+ratio"], "invalid value for --policies: unknown policy \"retry+ratio\""),
            (&["--clients", "3"], "--clients is an option of --scenario contention, throttling and frontier"),
        ];
        refuses_each(&["simulate", "--scenario", "hedging"], &cases);
    }
}

#[test]
fn help_names_every_scenario_and_the_tool_every_command() {
    // The description, before clap's own list of the values.
    let help = stdout_of(&["simulate", "--help"]);
    let description = help.split("Usage:").next().unwrap();
    for scenario in staggered_sim::Scenario::ALL {
        let name = scenario.name();
        assert!(description.contains(name), "`stagger simulate --help` does not describe {name}");
    }
    let top = stdout_of(&["--help"]);
    for word in ["contention", "overload", "throttling", "hedging"] {
        assert!(top.lines().next().unwrap().contains(word), "`stagger --help` omits {word}: {top}");
    }
}
