//! `stagger simulate --print-config` and `--config`: an experiment written
//! as a file runs again exactly, flags given beside it win, and a file that
//! cannot be used is refused before anything runs, naming the key at fault
//! and its line.

use super::{stagger, stdout_of};

/// `text` in a file of its own, for `--config`.
fn file(name: &str, text: &str) -> tempfile::TempPath {
    let file = tempfile::Builder::new().prefix(name).suffix(".toml").tempfile().expect("a temporary file");
    std::fs::write(file.path(), text).expect("written");
    file.into_temp_path()
}

/// Each scenario with parameters small enough for a debug build.
const SMALL: [&[&str]; 5] = [
    &["--scenario", "contention", "--clients", "10,20", "--runs", "3", "--strategies", "none,full"],
    &["--scenario", "overload", "--duration", "20s", "--error-rate", "1%", "--bucket-capacity", "50"],
    &[
        "--scenario",
        "throttling",
        "--clients",
        "4",
        "--arrival-rate",
        "100",
        "--rate-limit",
        "50",
        "--duration",
        "10s",
    ],
    &["--scenario", "frontier", "--clients", "10", "--runs", "2", "--families", "smooth", "--scales", "1,2"],
    &["--scenario", "hedging", "--loads", "0.2,1.1", "--operations", "2000", "--stall-rate", "2%"],
];

#[test]
fn a_printed_experiment_runs_again_exactly() {
    for options in SMALL {
        let printed = stdout_of(&[&["simulate"], options, &["--print-config"]].concat());
        let path = file("experiment", &printed);
        let from_file = ["simulate", "--config", path.to_str().unwrap()];
        for format in ["table", "csv", "json"] {
            let direct = stdout_of(&[&["simulate"], options, &["--format", format]].concat());
            assert_eq!(stdout_of(&[&from_file[..], &["--format", format]].concat()), direct, "{options:?}");
        }
        // Every parameter is in the file: printing it again prints the same.
        assert_eq!(stdout_of(&[&from_file[..], &["--print-config"]].concat()), printed, "{options:?}");
    }
}

#[test]
fn every_scenario_s_defaults_print_and_read_back_unchanged() {
    for scenario in ["contention", "overload", "throttling", "frontier", "hedging"] {
        let printed = stdout_of(&["simulate", "--scenario", scenario, "--print-config"]);
        assert!(printed.starts_with(&format!("scenario = \"{scenario}\"\n\n[{scenario}]\n")), "{printed}");
        let path = file(scenario, &printed);
        assert_eq!(stdout_of(&["simulate", "--config", path.to_str().unwrap(), "--print-config"]), printed);
    }
    let contention = stdout_of(&["simulate", "--print-config"]);
    for line in ["clients = \"10..190/10\"", "runs = 100", "seed = 2015", "base = 5.0", "hop_sd = 2.0"] {
        assert!(contention.lines().any(|l| l == line), "{line}: {contention}");
    }
}

#[test]
fn flags_win_over_the_file_and_a_lone_section_names_the_scenario() {
    let path = file(
        "section",
        "[throttling]\nclients = 4\nduration = \"10s\"\narrival_rate = 100\nrate_limit = 50\n",
    );
    let config = ["simulate", "--config", path.to_str().unwrap()];
    let printed = stdout_of(&[&config[..], &["--seed", "9", "--print-config"]].concat());
    assert!(printed.starts_with("scenario = \"throttling\"\n"), "{printed}");
    for line in ["clients = 4", "duration = \"10s\"", "arrival_rate = \"100/s\"", "seed = 9"] {
        assert!(printed.lines().any(|l| l == line), "{line}: {printed}");
    }
    let options =
        ["--scenario", "throttling", "--clients", "4", "--duration", "10s", "--arrival-rate", "100"];
    let direct = stdout_of(
        &[&["simulate"], &options[..], &["--rate-limit", "50", "--seed", "9", "--format", "csv"]].concat(),
    );
    assert_eq!(stdout_of(&[&config[..], &["--seed", "9", "--format", "csv"]].concat()), direct);
}

#[test]
fn a_file_that_cannot_be_used_exits_2_naming_the_key_and_its_line() {
    let cases = [
        ("[overload]\nduration = \"20s\"\nbogus = 3\n", "overload.bogus at line 3: unknown field `bogus`"),
        ("[overload]\nduration = \"20 parsecs\"\n", "overload.duration at line 2: unknown unit ' parsecs'"),
        ("[overload]\n\nerror_rate = 1.5\n", "overload.error_rate at line 3: must be between 0 and 1"),
        (
            "[contention]\nclients = \"10\"\nruns = 0\n",
            "contention.runs at line 3: invalid runs 0: must be at least 1",
        ),
        ("scenario = \"nope\"\n", "scenario at line 1: unknown variant `nope`"),
        ("[contention\n", "line 1: "),
    ];
    for (text, needle) in cases {
        let path = file("bad", text);
        let out = stagger(&["simulate", "--config", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.starts_with(&format!("error: {}: {needle}", path.display())), "{text}: {stderr}");
        assert!(out.stdout.is_empty(), "{text}: nothing runs");
    }
    // A flag given beside the file is blamed as a flag.
    let path = file("runs", "[contention]\nruns = 0\n");
    let out = stagger(&["simulate", "--config", path.to_str().unwrap(), "--runs", "0"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: invalid value for --runs: invalid runs 0")
    );
    let missing = stagger(&["simulate", "--config", "/no/such/experiment.toml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr)
        .starts_with("error: /no/such/experiment.toml: cannot read it"));
}
