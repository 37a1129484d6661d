//! The report as an SVG chart: one panel per measure side by side, the
//! measure's mean against the x value, one line per series, with a legend.
//! Its sizes, fonts and palette are the style of every chart of
//! `stagger simulate` (the overload scenario's time series reuse them).
//!
//! plotters draws it with its SVG backend alone: text is written as SVG
//! `<text>` for the viewer to set, and laid out with plotters' built-in
//! estimate of text widths, so no font file or font library is read and the
//! same report gives the same bytes on every machine.

use anyhow::anyhow;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::simulate::report::SimulationReport;

/// The chart's size in pixels: two panels side by side.
pub const SIZE: (u32, u32) = (1200, 520);

/// The margin around each panel, in pixels.
pub(super) const MARGIN: u32 = 16;
/// The height of a panel's x tick labels and axis label, in pixels.
pub(super) const X_LABEL_AREA: u32 = 48;
/// The width of a panel's y tick labels and axis label, in pixels.
pub(super) const Y_LABEL_AREA: u32 = 72;
/// The font size of a panel's title.
pub(super) const CAPTION_FONT: u32 = 24;

/// The font size of tick labels and legend entries.
pub(super) const LABEL_FONT: u32 = 14;

/// The series' colors, in the order of the report's series (Tableau 10),
/// repeating past ten.
pub(super) const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The SVG document of `report`'s chart.
///
/// # Errors
/// If plotters fails to lay the chart out, which a report with points does
/// not make it do.
pub fn render(report: &SimulationReport) -> anyhow::Result<String> {
    if report.points.is_empty() {
        return Err(anyhow!("nothing to plot: the report has no points"));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let panels = root.split_evenly((1, report.measures.len().max(1)));
        for (index, area) in panels.iter().enumerate().take(report.measures.len()) {
            let y = YAxis::of(report, index);
            if y.log {
                panel(area, report, index, (y.low..y.high).log_scale(), &y)?;
            } else {
                panel(area, report, index, y.low..y.high, &y)?;
            }
        }
        root.present()?;
    }
    Ok(svg)
}

/// The y axis of one panel.
#[derive(Debug, Clone, Copy, PartialEq)]
struct YAxis {
    low: f64,
    high: f64,
    log: bool,
}

impl YAxis {
    /// From 0 (or, on a log scale, half the smallest mean) to a little above
    /// the largest mean of measure `index`.
    fn of(report: &SimulationReport, index: usize) -> Self {
        let means = report.points.iter().map(|point| point.values[index].mean);
        let log = report.measures[index].log_scale;
        // Positive for a log scale, and a range that is not empty.
        let low = means.clone().fold(f64::INFINITY, f64::min).max(1.0);
        let high = means.fold(f64::NEG_INFINITY, f64::max).max(low * 2.0);
        if log {
            YAxis { low: low / 2.0, high: high * 1.25, log }
        } else {
            YAxis { low: 0.0, high: high * 1.05, log }
        }
    }

    /// Where `y` sits between the bottom (0) and the top (1).
    fn fraction(&self, y: f64) -> f64 {
        if self.log {
            (y.max(self.low) / self.low).ln() / (self.high / self.low).ln()
        } else {
            (y - self.low) / (self.high - self.low)
        }
    }
}

/// The x range: the smallest to the largest x, widened around a single one.
fn x_range(report: &SimulationReport) -> std::ops::Range<f64> {
    let xs = report.xs();
    let low = f64::from(xs.iter().copied().min().unwrap_or(0));
    let high = f64::from(xs.iter().copied().max().unwrap_or(1));
    if high > low {
        low..high
    } else {
        (low - 1.0).max(0.0)..high + 1.0
    }
}

