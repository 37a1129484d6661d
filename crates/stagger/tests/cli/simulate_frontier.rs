//! `stagger simulate --scenario frontier`, run for real on small grids (a
//! few candidates, one or two client counts, a few runs) so that each test
//! takes a fraction of a second in debug.

use std::fs;

use serde_json::Value;

use super::{refuses_each, stagger, stdout_of};

/// The frontier on a small grid, with `extra` options.
fn small(extra: &[&str]) -> String {
    let mut args = vec![
        "simulate",
        "--scenario",
        "frontier",
        "--families",
        "full,smooth",
        "--scales",
        "1,4",
        "--multipliers",
        "1.5",
        "--clients",
        "10,30",
        "--runs",
        "5",
    ];
    args.extend_from_slice(extra);
    stdout_of(&args)
}

#[test]
fn json_and_csv_have_a_row_per_client_count_and_point() {
    let json: Value = serde_json::from_str(&small(&["--format", "json", "--seed", "3"])).unwrap();
    let rows = json.as_array().expect("an array of rows");
    // Two client counts, four candidates and four references.
    assert_eq!(rows.len(), 2 * (4 + 4), "{json}");
    let names: Vec<&str> = rows.iter().map(|row| row["point"].as_str().unwrap()).collect();
    for name in ["full(scale 4, multiplier 1.5)", "smooth(scale 4)", "full", "decorrelated"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    // Full measured against itself is 1, and the front is never empty.
    for row in rows.iter().filter(|row| row["point"] == "full") {
        assert_eq!(row["calls_vs_full"], 1.0, "{row}");
    }
    for clients in [10, 30] {
        assert!(rows.iter().any(|row| row["clients"] == clients && row["front"] == true), "{clients}");
    }
    let csv = small(&["--format", "csv", "--seed", "3"]);
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("clients,point,kind,family,scale,multiplier,floor,"));
    assert_eq!(lines.count(), rows.len());
}

#[test]
fn the_table_marks_the_front_and_reads_the_target() {
    let table = small(&["--seed", "3"]);
    for needle in ["scenario    frontier", "front", "target", "full(scale 4, multiplier 1.5)"] {
        assert!(table.contains(needle), "{needle}: {table}");
    }
    let reading = table.replace('\n', " ");
    assert!(
        reading.contains("reached the target") && reading.contains("at all 2 client counts"),
        "{reading}"
    );
    let markdown = small(&["--seed", "3", "--format", "markdown"]);
    assert!(markdown.contains("| point | calls |"), "{markdown}");
    assert_eq!(small(&["--seed", "3"]), table, "the same seed gives the same table");
}

#[test]
fn plot_draws_a_panel_per_client_count_with_the_references_labelled() {
    let path = std::env::temp_dir().join(format!("stagger-frontier-{}.svg", std::process::id()));
    small(&["--seed", "3", "--plot", path.to_str().unwrap()]);
    let svg = fs::read_to_string(&path).expect("the chart was written");
    fs::remove_file(&path).ok();
    assert!(svg.starts_with("<svg"), "{svg}");
    for needle in ["N = 10", "N = 30", "\nfull\n", "\ndecorrelated\n", "\nsmooth\n", "Pareto front"] {
        assert!(svg.contains(needle), "{needle}");
    }
}

#[test]
fn bad_options_exit_2_naming_the_option() {
    let cases: [(&[&str], &str); 8] = [
        (&["--families", "nope"], "'--families <LIST>': unknown family \"nope\""),
        (&["--scales", "0"], "invalid value for --scales: invalid scale 0"),
        (&["--scales", "1..2/0"], "'--scales <LIST>': range 1..2/0 needs a positive step"),
        (
            &["--scales", "500"],
            "invalid value for --scales: invalid scale for full(scale 500, multiplier 1.5)",
        ),
        (&["--multipliers", "0.5"], "invalid value for --multipliers: invalid multiplier 0.5"),
        (&["--floors", "1.5"], "invalid value for --floors: invalid floor 1.5"),
        (&["--runs", "0"], "invalid value for --runs: invalid runs 0"),
        (&["--trigger", "none"], "--trigger is an option of --scenario overload"),
    ];
    refuses_each(&["simulate", "--scenario", "frontier", "--clients", "10"], &cases);
    // Without full or decorrelated there is no target: a warning, and the run.
    let out = stagger(&[
        "simulate",
        "--scenario",
        "frontier",
        "--families",
        "smooth",
        "--scales",
        "2",
        "--clients",
        "10",
        "--runs",
        "2",
        "--references",
        "full",
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: --references lacks full or decorrelated"));
}
