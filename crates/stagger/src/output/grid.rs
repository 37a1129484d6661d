//! `Grid`: a table of text cells, written as aligned plain text or as a
//! GitHub Markdown table.

/// A header row and rows of cells. Cells are right-aligned, so numbers with
/// units line up on the unit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grid {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    /// A grid with these column titles and no rows.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> Self {
        Grid { columns: columns.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// Adds a row; missing cells are blank and extra cells are dropped.
    pub fn push(&mut self, mut cells: Vec<String>) {
        cells.resize(self.columns.len(), String::new());
        self.rows.push(cells);
    }

    /// The column titles then the rows, each line ending in a newline,
    /// columns two spaces apart and padded on the left to their widest cell
    /// (counted in characters, so `≈` and `µ` count as one).
    pub fn to_text(&self) -> String {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                let title = self.columns[i].chars().count();
                self.rows.iter().map(|row| row[i].chars().count()).fold(title, usize::max)
            })
            .collect();
        let mut text = String::new();
        for line in std::iter::once(&self.columns).chain(&self.rows) {
            let cells: Vec<String> = line
                .iter()
                .zip(&widths)
                .map(|(cell, &width)| format!("{}{cell}", " ".repeat(width - cell.chars().count())))
                .collect();
            text += &cells.join("  ");
            text.push('\n');
        }
        text
    }

    /// A GitHub Markdown table: `| a | b |`, a right-alignment row, one line
    /// per row. A `|` inside a cell is escaped.
    pub fn to_markdown(&self) -> String {
        fn line(cells: &[String]) -> String {
            let cells: Vec<String> = cells.iter().map(|cell| cell.replace('|', "\\|")).collect();
            format!("| {} |\n", cells.join(" | "))
        }
        let mut text = line(&self.columns);
        text += &format!("|{}|\n", vec!["---:"; self.columns.len()].join("|"));
        for row in &self.rows {
            text += &line(row);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Grid {
        let mut grid = Grid::new(["retry", "note", "max"]);
        grid.push(vec!["1".into(), "a|b".into(), "750ms".into()]);
        grid.push(vec!["10".into(), "≈1s".into(), "28.815s".into()]);
        grid
    }

    #[test]
    fn text_aligns_by_characters() {
        let expected = "\
retry  note      max
    1   a|b    750ms
   10   ≈1s  28.815s
";
        assert_eq!(sample().to_text(), expected);
    }

    #[test]
    fn markdown_escapes_pipes_and_aligns_right() {
        let expected = "\
| retry | note | max |
|---:|---:|---:|
| 1 | a\\|b | 750ms |
| 10 | ≈1s | 28.815s |
";
        assert_eq!(sample().to_markdown(), expected);
    }

    #[test]
    fn short_rows_are_padded() {
        let mut grid = Grid::new(["a", "b"]);
        grid.push(vec!["x".into()]);
        assert_eq!(grid.to_text(), "a  b\nx   \n");
    }
}
