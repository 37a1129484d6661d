//! The text table and Markdown: one layout (the parameters, each titled
//! table, the notes) with two syntaxes, as hyperfine's markup exporters
//! share one table builder.

use staggered_sim::view::{Report, Table};

use super::Exporter;

/// Text lines are wrapped to this many characters, to stay readable in a
/// terminal (a wide table is not: its rows are never broken).
pub const WIDTH: usize = 100;

/// What a markup format writes for each part of a report.
pub trait Markup {
    /// The parameters above everything.
    fn parameters(&self, parameters: &[(String, String)]) -> String;
    /// A table's title, above it.
    fn title(&self, title: &str) -> String;
    /// A table's columns and rows.
    fn grid(&self, table: &Table) -> String;
    /// One note, a paragraph.
    fn paragraph(&self, text: &str) -> String;
}

impl<M: Markup> Exporter for M {
    /// The parameters, then each table that has rows (its title above it),
    /// then the notes; a blank line between parts.
    fn export(&self, report: &Report) -> anyhow::Result<String> {
        let mut text = self.parameters(&report.parameters);
        for table in report.tables.iter().filter(|table| !table.rows.is_empty()) {
            text.push('\n');
            if let Some(title) = &table.title {
                text += &self.title(title);
            }
            text += &self.grid(table);
        }
        for note in &report.notes {
            text.push('\n');
            text += &self.paragraph(note);
        }
        Ok(text)
    }
}

/// An aligned text table, for a person at a terminal.
pub struct Text;

impl Markup for Text {
    /// `name  value` lines, names padded to the longest, values wrapped
    /// under themselves.
    fn parameters(&self, parameters: &[(String, String)]) -> String {
        let width = parameters.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0);
        let mut text = String::new();
        for (name, value) in parameters {
            for (i, line) in wrap(value, WIDTH.saturating_sub(width + 2)).iter().enumerate() {
                let name = if i == 0 { name } else { "" };
                text += &format!("{name:<width$}  {line}\n");
            }
        }
        text
    }

    fn title(&self, title: &str) -> String {
        lines(&wrap(&format!("{title}:"), WIDTH))
    }

    /// The column names then the rows, columns two spaces apart and padded on
    /// the left to their widest cell (counted in characters, so `≈` and `µ`
    /// count as one): numbers with units line up on the unit.
    fn grid(&self, table: &Table) -> String {
        let rows: Vec<Vec<String>> = std::iter::once(table.columns.clone())
            .chain(table.rows.iter().map(|row| row.iter().map(ToString::to_string).collect()))
            .collect();
        let widths: Vec<usize> = (0..table.columns.len())
            .map(|i| rows.iter().map(|row| row[i].chars().count()).max().unwrap_or(0))
            .collect();
        let mut text = String::new();
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, &width)| format!("{}{cell}", " ".repeat(width - cell.chars().count())))
                .collect();
            text += &cells.join("  ");
            text.push('\n');
        }
        text
    }

    fn paragraph(&self, text: &str) -> String {
        lines(&wrap(text, WIDTH))
    }
}

/// GitHub Markdown.
pub struct Markdown;

impl Markup for Markdown {
    /// A bullet per parameter, its name in bold.
    fn parameters(&self, parameters: &[(String, String)]) -> String {
        parameters.iter().map(|(name, value)| format!("- **{name}**: {value}\n")).collect()
    }

    fn title(&self, title: &str) -> String {
        format!("**{title}**\n\n")
    }

    /// `| a | b |`, a right-alignment row, one line per row; a `|` inside a
    /// cell is escaped.
    fn grid(&self, table: &Table) -> String {
        fn line(cells: impl Iterator<Item = String>) -> String {
            let cells: Vec<String> = cells.map(|cell| cell.replace('|', "\\|")).collect();
            format!("| {} |\n", cells.join(" | "))
        }
        let mut text = line(table.columns.iter().cloned());
        text += &format!("|{}|\n", vec!["---:"; table.columns.len()].join("|"));
        for row in &table.rows {
            text += &line(row.iter().map(ToString::to_string));
        }
        text
    }

    fn paragraph(&self, text: &str) -> String {
        format!("{text}\n")
    }
}

/// Each line, ended by a newline.
fn lines(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// `text` broken at spaces into lines of at most `width` characters; a
/// longer word gets a line of its own.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use staggered_sim::view::Value;

    #[test]
    fn text_has_parameters_titled_tables_and_notes() {
        let expected = "\
scenario  test
runs      2 per point

Mean calls per run over 2 runs:
clients  none  full
     10    25    16
     20    90    41

full did the least work.
";
        assert_eq!(Text.export(&fixtures::report()).unwrap(), expected);
    }

    #[test]
    fn markdown_has_bullets_bold_titles_tables_and_paragraphs() {
        let expected = "\
- **scenario**: test
- **runs**: 2 per point

**Mean calls per run over 2 runs**

| clients | none | full |
|---:|---:|---:|
| 10 | 25 | 16 |
| 20 | 90 | 41 |

full did the least work.
";
        assert_eq!(Markdown.export(&fixtures::report()).unwrap(), expected);
    }

    #[test]
    fn cells_align_by_characters_and_pipes_are_escaped() {
        let mut table = Table::new(None, ["retry", "note", "max"]);
        table.push([Value::from(1_u32), "a|b".into(), "750ms".into()]);
        table.push([Value::from(10_u32), "≈1s".into(), Value::Null]);
        assert_eq!(Text.grid(&table), "retry  note    max\n    1   a|b  750ms\n   10   ≈1s       \n");
        assert!(Markdown.grid(&table).contains("| 1 | a\\|b | 750ms |\n| 10 | ≈1s |  |\n"));
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_empty_tables_are_left_out() {
        assert_eq!(wrap("aa bb cc dd", 5), ["aa bb", "cc dd"]);
        assert_eq!(wrap("a verylongword b", 4), ["a", "verylongword", "b"]);
        assert_eq!(wrap("", 10), Vec::<String>::new());
        let mut report = fixtures::report();
        report.notes = vec!["word ".repeat(50)];
        report.parameters[1].1 = "word ".repeat(30);
        report.tables[0].rows.clear();
        let text = Text.export(&report).unwrap();
        assert!(text.lines().all(|line| line.chars().count() <= WIDTH), "{text}");
        assert!(text.contains("\n          word word"), "wrapped under the value: {text}");
        assert!(!text.contains("clients"), "no rows, no table: {text}");
        assert_eq!(text.lines().filter(|line| line.starts_with("word")).count(), 3, "{text}");
    }
}
