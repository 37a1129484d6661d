//! The report as an aligned text table, for a person at a terminal.

use super::layout;
use crate::schedule::report::ScheduleReport;

/// The summary, a blank line, the grid of retries, a blank line, the notes.
pub fn render(report: &ScheduleReport) -> String {
    let summary = layout::summary(report);
    let width = summary.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (name, value) in summary {
        text += &format!("{name:<width$}  {value}\n");
    }
    text.push('\n');
    if !report.rows.is_empty() {
        text += &layout::grid(report).to_text();
        text.push('\n');
    }
    for note in layout::notes(report) {
        text += &note;
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    /// The grid lines of the rendered table, as whitespace-separated cells.
    fn rows(text: &str) -> Vec<Vec<&str>> {
        text.lines()
            .skip_while(|line| !line.starts_with("retry"))
            .skip(1)
            .take_while(|line| !line.is_empty())
            .map(|line| line.split_whitespace().collect())
            .collect()
    }

    #[test]
    fn google_shows_seed_002() {
        let text = render(&fixtures::google());
        let rows = rows(&text);
        assert_eq!(rows.len(), 10, "{text}");
        assert_eq!(rows[0], ["1", "500ms", "250ms", "500ms", "750ms"]);
        assert_eq!(rows[2], ["3", "1.125s", "562.5ms", "1.125s", "1.6875s"]);
        assert_eq!(rows[3], ["4", "1.687s", "843.5ms", "1.687s", "2.5305s"]);
        assert_eq!(rows[8], ["9", "12.807s", "6.4035s", "12.807s", "19.2105s"]);
        assert!(text.contains("strategy      proportional (preset google)\n"), "{text}");
        assert!(text.contains("max_delay     1m (caps the interval: a delay can reach 1m30s)\n"), "{text}");
        assert!(text.contains("max_attempts  no limit (showing the first 10 retries"), "{text}");
        assert!(text.contains("deadline      15m\n"), "{text}");
        assert!(text.contains("Worst-case total wait over the 10 retries shown: "), "{text}");
        assert!(!text.contains('≈'), "{text}");
    }

    #[test]
    fn samples_add_columns_and_a_note() {
        let text = render(&fixtures::aws_sampled());
        assert!(text.contains("retry  interval  min  median  max"), "{text}");
        assert!(
            text.lines().any(|l| l.ends_with("p50     p90     p99    mean")) || text.contains("p50"),
            "{text}"
        );
        assert_eq!(rows(&text).iter().map(Vec::len).collect::<Vec<_>>(), [9, 9]);
        assert!(text.contains("samples       3 sequences, seed 1\n"), "{text}");
        assert!(
            text.contains("Worst-case total wait: 3s (the largest delay of each of the 2 retries).\n"),
            "{text}"
        );
    }

    #[test]
    fn estimated_medians_are_marked_and_explained() {
        let text = render(&fixtures::decorrelated());
        let rows = rows(&text);
        assert!(rows.iter().all(|row| row[3].starts_with('≈')), "{text}");
        assert!(text.contains("≈ median estimated from 10001 sequences"), "{text}");
        assert!(text.contains("multiplier    2 (unused by decorrelated)"), "{text}");
    }
}
