//! The overload results as a table, CSV, JSON or Markdown: pure functions,
//! each unit-tested below. CSV and JSON share one list of fields, so their
//! columns and keys cannot drift apart.

use std::fmt::Write;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::reading::goodput;
use super::results::{percent, OverloadResults, PolicyResult};
use crate::duration;
use crate::output::{Format, Grid};
use crate::simulate::export::{wrap, WIDTH};

/// The results in `format`.
///
/// # Errors
/// Only if JSON serialization fails, which these plain types rule out.
pub fn render(results: &OverloadResults, format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => table(results),
        Format::Csv => csv(results),
        Format::Json => json(results)?,
        Format::Markdown => markdown(results),
    })
}

/// One value of a CSV cell or a JSON field.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Text(&'static str),
    Bool(bool),
    Count(u64),
    Number(f64),
    /// JSON `null`, an empty CSV cell.
    Null,
}

impl From<Option<f64>> for Value {
    fn from(value: Option<f64>) -> Self {
        value.map_or(Value::Null, Value::Number)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Text(text) => serializer.serialize_str(text),
            Value::Bool(b) => serializer.serialize_bool(b),
            Value::Count(n) => serializer.serialize_u64(n),
            Value::Number(x) => serializer.serialize_f64(x),
            Value::Null => serializer.serialize_none(),
        }
    }
}

/// A field of CSV and JSON: its key and its value in a row.
type Field = (&'static str, fn(&PolicyResult) -> Value);

/// Every field, in column order: the issue's six first, then the rest.
/// Times are in seconds (`recovery_time` from the trigger's end,
/// `drained_at` from the run's start); `null` is "never" or "no trigger".
const FIELDS: [Field; 15] = [
    ("policy", |r| Value::Text(r.policy.name())),
    ("recovered", |r| Value::Bool(r.recovered)),
    ("recovery_time", |r| r.recovery_time.map(|t| t.as_secs_f64()).into()),
    ("amplification_trigger", |r| r.amplification_trigger.into()),
    ("amplification_after", |r| r.amplification_after.into()),
    ("goodput", |r| Value::Number(r.goodput)),
    ("amplification_drained", |r| r.amplification_drained.into()),
    ("peak_amplification_drained", |r| r.peak_amplification_drained.into()),
    ("amplification", |r| Value::Number(r.amplification)),
    ("drained_at", |r| r.drained_at.map(|t| t.as_secs_f64()).into()),
    ("operations", |r| Value::Count(r.operations)),
    ("attempts", |r| Value::Count(r.attempts)),
    ("succeeded", |r| Value::Count(r.succeeded)),
    ("timed_out", |r| Value::Count(r.timed_out)),
    ("refused", |r| Value::Count(r.refused)),
];

/// One row as a JSON object, its keys in [`FIELDS`] order.
struct Object<'a>(&'a PolicyResult);

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(FIELDS.len()))?;
        for (key, value) in FIELDS {
            map.serialize_entry(key, &value(self.0))?;
        }
        map.end()
    }
}

/// The array of rows, one object per policy, pretty-printed and ending in
/// a newline.
fn json(results: &OverloadResults) -> anyhow::Result<String> {
    let objects: Vec<Object<'_>> = results.rows.iter().map(Object).collect();
    let mut text = serde_json::to_string_pretty(&objects)?;
    text.push('\n');
    Ok(text)
}

/// A header of [`FIELDS`]' keys, then a row per policy. Numbers are written
/// in full, as the shortest decimal that reads back as the same `f64`;
/// `null` is an empty cell. Policy names need no quoting.
fn csv(results: &OverloadResults) -> String {
    let mut text = FIELDS.map(|(key, _)| key).join(",");
    text.push('\n');
    for row in &results.rows {
        let cells = FIELDS.map(|(_, value)| match value(row) {
            Value::Text(text) => text.to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Count(n) => n.to_string(),
            Value::Number(x) => x.to_string(),
            Value::Null => String::new(),
        });
        let _ = writeln!(text, "{}", cells.join(","));
    }
    text
}

/// What the table's and Markdown's grid shows, as its caption.
fn caption(results: &OverloadResults) -> String {
    let facts = &results.facts;
    let from = if facts.trigger.is_some() { "the trigger's end" } else { "the start" };
    format!(
        "Per policy: goodput, the operations that succeeded; recovery, from {from} until goodput holds {} of \
         the offered load for {}; load amplification, server arrivals / first attempts, during the trigger, \
         after it, once the budget drained (peak: its worst second) and overall; retries the budget refused",
        percent(facts.recovery_threshold),
        duration::format(facts.recovery_window)
    )
}

/// A row per policy. Goodput has two decimals and amplifications two and
/// an `x` (CSV and JSON keep every digit); `-` is a figure that does not
/// apply.
fn grid(results: &OverloadResults) -> Grid {
    let mut grid = Grid::new([
        "policy", "goodput", "recovery", "trigger", "after", "drained", "peak", "overall", "refused",
    ]);
    let amplification = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |x| format!("{x:.2}x"));
    for row in &results.rows {
        grid.push(vec![
            row.policy.name().to_owned(),
            goodput(row.goodput),
            row.recovery_time.map_or_else(|| "never".to_owned(), duration::format),
            amplification(row.amplification_trigger),
            amplification(row.amplification_after),
            amplification(row.amplification_drained),
            amplification(row.peak_amplification_drained),
            amplification(Some(row.amplification)),
            row.refused.to_string(),
        ]);
    }
    grid
}

