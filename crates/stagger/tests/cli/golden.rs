//! Golden outputs: the CSV and JSON of every deterministic command, byte for
//! byte, for a fixed seed. They are contracts with scripts that read them, so
//! a change here must be deliberate: rerun with `STAGGER_BLESS=1` to rewrite
//! the files under `tests/golden/`, and say why in the commit.

use std::path::PathBuf;

use super::stdout_of;

/// Compares `stagger args` with `tests/golden/name`, or rewrites the file
/// when `STAGGER_BLESS` is set.
fn golden(name: &str, args: &[&str]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    let actual = stdout_of(args);
    if std::env::var_os("STAGGER_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with STAGGER_BLESS=1 to create it)", path.display()));
    if actual != expected {
        let line = actual.lines().zip(expected.lines()).position(|(a, e)| a != e);
        panic!(
            "stagger {args:?} no longer matches {}: first difference at line {}\n got: {:?}\nwant: {:?}",
            path.display(),
            line.map_or(actual.lines().count().min(expected.lines().count()) + 1, |l| l + 1),
            line.and_then(|l| actual.lines().nth(l)),
            line.and_then(|l| expected.lines().nth(l)),
        );
    }
}

#[test]
fn contention_default_run() {
    golden("simulate.csv", &["simulate", "--format", "csv"]);
    golden("simulate.json", &["simulate", "--format", "json"]);
}

#[test]
fn overload_default_run() {
    golden("overload.csv", &["simulate", "--scenario", "overload", "--format", "csv"]);
    golden("overload.json", &["simulate", "--scenario", "overload", "--format", "json"]);
}

#[test]
fn throttling_small_fleet() {
    let small = ["simulate", "--scenario", "throttling", "--clients", "5", "--arrival-rate", "200"];
    let small = [&small[..], &["--rate-limit", "100", "--duration", "20s", "--format"]].concat();
    golden("throttling.csv", &[&small[..], &["csv"]].concat());
    golden("throttling.json", &[&small[..], &["json"]].concat());
}

#[test]
fn hedging_small_run() {
    let small =
        ["simulate", "--scenario", "hedging", "--loads", "0.1,0.9", "--operations", "5000", "--format"];
    golden("hedging.csv", &[&small[..], &["csv"]].concat());
    golden("hedging.json", &[&small[..], &["json"]].concat());
}

#[test]
fn frontier_small_run() {
    let args = |format| {
        [
            "simulate",
            "--scenario",
            "frontier",
            "--families",
            "full,floored,smooth",
            "--scales",
            "1,3",
            "--multipliers",
            "1.5,2",
            "--floors",
            "0.2",
            "--clients",
            "10,20",
            "--runs",
            "5",
            "--seed",
            "14",
            "--format",
            format,
        ]
    };
    golden("frontier.csv", &args("csv"));
    golden("frontier.json", &args("json"));
}

#[test]
fn schedule_presets_sampled() {
    for preset in ["interactive", "standard", "batch", "aws", "grpc", "google"] {
        for format in ["csv", "json"] {
            let args =
                ["schedule", "--preset", preset, "--samples", "20", "--seed", "2015", "--format", format];
            golden(&format!("schedule-{preset}.{format}"), &args);
        }
    }
}

#[test]
fn schedule_strategies_sampled() {
    for strategy in
        ["constant", "exponential", "full", "equal", "decorrelated", "proportional", "additive", "smooth"]
    {
        for format in ["csv", "json"] {
            let args = [
                "schedule",
                "--strategy",
                strategy,
                "--base",
                "100ms",
                "--cap",
                "2s",
                "--attempts",
                "8",
                "--samples",
                "50",
                "--seed",
                "7",
                "--format",
                format,
            ];
            golden(&format!("schedule-{strategy}.{format}"), &args);
        }
    }
}
