//! `stagger schedule --plot` and `--strategy` lists: the chart is valid SVG
//! with a band per retry and a series per strategy, the table a block per
//! strategy, and bad paths are refused before anything is written.

use std::collections::BTreeMap;

use super::{refuses_each, stagger, stdout_of};

/// How opaque the renderer fills a band's boxes (`output::svg::BAND_OPACITY`).
const BAND_OPACITY: &str = "0.3";

/// What a chart holds, read from its parsed SVG.
#[derive(Debug, Default)]
struct Drawn {
    /// Band boxes (and legend samples) per fill color.
    boxes: BTreeMap<String, usize>,
    /// The 2 px polylines through a point per retry, per color: the
    /// medians and the worst cases (a dash has two or three points).
    series: BTreeMap<String, usize>,
    /// Every text, in order.
    texts: Vec<String>,
}

/// Parses `svg`, a chart of `retries` retries, as XML (failing the test if
/// it is not) and reads it.
fn drawn(svg: &str, retries: usize) -> Drawn {
    let document = roxmltree::Document::parse(svg).expect("the chart is well-formed XML");
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let mut drawn = Drawn::default();
    for node in root.descendants().filter(roxmltree::Node::is_element) {
        match node.tag_name().name() {
            "rect" if node.attribute("opacity") == Some(BAND_OPACITY) => {
                *drawn.boxes.entry(node.attribute("fill").unwrap_or("").to_owned()).or_default() += 1;
            }
            "polyline" if node.attribute("stroke-width") == Some("2") => {
                let points = node.attribute("points").unwrap_or("").split_whitespace().count();
                if points == retries {
                    *drawn.series.entry(node.attribute("stroke").unwrap_or("").to_owned()).or_default() += 1;
                }
            }
            "text" => drawn.texts.push(node.text().unwrap_or("").trim().to_owned()),
            _ => {}
        }
    }
    drawn
}

/// Runs `stagger schedule ARGS --plot <temp>/chart.svg` and returns stdout and the chart.
fn plot(args: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("chart.svg");
    let mut all = vec!["schedule"];
    all.extend_from_slice(args);
    all.extend(["--plot", path.to_str().unwrap()]);
    let stdout = stdout_of(&all);
    let svg = std::fs::read_to_string(&path).expect("the chart was written");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["chart.svg"], "written through a temporary file, then renamed");
    (stdout, svg)
}

#[test]
fn one_strategy_a_band_per_retry_its_median_and_percentiles() {
    let (stdout, svg) = plot(&["--preset", "aws", "--attempts", "6", "--samples", "100", "--seed", "1"]);
    assert!(stdout.contains("strategy      full (preset aws)"), "the table is still printed: {stdout}");
    let drawn = drawn(&svg, 5);
    // 5 retries: a box each, and the legend's sample.
    assert_eq!(drawn.boxes.values().copied().collect::<Vec<_>>(), [5 + 1], "{:?}", drawn.boxes);
    for text in ["Delay before each retry", "Worst-case total wait after each retry", "min to max", "median"]
    {
        assert!(drawn.texts.iter().any(|t| t == text), "{text} missing: {:?}", drawn.texts);
    }
    for text in ["sampled p50", "sampled p90", "sampled p99", "full"] {
        assert!(drawn.texts.iter().any(|t| t == text), "{text} missing: {:?}", drawn.texts);
    }
    // One color: the median and the worst case.
    assert_eq!(drawn.series.values().copied().collect::<Vec<_>>(), [2], "{:?}", drawn.series);
}

