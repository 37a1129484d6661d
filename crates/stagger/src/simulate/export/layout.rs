//! What the table and Markdown exporters both show: one grid per measure,
//! with the x values down and the series across, and its caption.

use crate::output::Grid;
use crate::simulate::report::{Measure, SimulationReport};

/// The caption of `measure`'s grid: `Mean calls per run over 100 runs`.
pub fn caption(report: &SimulationReport, measure: &Measure) -> String {
    match report.runs() {
        Some(1) => format!("Mean {} over 1 run", measure.label),
        Some(runs) => format!("Mean {} over {runs} runs", measure.label),
        None => format!("Mean {}", measure.label),
    }
}

/// The means of measure number `index`: a row per x value, a column per
/// series, rounded to whole numbers (CSV and JSON keep every digit). A
/// missing point is a blank cell.
pub fn grid(report: &SimulationReport, index: usize) -> Grid {
    let series = report.series_names();
    let mut grid = Grid::new(std::iter::once(report.x).chain(series.iter().copied()));
    for x in report.xs() {
        let means = series.iter().map(|name| {
            report.point(x, name).map_or_else(String::new, |point| format!("{:.0}", point.values[index].mean))
        });
        grid.push(std::iter::once(x.to_string()).chain(means).collect());
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::report::fixtures;

    #[test]
    fn one_row_per_x_and_one_column_per_series() {
        let report = fixtures::report();
        let expected = "\
clients  none  full
     10    25    16
     20    90    41
";
        assert_eq!(grid(&report, 0).to_text(), expected);
        assert!(grid(&report, 1).to_text().ends_with("     20   220  10000\n"));
        assert_eq!(caption(&report, &report.measures[1]), "Mean time in time units over 2 runs");
    }

    #[test]
    fn missing_points_are_blank() {
        let mut report = fixtures::report();
        report.points.remove(3);
        assert!(grid(&report, 0).to_text().ends_with("     20    90      \n"));
        report.points[0].runs = 3;
        assert_eq!(caption(&report, &report.measures[0]), "Mean calls per run");
    }
}
