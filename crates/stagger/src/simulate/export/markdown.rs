//! The report as GitHub Markdown: the parameters as a list, a table per
//! measure, and the reading as paragraphs.

use super::layout;
use crate::simulate::report::SimulationReport;

/// The parameters as bullets, each measure's caption in bold above its
/// table, then the reading.
pub fn render(report: &SimulationReport) -> String {
    let mut text = String::new();
    for (name, value) in &report.parameters {
        text += &format!("- **{name}**: {value}\n");
    }
    for (index, measure) in report.measures.iter().enumerate() {
        text += &format!("\n**{}**\n\n", layout::caption(report, measure));
        text += &layout::grid(report, index).to_markdown();
    }
    for line in &report.reading {
        text += &format!("\n{line}\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::report::fixtures;

    #[test]
    fn tables_are_github_markdown() {
        let expected = "\
- **scenario**: test
- **runs**: 2 per point

**Mean calls per run over 2 runs**

| clients | none | full |
|---:|---:|---:|
| 10 | 25 | 16 |
| 20 | 90 | 41 |

**Mean time in time units over 2 runs**

| clients | none | full |
|---:|---:|---:|
| 10 | 110 | 400 |
| 20 | 220 | 10000 |

full did the least work.
";
        assert_eq!(render(&fixtures::report()), expected);
    }
}
