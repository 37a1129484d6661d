//! The report as GitHub Markdown: a list of parameters, the table of
//! retries, and the notes as paragraphs.

use super::layout;
use crate::schedule::report::ScheduleReport;

/// The summary as a bullet list, the grid as a Markdown table, then the notes.
pub fn render(report: &ScheduleReport) -> String {
    let mut text = String::new();
    for (name, value) in layout::summary(report) {
        text += &format!("- **{name}**: {value}\n");
    }
    text.push('\n');
    if !report.rows.is_empty() {
        text += &layout::grid(report).to_markdown();
        text.push('\n');
    }
    let notes = layout::notes(report);
    text += &notes.join("\n\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    #[test]
    fn google_is_a_markdown_table() {
        let text = render(&fixtures::google());
        assert!(text.starts_with("- **strategy**: proportional (preset google)\n"), "{text}");
        assert!(
            text.contains("\n| retry | interval | min | median | max |\n|---:|---:|---:|---:|---:|\n"),
            "{text}"
        );
        assert!(text.contains("\n| 4 | 1.687s | 843.5ms | 1.687s | 2.5305s |\n"), "{text}");
        let table_rows = text.lines().filter(|line| line.starts_with("| ")).count();
        assert_eq!(table_rows, 11, "header and 10 retries: {text}");
        assert!(text.ends_with(".\n"), "{text}");
    }

    #[test]
    fn sampled_and_estimated_columns_appear() {
        let sampled = render(&fixtures::aws_sampled());
        assert!(
            sampled.contains("| retry | interval | min | median | max | p50 | p90 | p99 | mean |"),
            "{sampled}"
        );
        let estimated = render(&fixtures::decorrelated());
        assert!(estimated
            .lines()
            .filter(|l| l.starts_with("| 1 ") || l.starts_with("| 2 "))
            .all(|l| l.contains("≈")));
    }
}
