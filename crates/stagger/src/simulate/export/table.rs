//! The report as aligned text, for a person at a terminal.

use super::layout;
use crate::simulate::report::SimulationReport;

/// The reading's sentences are wrapped to this many characters, to stay
/// readable in a terminal.
pub const WIDTH: usize = 100;

/// The parameters, then for each measure its caption and grid, then each
/// sentence of the reading wrapped to [`WIDTH`]; blank lines between.
pub fn render(report: &SimulationReport) -> String {
    let width = report.parameters.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (name, value) in &report.parameters {
        text += &format!("{name:<width$}  {value}\n");
    }
    for (index, measure) in report.measures.iter().enumerate() {
        text += &format!("\n{}:\n", layout::caption(report, measure));
        text += &layout::grid(report, index).to_text();
    }
    for sentence in &report.reading {
        text.push('\n');
        for line in wrap(sentence, WIDTH) {
            text += &line;
            text.push('\n');
        }
    }
    text
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
    use super::*;
    use crate::simulate::report::fixtures;

    #[test]
    fn parameters_grids_and_reading() {
        let expected = "\
scenario  test
runs      2 per point

Mean calls per run over 2 runs:
clients  none  full
     10    25    16
     20    90    41

Mean time in time units over 2 runs:
clients  none   full
     10   110    400
     20   220  10000

full did the least work.
";
        assert_eq!(render(&fixtures::report()), expected);
    }

    #[test]
    fn long_sentences_wrap_at_spaces() {
        assert_eq!(wrap("aa bb cc dd", 5), ["aa bb", "cc dd"]);
        assert_eq!(wrap("aa bb cc", 6), ["aa bb", "cc"]);
        assert_eq!(wrap("a verylongword b", 4), ["a", "verylongword", "b"]);
        assert_eq!(wrap("", 10), Vec::<String>::new());
        let mut report = fixtures::report();
        report.reading = vec!["word ".repeat(50)];
        let text = render(&report);
        let reading: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("word")).collect();
        assert_eq!(reading.len(), 3, "{text}");
        assert!(reading.iter().all(|line| line.len() <= WIDTH), "{text}");
    }
}
