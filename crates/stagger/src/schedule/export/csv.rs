//! The sampled delays as CSV: `sample,retry,delay_ms`, one row per delay.

use std::fmt::Write;

use crate::duration::millis_3;
use crate::schedule::report::ScheduleReport;

/// The header, then for each sample (from 1) and retry (from 1) the delay in
/// milliseconds with three decimals. No samples gives the header alone.
pub fn render(report: &ScheduleReport) -> String {
    let mut text = String::from("sample,retry,delay_ms\n");
    for (sample, delays) in report.samples.iter().flat_map(|s| s.sequences()).enumerate() {
        for (retry, &delay) in delays.iter().enumerate() {
            // Writing to a String cannot fail.
            let _ = writeln!(text, "{},{},{}", sample + 1, retry + 1, millis_3(delay));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::fixtures;
    use super::*;
    use crate::schedule::sampling::Samples;

    #[test]
    fn one_row_per_delay_numbered_from_one() {
        let mut report = fixtures::aws_sampled();
        let ms = Duration::from_millis;
        report.samples = Some(Samples::from_sequences(
            1,
            true,
            &[vec![ms(1), Duration::from_nanos(1_234_567_891)], vec![Duration::ZERO, ms(2000)]],
        ));
        let expected = "\
sample,retry,delay_ms
1,1,1.000
1,2,1234.568
2,1,0.000
2,2,2000.000
";
        assert_eq!(render(&report), expected);
    }

    #[test]
    fn real_samples_stay_within_bounds() {
        let report = fixtures::aws_sampled();
        let text = render(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 3 * 2);
        for line in &lines[1..] {
            let cells: Vec<&str> = line.split(',').collect();
            let retry: usize = cells[1].parse().unwrap();
            let delay: f64 = cells[2].parse().unwrap();
            let row = report.rows[retry - 1];
            assert!(delay <= row.max.as_secs_f64() * 1e3, "{line}");
        }
    }

    #[test]
    fn no_samples_is_just_the_header() {
        assert_eq!(render(&fixtures::google()), "sample,retry,delay_ms\n");
    }
}
