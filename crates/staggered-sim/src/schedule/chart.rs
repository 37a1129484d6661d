//! The chart of one or more schedules: per retry, the range of the delay
//! (min to max) as a band, its median, the sampled p50, p90 and p99 when
//! there are samples; and beside it the cumulative worst-case wait. Several
//! schedules share the chart, each in its own color, their bands side by
//! side within each retry.

use std::time::Duration;

use super::{Median, SampledStats, ScheduleReport};
use crate::view::{Axis, Band, BandBox, Chart, Color, Dash, Layout, Line, Panel};

/// How much of the space between two retries the bands of one retry fill.
const BAND_SPAN: f64 = 0.8;

/// A sampled percentile: its name in the legend, its pattern, and where it
/// is in a retry's statistics.
type Percentile = (&'static str, Dash, fn(&SampledStats) -> Duration);

/// The sampled percentiles, each dashed its own way in its strategy's color.
const PERCENTILES: [Percentile; 3] = [
    ("sampled p50", Dash::Long, |s| s.p50),
    ("sampled p90", Dash::Short, |s| s.p90),
    ("sampled p99", Dash::Dotted, |s| s.p99),
];

/// A unit to plot durations in: seconds, or milliseconds when every value
/// is under a second, so the ticks read `250` rather than `0.25`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Unit {
    name: &'static str,
    nanos: f64,
}

impl Unit {
    /// The unit for values up to `max`.
    fn up_to(max: Duration) -> Unit {
        if max >= Duration::from_secs(1) {
            Unit { name: "s", nanos: 1e9 }
        } else {
            Unit { name: "ms", nanos: 1e6 }
        }
    }

    fn of(self, d: Duration) -> f64 {
        d.as_nanos() as f64 / self.nanos
    }
}

