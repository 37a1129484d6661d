//! The chart of one or more schedules: per retry, the range of the delay
//! (min to max) as a band, its median, the sampled p50, p90 and p99 when
//! there are samples; and beside it the cumulative worst-case wait. Several
//! schedules share the chart, each in its strategy's color, their bands
//! side by side within each retry. A panel whose values span more than
//! [`LOG_SPAN`] is drawn on a log scale, so that the early retries are not
//! flat against zero.

use std::time::Duration;

use super::{Median, SampledStats, ScheduleReport};
use crate::view::{
    palette_color, Axis, Band, BandBox, Chart, Color, Dash, Layout, Line, Marker, Panel, Point, Scatter,
};

/// How much of the space between two retries the bands of one retry fill.
const BAND_SPAN: f64 = 0.8;

/// The ratio of a panel's largest value to its smallest positive one above
/// which its y axis is logarithmic: past one order of magnitude, the first
/// retries of a linear axis would sit on zero.
pub const LOG_SPAN: f64 = 10.0;

/// A sampled percentile: its name in the legend, its marker, and where it
/// is in a retry's statistics.
type Percentile = (&'static str, Marker, fn(&SampledStats) -> Duration);

/// The sampled percentiles, as markers of their own shape in their
/// strategy's color: the p50's cross shows on the median's dot, where it
/// usually is.
const PERCENTILES: [Percentile; 3] = [
    ("sampled p50", Marker::Cross, |s| s.p50),
    ("sampled p90", Marker::Triangle, |s| s.p90),
    ("sampled p99", Marker::Square, |s| s.p99),
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

/// The chart of `reports`, each in its strategy's color. `None` without a
/// retry to draw.
pub fn chart(reports: &[ScheduleReport]) -> Option<Chart> {
    let retries = reports.iter().map(|r| r.rows.len()).max().unwrap_or(0);
    if retries == 0 {
        return None;
    }
    let several = reports.len() > 1;
    let strategy = |report: &ScheduleReport| report.backoff.strategy().name().to_owned();
    // Several strategies: a legend entry each, its band's, named by the
    // strategy (the title says what the boxes and lines are), rather than
    // two each, which would cover the first retries; its percentiles, if
    // sampled, by the strategy and the percentile.
    let legend = |report: &ScheduleReport| {
        if several {
            (strategy(report), String::new())
        } else {
            ("min to max".to_owned(), "median".to_owned())
        }
    };
    let percentile_name = |report: &ScheduleReport, what: &str| {
        if several {
            format!("{} {what}", strategy(report))
        } else {
            what.to_owned()
        }
    };
    let color = |report: &ScheduleReport| palette_color(report.backoff.strategy().name());
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
    let mut scatters = Vec::new();
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
        let (band, median_name) = legend(report);
        bands.push(Band { name: band, color: color(report), boxes: boxes.collect() });
        let median = report.rows.iter().filter_map(|row| match row.median {
            Median::Exact(d) | Median::Estimated(d) => Some((centre(k, row.retry), unit.of(d))),
            Median::Unknown => None,
        });
        lines.push(Line {
            name: median_name,
            points: median.collect(),
            color: Color::Series(color(report)),
            markers: true,
            dash: Dash::Solid,
        });
        if report.samples.is_some() {
            for (what, marker, of) in PERCENTILES {
                let points = report.rows.iter().filter_map(|row| {
                    let s = row.sampled?;
                    Some(Point { x: centre(k, row.retry), y: unit.of(of(&s)), label: None })
                });
                scatters.push(Scatter {
                    name: percentile_name(report, what),
                    color: Color::Series(color(report)),
                    marker,
                    points: points.collect(),
                });
            }
        }
    }
    let values = bands.iter().flat_map(|b| &b.boxes).flat_map(|b| [b.low, b.high]);
    let y = y_axis(format!("delay in {}", unit.name), values);
    let title = if several { "Delay before each retry: range and median" } else { "Delay before each retry" };
    let delays = Panel { title: title.to_owned(), x: x(), y, lines, shades: Vec::new(), bands, scatters };

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
    let lines = reports
        .iter()
        .zip(&totals)
        .map(|(report, totals)| Line {
            name: strategy(report),
            points: report
                .rows
                .iter()
                .zip(totals)
                .map(|(row, &total)| (f64::from(row.retry), unit.of(total)))
                .collect(),
            color: Color::Series(color(report)),
            markers: true,
            dash: Dash::Solid,
        })
        .collect::<Vec<Line>>();
    let y = y_axis(
        format!("sum of the largest delays in {}", unit.name),
        lines.iter().flat_map(|line| &line.points).map(|&(_, y)| y),
    );
    let mut worst = Panel {
        title: "Worst-case total wait after each retry".to_owned(),
        x: x(),
        y,
        lines,
        shades: Vec::new(),
        bands: Vec::new(),
        scatters: Vec::new(),
    };
    // Strategies with the same largest delays (full, equal) have the same.
    worst.mark_coinciding();
    Some(Chart { layout: Layout::SideBySide, panels: vec![delays, worst] })
}

/// A y axis labelled `label` for `values`: logarithmic when the largest is
/// more than [`LOG_SPAN`] times the smallest positive one.
fn y_axis(label: String, values: impl Iterator<Item = f64>) -> Axis {
    let (low, high) = values
        .filter(|&v| v > 0.0)
        .fold((f64::INFINITY, 0.0_f64), |(low, high), v| (low.min(v), high.max(v)));
    if high > LOG_SPAN * low {
        Axis::log(label)
    } else {
        Axis::linear(label)
    }
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
        let colors = [palette_color("full"), palette_color("equal")];
        assert_eq!(delays.bands.iter().map(|b| b.color).collect::<Vec<_>>(), colors);
        // Listed the other way round, each keeps its color.
        let swapped = super::chart(&[reports[1].clone(), reports[0].clone()]).unwrap();
        assert_eq!(swapped.panels[0].bands[1].color, colors[0]);
        // A legend entry per strategy, its band's; the median has none.
        assert_eq!(delays.bands[1].name, "equal");
        assert_eq!(delays.lines.len(), 2, "a median per strategy");
        assert!(delays.lines.iter().all(|line| line.name.is_empty() && line.dash == Dash::Solid));
        // Per strategy, three sampled percentiles, each its own marker.
        assert_eq!(delays.scatters.len(), 2 * 3);
        let markers: Vec<Marker> = delays.scatters[..3].iter().map(|s| s.marker).collect();
        assert_eq!(markers, [Marker::Cross, Marker::Triangle, Marker::Square]);
        assert_eq!(delays.scatters[3].name, "equal sampled p50");
        assert_eq!(delays.scatters[3].color, Color::Series(colors[1]));
        // Side by side within each retry: full left of equal, no overlap.
        for (a, b) in delays.bands[0].boxes.iter().zip(&delays.bands[1].boxes) {
            assert!(a.to < b.from && b.to - a.from < 1.0, "{a:?} {b:?}");
        }
        // The same largest delays: equal's worst case is drawn on full's.
        let worst = &chart.panels[1];
        assert_eq!(worst.lines[0].points, worst.lines[1].points);
        assert_eq!((worst.lines[1].name.as_str(), worst.lines[1].dash), ("equal (same as full)", Dash::Long));
    }

    #[test]
    fn a_panel_spanning_more_than_ten_times_is_on_a_log_scale() {
        // aws, 4 attempts: delays up to 1, 2 and 4 s (and from 0, which a
        // log scale draws at its bottom): linear.
        let short = chart(&[report(Strategy::Full, None)]).unwrap();
        assert!(!short.panels[0].y.log && !short.panels[1].y.log);
        // 8 attempts: 1 s to 20 s, and a worst case of 1 s to 71 s.
        let backoff =
            Preset::Aws.builder().with_strategy(Strategy::Full).with_max_attempts(8).build().unwrap();
        let long = chart(&[ScheduleQuery::new(backoff).report(0)]).unwrap();
        assert!(long.panels[0].y.log && long.panels[1].y.log);
        assert_eq!(long.panels[0].y.label, "delay in s");
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
