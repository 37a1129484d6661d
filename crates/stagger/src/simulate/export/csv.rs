//! The report as CSV: a header, then one row per point.

use std::fmt::Write;

use crate::simulate::report::SimulationReport;

/// The statistics of each measure, in column order, with the prefix of
/// their column names.
pub const STATISTICS: [&str; 4] = ["mean", "sd", "min", "max"];

/// The column names: the x key, the series key, `runs`, then `mean_KEY`,
/// `sd_KEY`, `min_KEY` and `max_KEY` for each measure.
pub fn columns(report: &SimulationReport) -> Vec<String> {
    let mut columns = vec![report.x.to_owned(), report.series.to_owned(), "runs".to_owned()];
    for measure in &report.measures {
        columns.extend(STATISTICS.map(|stat| format!("{stat}_{}", measure.key)));
    }
    columns
}

/// The header, then a row per point in the report's order (x major). Numbers
/// are written in full, as the shortest decimal that reads back as the same
/// `f64`; `sd` is the sample standard deviation over the runs (0 for one
/// run). Series names are plain words and need no quoting.
pub fn render(report: &SimulationReport) -> String {
    let mut text = columns(report).join(",");
    text.push('\n');
    for point in &report.points {
        // Writing to a String cannot fail.
        let _ = write!(text, "{},{},{}", point.x, point.series, point.runs);
        for s in &point.values {
            let _ = write!(text, ",{},{},{},{}", s.mean, s.std_dev, s.min, s.max);
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::report::fixtures;

    #[test]
    fn header_and_one_row_per_point() {
        let text = render(&fixtures::report());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "clients,strategy,runs,mean_calls,sd_calls,min_calls,max_calls,mean_time,sd_time,min_time,max_time"
        );
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[1], format!("10,none,2,25,{},20,30,110,{},100,120", 50f64.sqrt(), 200f64.sqrt()));
        assert!(lines[4].starts_with("20,full,2,40.75,0.3535533905932738,40.5,41,10000,"), "{}", lines[4]);
        assert!(lines.iter().all(|line| line.split(',').count() == 11));
    }
}