/// The parameters, the caption and the grid, then each paragraph of the
/// reading; long lines wrapped to [`WIDTH`] (but for the grid, which is
/// about 90 characters wide).
fn table(results: &OverloadResults) -> String {
    let width = results.parameters.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0);
    let mut text = String::new();
    for (name, value) in &results.parameters {
        // Values wrap under themselves, past the names.
        for (i, line) in wrap(value, WIDTH - width - 2).iter().enumerate() {
            let name = if i == 0 { name } else { "" };
            text += &format!("{name:<width$}  {line}\n");
        }
    }
    text.push('\n');
    for line in wrap(&(caption(results) + ":"), WIDTH) {
        text += &line;
        text.push('\n');
    }
    text += &grid(results).to_text();
    for paragraph in &results.reading {
        text.push('\n');
        for line in wrap(paragraph, WIDTH) {
            text += &line;
            text.push('\n');
        }
    }
    text
}

/// The parameters as bullets, the caption in bold above the table, then the
/// reading as paragraphs.
fn markdown(results: &OverloadResults) -> String {
    let mut text = String::new();
    for (name, value) in &results.parameters {
        text += &format!("- **{name}**: {value}\n");
    }
    text += &format!("\n**{}**\n\n", caption(results));
    text += &grid(results).to_markdown();
    for paragraph in &results.reading {
        text += &format!("\n{paragraph}\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::Value as Json;

    use super::*;
    use crate::simulate::overload::results::fixtures;

    #[test]
    fn json_has_the_issue_fields_per_policy_in_csv_order() {
        let results = fixtures::results();
        let text = render(&results, Format::Json).unwrap();
        let json: Json = serde_json::from_str(&text).unwrap();
        let objects = json.as_array().unwrap();
        assert_eq!(objects.len(), 5);
        let retry = &objects[1];
        assert_eq!(retry["policy"], "retry");
        assert_eq!(retry["recovered"], false);
        assert_eq!(retry["recovery_time"], Json::Null);
        assert_eq!(retry["amplification_after"], 3.0);
        assert_eq!(retry["drained_at"], Json::Null);
        let ratio = &objects[3];
        assert_eq!(ratio["recovered"], true);
        assert_eq!(ratio["recovery_time"], 14.0);
        assert_eq!(ratio["goodput"], 0.701);
        assert_eq!(ratio["amplification_drained"], 1.127);
        assert_eq!(ratio["drained_at"], 10.4);
        assert_eq!(ratio["refused"], 11311);
        assert!(objects.iter().all(|o| o.as_object().unwrap().len() == FIELDS.len()));
        let first = &text[..text.find('}').unwrap()];
        let positions: Vec<usize> =
            FIELDS.iter().map(|(key, _)| first.find(&format!("\"{key}\"")).expect("every field")).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{first}");
        assert!(text.ends_with("]\n"));
    }

    #[test]
    fn csv_has_a_header_and_a_row_per_policy() {
        let text = render(&fixtures::results(), Format::Csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "policy,recovered,recovery_time,amplification_trigger,amplification_after,goodput,\
             amplification_drained,peak_amplification_drained,amplification,drained_at,operations,attempts,\
             succeeded,timed_out,refused"
        );
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[2], "retry,false,,2.808,3,0.1686,,,2.904,,14000,40656,2360,100,0");
        assert_eq!(
            lines[4],
            "retry+ratio,true,14,1.418,1.048,0.701,1.127,2.213,1.233,10.4,14000,17262,9814,100,11311"
        );
        assert!(lines.iter().all(|line| line.split(',').count() == FIELDS.len()));
    }

    #[test]
    fn the_table_has_parameters_a_row_per_policy_and_the_reading() {
        let text = render(&fixtures::results(), Format::Table).unwrap();
        let expected_grid = "\
            policy  goodput  recovery  trigger  after  drained   peak  overall  refused
          no-retry   86.33%        4s    1.00x  1.00x        -      -    1.00x        0
             retry   16.86%     never    2.81x  3.00x        -      -    2.90x        0
retry+token-bucket   86.22%        4s    1.01x  1.00x    1.00x  1.00x    1.01x     5798
       retry+ratio   70.10%       14s    1.42x  1.05x    1.13x  2.21x    1.23x    11311
    retry+throttle   86.33%        4s    1.00x  1.00x    1.00x  1.00x    1.00x     5754
";
        assert!(text.starts_with("scenario  test\nseed      1\n\nPer policy: goodput"), "{text}");
        assert!(text.contains(expected_grid), "{text}");
        assert!(text.ends_with("\n\nretry never recovered.\n"), "{text}");
        assert!(text.lines().all(|line| line.chars().count() <= WIDTH), "{text}");
        let mut results = fixtures::results();
        results.parameters[1].1 = "word ".repeat(30);
        let text = render(&results, Format::Table).unwrap();
        assert!(text.starts_with("scenario  test\nseed      word word "), "{text}");
        assert!(text.contains("\n          word word"), "wrapped under the value: {text}");
        assert!(text.lines().all(|line| line.chars().count() <= WIDTH), "{text}");
    }

    #[test]
    fn markdown_is_bullets_a_table_and_paragraphs() {
        let text = render(&fixtures::results(), Format::Markdown).unwrap();
        assert!(text.starts_with("- **scenario**: test\n- **seed**: 1\n\n**Per policy: goodput"), "{text}");
        assert!(text.contains(
            "| policy | goodput | recovery | trigger | after | drained | peak | overall | refused |\n\
             |---:|---:|---:|---:|---:|---:|---:|---:|---:|\n\
             | no-retry | 86.33% | 4s | 1.00x | 1.00x | - | - | 1.00x | 0 |\n"
        ));
        assert!(text.ends_with("| 5754 |\n\nretry never recovered.\n"), "{text}");
    }
}