/// The chart of `reports`, one color per report. `None` without a retry
/// to draw.
pub fn chart(reports: &[ScheduleReport]) -> Option<Chart> {
    let retries = reports.iter().map(|r| r.rows.len()).max().unwrap_or(0);
    if retries == 0 {
        return None;
    }
    let several = reports.len() > 1;
    let name = |report: &ScheduleReport, what: &str| {
        if several {
            format!("{} {what}", report.backoff.strategy())
        } else {
            what.to_owned()
        }
    };
    let x = || {
        Axis::linear("retry r (the wait after attempt r fails)").integers().over(0.5, retries as f64 + 0.5)
    };
    let width = BAND_SPAN / reports.len() as f64;
    // The centre of report k's box in retry r, and its edges (a tenth of a
    // box apart from its neighbours).
    let centre = |k: usize, retry: u32| f64::from(retry) - BAND_SPAN / 2.0 + (k as f64 + 0.5) * width;

    let largest = reports
        .iter()
        .flat_map(|r| &r.rows)
        .map(|row| row.max.max(row.sampled.map_or(Duration::ZERO, |s| s.p99)))
        .max()
        .unwrap_or_default();
    let unit = Unit::up_to(largest);
    let mut bands = Vec::new();
    let mut lines = Vec::new();
    for (k, report) in reports.iter().enumerate() {
        let boxes = report.rows.iter().map(|row| {
            let middle = centre(k, row.retry);
            BandBox {
                from: middle - 0.45 * width,
                to: middle + 0.45 * width,
                low: unit.of(row.min),
                high: unit.of(row.max),
            }
        });
        bands.push(Band { name: name(report, "min to max"), color: k, boxes: boxes.collect() });
        let median = report.rows.iter().filter_map(|row| match row.median {
            Median::Exact(d) | Median::Estimated(d) => Some((centre(k, row.retry), unit.of(d))),
            Median::Unknown => None,
        });
        lines.push(Line {
            name: name(report, "median"),
            points: median.collect(),
            color: Color::Series(k),
            markers: true,
            dash: Dash::Solid,
        });
        if report.samples.is_some() {
            for (what, dash, of) in PERCENTILES {
                let points = report
                    .rows
                    .iter()
                    .filter_map(|row| row.sampled.map(|s| (centre(k, row.retry), unit.of(of(&s)))));
                lines.push(Line {
                    name: name(report, what),
                    points: points.collect(),
                    color: Color::Series(k),
                    markers: false,
                    dash,
                });
            }
        }
    }
    let delays = Panel {
        title: "Delay before each retry".to_owned(),
        x: x(),
        y: Axis::linear(format!("delay in {}", unit.name)),
        lines,
        shades: Vec::new(),
        bands,
        scatters: Vec::new(),
    };

    let totals: Vec<Vec<Duration>> = reports
        .iter()
        .map(|report| {
            report
                .rows
                .iter()
                .scan(Duration::ZERO, |total, row| {
                    *total = total.saturating_add(row.max);
                    Some(*total)
                })
                .collect()
        })
        .collect();
    let unit = Unit::up_to(totals.iter().flatten().copied().max().unwrap_or_default());
    let lines = reports.iter().zip(&totals).enumerate().map(|(k, (report, totals))| Line {
        name: report.backoff.strategy().name().to_owned(),
        points: report
            .rows
            .iter()
            .zip(totals)
            .map(|(row, &total)| (f64::from(row.retry), unit.of(total)))
            .collect(),
        color: Color::Series(k),
        markers: true,
        dash: Dash::Solid,
    });
    let worst = Panel {
        title: "Worst-case total wait after each retry".to_owned(),
        x: x(),
        y: Axis::linear(format!("sum of the largest delays in {}", unit.name)),
        lines: lines.collect(),
        shades: Vec::new(),
        bands: Vec::new(),
        scatters: Vec::new(),
    };
    Some(Chart { layout: Layout::SideBySide, panels: vec![delays, worst] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScheduleQuery;
    use staggered::{Backoff, Preset, Strategy};

    fn report(strategy: Strategy, samples: Option<u32>) -> ScheduleReport {
        let backoff = Preset::Aws.builder().with_strategy(strategy).with_max_attempts(4).build().unwrap();
        let query = ScheduleQuery::new(backoff);
        let query = match samples {
            Some(n) => query.with_sampling(n, Some(1)).unwrap(),
            None => query,
        };
        query.report(0)
    }

    #[test]
    fn one_schedule_a_band_per_retry_its_median_and_the_worst_case() {
        let chart = chart(&[report(Strategy::Full, None)]).unwrap();
        assert_eq!(chart.layout, Layout::SideBySide);
        let [delays, worst] = &chart.panels[..] else { panic!("two panels") };
        assert_eq!(delays.bands.len(), 1);
        // aws: 1 s, 2 s, 4 s ceilings, full jitter from 0: seconds.
        let boxes: Vec<(f64, f64)> = delays.bands[0].boxes.iter().map(|b| (b.low, b.high)).collect();
        assert_eq!(boxes, [(0.0, 1.0), (0.0, 2.0), (0.0, 4.0)]);
        let centres: Vec<f64> = delays.bands[0].boxes.iter().map(|b| (b.from + b.to) / 2.0).collect();
        assert_eq!(centres, [1.0, 2.0, 3.0], "one box per retry, centred on it");
        assert_eq!(delays.lines.len(), 1, "no samples: the median alone");
        assert_eq!(delays.lines[0].points, [(1.0, 0.5), (2.0, 1.0), (3.0, 2.0)]);
        assert_eq!(delays.y.label, "delay in s");
        assert_eq!(worst.lines[0].points, [(1.0, 1.0), (2.0, 3.0), (3.0, 7.0)]);
        assert_eq!(worst.lines[0].name, "full");
        assert!(delays.x.integers && delays.x.range == Some((0.5, 3.5)));
    }

    #[test]
    fn several_schedules_each_in_a_color_with_sampled_percentiles() {
        let reports = [report(Strategy::Full, Some(50)), report(Strategy::Equal, Some(50))];
        let chart = chart(&reports).unwrap();
        let delays = &chart.panels[0];
        assert_eq!(delays.bands.iter().map(|b| b.color).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(delays.bands[1].name, "equal min to max");
        // Per strategy: the median and three sampled percentiles, dashed.
        assert_eq!(delays.lines.len(), 2 * 4);
        let dashes: Vec<Dash> = delays.lines[..4].iter().map(|l| l.dash).collect();
        assert_eq!(dashes, [Dash::Solid, Dash::Long, Dash::Short, Dash::Dotted]);
        assert_eq!(delays.lines[5].name, "equal sampled p50");
        // Side by side within each retry: full left of equal, no overlap.
        for (a, b) in delays.bands[0].boxes.iter().zip(&delays.bands[1].boxes) {
            assert!(a.to < b.from && b.to - a.from < 1.0, "{a:?} {b:?}");
        }
        assert_eq!(chart.panels[1].lines.len(), 2);
    }

    #[test]
    fn short_delays_are_in_milliseconds_and_no_retry_is_no_chart() {
        let backoff = Backoff::builder(Strategy::Constant)
            .with_base(Duration::from_millis(250))
            .with_max_attempts(3)
            .build()
            .unwrap();
        let chart = chart(&[ScheduleQuery::new(backoff).report(0)]).unwrap();
        assert_eq!(chart.panels[0].y.label, "delay in ms");
        assert_eq!(chart.panels[0].lines[0].points[0].1, 250.0);
        assert_eq!(chart.panels[1].y.label, "sum of the largest delays in ms");
        let single = Backoff::builder(Strategy::Full).with_max_attempts(1).build().unwrap();
        assert_eq!(super::chart(&[ScheduleQuery::new(single).report(0)]), None);
    }
}