#[test]
fn several_strategies_share_the_chart_a_color_each() {
    let strategies = ["full", "equal", "decorrelated"];
    let (stdout, svg) =
        plot(&["--strategy", "full,equal,decorrelated", "--base", "100ms", "--cap", "5s", "--attempts", "5"]);
    let drawn = drawn(&svg, 4);
    assert_eq!(drawn.boxes.len(), 3, "a band per strategy: {:?}", drawn.boxes);
    assert!(
        drawn.boxes.values().all(|&n| n == 4 + 1),
        "a box per retry and a legend sample: {:?}",
        drawn.boxes
    );
    // Solid through every retry: each median, and the worst cases but
    // equal's, which is full's and dashed on it.
    let solid: Vec<(&str, usize)> = drawn.series.iter().map(|(color, &n)| (color.as_str(), n)).collect();
    assert_eq!(solid, [("#4E79A7", 2), ("#E15759", 2), ("#F28E2B", 1)], "full, decorrelated, equal");
    assert_eq!(
        drawn.series.keys().collect::<Vec<_>>(),
        drawn.boxes.keys().collect::<Vec<_>>(),
        "each strategy's band and lines share its color"
    );
    for name in strategies {
        assert!(drawn.texts.iter().any(|t| t == name), "{name}: {:?}", drawn.texts);
        assert!(stdout.contains(&format!("\n{name}:\nretry  interval")), "a block for {name}: {stdout}");
    }
    assert!(drawn.texts.contains(&"equal (same as full)".to_owned()), "{:?}", drawn.texts);
    assert!(stdout.starts_with("strategies    full, equal and decorrelated\n"), "{stdout}");
    // Listed in another order, each strategy keeps its color.
    let (_, svg) =
        plot(&["--strategy", "decorrelated,full", "--base", "100ms", "--cap", "5s", "--attempts", "5"]);
    let colors: Vec<String> = self::drawn(&svg, 4).boxes.into_keys().collect();
    assert_eq!(colors, ["#4E79A7", "#E15759"], "full blue and decorrelated red, as above, not by order");
}

#[test]
fn lists_of_strategies_in_csv_and_json() {
    let csv = stdout_of(&["schedule", "--strategy", "full,smooth", "--attempts", "3", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "strategy,sample,retry,delay_ms");
    assert_eq!(lines.len(), 1 + 2 * 2, "{csv}");
    assert!(lines[1].starts_with("full,1,1,") && lines[4].starts_with("smooth,1,2,"), "{csv}");
    let json = stdout_of(&["schedule", "--strategy", "full,smooth", "--attempts", "3", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let documents = json.as_array().expect("a document per strategy");
    assert_eq!(
        documents.iter().map(|d| d["strategy"].as_str().unwrap()).collect::<Vec<_>>(),
        ["full", "smooth"]
    );
}

#[test]
fn bad_paths_exit_2_naming_the_option_and_write_nothing() {
    let dir = tempfile::Builder::new().suffix(".svg").tempdir().unwrap();
    let directory = dir.path().to_str().unwrap().to_owned();
    let cases: [(&[&str], &str); 5] = [
        (&["--plot", "chart.png"], "invalid value for --plot: chart.png does not end in .svg"),
        (
            &["--plot", "no/such/dir/chart.svg"],
            "invalid value for --plot: the directory no/such/dir does not exist",
        ),
        (&["--plot", &directory], "is a directory: name the chart's file"),
        (&["--plot", "chart.svg", "--attempts", "1"], "there is no retry to plot"),
        (
            &["--strategy", "full,nope", "--plot", "chart.svg"],
            "invalid value 'nope' for '--strategy <NAME[,NAME...]>'",
        ),
    ];
    refuses_each(&["schedule"], &cases);
    assert!(!std::path::Path::new("chart.svg").exists());
}

#[test]
fn a_list_is_refused_where_one_schedule_runs() {
    let out = stagger(&["schedule", "--strategy", "full,full"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("invalid value for --strategy: full is listed twice")
    );
    if cfg!(unix) {
        let out = stagger(&["run", "--strategy", "full,equal", "--", "true"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("invalid value for --strategy: full,equal: this command runs one schedule"),
            "{stderr}"
        );
    }
}