/// Draws measure `index` in `area` with `y_range` (built from `y`): axes,
/// one line with markers per series, and the legend.
fn panel<Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    report: &SimulationReport,
    index: usize,
    y_range: Y,
    y: &YAxis,
) -> anyhow::Result<()>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let measure = &report.measures[index];
    let y_desc = format!("mean {}{}", measure.label, if y.log { " (log scale)" } else { "" });
    let x = x_range(report);
    let mut chart = ChartBuilder::on(area)
        .caption(measure.title, ("sans-serif", CAPTION_FONT))
        .margin(MARGIN)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x.clone(), y_range)?;
    chart
        .configure_mesh()
        .x_desc(report.x_label)
        .y_desc(y_desc)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", LABEL_FONT))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let names = report.series_names();
    let lines: Vec<Vec<(f64, f64)>> = names
        .iter()
        .map(|name| {
            let points = report.points.iter().filter(|point| point.series == *name);
            points.map(|point| (f64::from(point.x), point.values[index].mean)).collect()
        })
        .collect();
    for (i, (name, points)) in names.iter().zip(&lines).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], color.stroke_width(2)));
        chart.draw_series(points.iter().map(|&point| Circle::new(point, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(legend_corner(&lines, &x, y, legend_box(&names, report.measures.len())))
        .label_font(("sans-serif", LABEL_FONT))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}

/// About how much of the plotting area of one of `panels` panels the legend
/// of `names` covers, as fractions of its width and height. plotters
/// estimates a character as 0.56 of the font size wide; the rest is its
/// padding and the sample line.
fn legend_box(names: &[&str], panels: usize) -> (f64, f64) {
    let font = f64::from(LABEL_FONT);
    let longest = names.iter().map(|name| name.chars().count()).max().unwrap_or(0) as f64;
    let width = 64.0 + 0.56 * font * longest;
    let height = 10.0 + 1.3 * font * names.len() as f64;
    let panel_width = f64::from(SIZE.0) / panels.max(1) as f64;
    let plot_width = panel_width - f64::from(2 * MARGIN + Y_LABEL_AREA);
    let plot_height = f64::from(SIZE.1 - 2 * MARGIN - X_LABEL_AREA - CAPTION_FONT) - 6.0;
    (width / plot_width, height / plot_height)
}

/// The corner of the plotting area where a legend of `size` (fractions of
/// the area) covers the fewest samples of the lines; the first of upper
/// left, upper right, lower right, lower left on a tie.
fn legend_corner(
    lines: &[Vec<(f64, f64)>],
    x: &std::ops::Range<f64>,
    y: &YAxis,
    size: (f64, f64),
) -> SeriesLabelPosition {
    const SAMPLES_PER_SEGMENT: u32 = 16;
    let to_fraction = |(px, py): (f64, f64)| ((px - x.start) / (x.end - x.start), y.fraction(py));
    let mut samples = Vec::new();
    for line in lines {
        let fractions: Vec<(f64, f64)> = line.iter().copied().map(to_fraction).collect();
        samples.extend(fractions.iter().copied());
        for pair in fractions.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            samples.extend((1..SAMPLES_PER_SEGMENT).map(|i| {
                let t = f64::from(i) / f64::from(SAMPLES_PER_SEGMENT);
                (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
            }));
        }
    }
    let (w, h) = size;
    let corners = [
        (SeriesLabelPosition::UpperLeft, 0.0..=w, 1.0 - h..=1.0),
        (SeriesLabelPosition::UpperRight, 1.0 - w..=1.0, 1.0 - h..=1.0),
        (SeriesLabelPosition::LowerRight, 1.0 - w..=1.0, 0.0..=h),
        (SeriesLabelPosition::LowerLeft, 0.0..=w, 0.0..=h),
    ];
    // `min_by_key` keeps the first of equal minima.
    let best = corners.into_iter().min_by_key(|(_, xs, ys)| {
        samples.iter().filter(|(sx, sy)| xs.contains(sx) && ys.contains(sy)).count()
    });
    best.map_or(SeriesLabelPosition::UpperLeft, |(corner, _, _)| corner)
}

#[cfg(test)]
trait Hex {
    fn to_hex(&self) -> String;
}

#[cfg(test)]
impl Hex for RGBColor {
    /// `#4E79A7`, as the SVG backend writes colors.
    fn to_hex(&self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::report::fixtures;

    /// Whether `svg` has a `<text>` element of exactly `text`.
    fn has_text(svg: &str, text: &str) -> bool {
        svg.contains(&format!(">\n{text}\n</text>"))
    }

    #[test]
    fn two_titled_panels_with_a_line_per_series() {
        let report = fixtures::report();
        let svg = render(&report).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(&format!("width=\"{}\" height=\"{}\"", SIZE.0, SIZE.1)));
        for text in
            ["Calls", "Time", "clients (N)", "mean calls per run", "mean time in time units (log scale)"]
        {
            assert!(has_text(&svg, text), "{text} missing");
        }
        // A line per series in each panel, and a legend entry per series in each.
        for color in &PALETTE[..2] {
            let stroke = format!("stroke=\"{}\" stroke-width=\"2\"", color.to_hex());
            assert_eq!(svg.matches(&format!("<polyline fill=\"none\" opacity=\"1\" {stroke}")).count(), 4);
        }
        assert!(!svg.contains(&PALETTE[2].to_hex()), "only two series");
        assert_eq!(svg.matches("<circle").count(), 2 * report.points.len());
        for name in ["none", "full"] {
            assert_eq!(svg.matches(&format!(">\n{name}\n</text>")).count(), 2, "{name} in both legends");
        }
        assert_eq!(render(&report).unwrap(), svg, "the same report gives the same bytes");
    }

    #[test]
    fn a_single_point_still_plots() {
        let mut report = fixtures::report();
        report.points.truncate(1);
        let svg = render(&report).unwrap();
        assert_eq!(svg.matches("<circle").count(), 2);
        report.points.clear();
        assert!(render(&report).is_err());
    }

    #[test]
    fn log_axes_place_values_by_their_logarithm() {
        let y = YAxis::of(&fixtures::report(), 1);
        assert_eq!((y.low, y.high, y.log), (55.0, 12_500.0, true));
        assert!((y.fraction(y.low)).abs() < 1e-12 && (y.fraction(y.high) - 1.0).abs() < 1e-12);
        assert!((y.fraction((y.low * y.high).sqrt()) - 0.5).abs() < 1e-12);
        let calls = YAxis::of(&fixtures::report(), 0);
        assert_eq!((calls.low, calls.high), (0.0, 90.0 * 1.05));
    }

    #[test]
    fn the_legend_goes_where_the_lines_are_not() {
        let linear = YAxis { low: 0.0, high: 1.0, log: false };
        let x = 0.0..1.0;
        let size = (0.3, 0.3);
        let rising = vec![vec![(0.0, 0.0), (1.0, 1.0)], vec![(0.0, 0.1), (1.0, 0.9)]];
        assert_eq!(legend_corner(&rising, &x, &linear, size), SeriesLabelPosition::UpperLeft);
        let falling = vec![vec![(0.0, 1.0), (1.0, 0.0)]];
        assert_eq!(legend_corner(&falling, &x, &linear, size), SeriesLabelPosition::UpperRight);
        let high = vec![vec![(0.0, 0.9), (1.0, 0.95)], vec![(0.0, 0.05), (0.5, 0.1)]];
        assert_eq!(legend_corner(&high, &x, &linear, size), SeriesLabelPosition::LowerRight);
        let (w, h) = legend_box(&["none", "decorrelated"], 2);
        assert!((0.2..0.4).contains(&w) && (0.05..0.2).contains(&h), "{w} x {h}");
    }
}
