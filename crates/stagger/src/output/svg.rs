//! The one chart renderer: a [`Chart`] as an SVG document, for every
//! command's `--plot`.
//!
//! plotters draws it with its SVG backend alone: text is written as SVG
//! `<text>` for the viewer to set, and laid out with plotters' built-in
//! estimate of text widths, so no font file or font library is read and the
//! same chart gives the same bytes on every machine.

use std::ops::Range;

use anyhow::anyhow;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::element::{DashedPathElement, DynElement};
use plotters::prelude::*;
use staggered_sim::view::{Band, BandBox, Chart, Color as Tone, Dash, Layout, Marker, Panel, PALETTE_LEN};

use super::axis::{log_ticks, range, tick};
use super::band::{outline, runs};
use super::legend::{corner, legend_box, strip};

/// The chart's width in pixels.
pub const WIDTH: u32 = 1200;
/// The height of side-by-side panels.
pub const ROW_HEIGHT: u32 = 520;
/// The height of each stacked panel, and of the legend strip above them.
pub const PANEL_HEIGHT: u32 = 200;
/// The height of the legend strip above stacked panels.
pub const LEGEND_HEIGHT: u32 = 40;

/// The margin around each panel, in pixels.
pub const MARGIN: u32 = 16;
/// The width of a panel's y tick labels and axis label, in pixels.
pub const Y_LABEL_AREA: u32 = 72;
/// The font size of tick labels and legend entries.
pub const LABEL_FONT: u32 = 14;
/// How opaque a shaded span is.
pub const SHADE_OPACITY: f64 = 0.18;
/// The radius of a marker, and of a labelled point, in pixels.
const MARKER: u32 = 3;
const LABELLED_MARKER: u32 = 5;
/// How opaque a band's boxes are: light enough for the lines over them.
pub const BAND_OPACITY: f64 = 0.3;

/// The series' colors, in order (Tableau 10), repeating past ten; the
/// simulator names each strategy's and policy's by its place here.
pub const PALETTE: [RGBColor; PALETTE_LEN] = [
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

/// How a layout sizes its panels: the title's font, the margin and the
/// height of the x labels.
struct Style {
    title_font: u32,
    margin: u32,
    x_label_area: u32,
}

/// The SVG document of `chart`.
///
/// # Errors
/// For a chart without panels, or if plotters cannot lay it out.
pub fn render(chart: &Chart) -> anyhow::Result<String> {
    let n = chart.panels.len();
    let empty = |panel: &Panel| {
        panel.lines.iter().all(|line| line.points.is_empty())
            && panel.bands.iter().all(|b| b.boxes.is_empty())
            && panel.scatters.iter().all(|s| s.points.is_empty())
    };
    if n == 0 || chart.panels.iter().all(empty) {
        return Err(anyhow!("nothing to plot: the chart has no points"));
    }
    let mut svg = String::new();
    {
        let size = match chart.layout {
            Layout::SideBySide => (WIDTH, ROW_HEIGHT),
            Layout::Stacked => (WIDTH, LEGEND_HEIGHT + PANEL_HEIGHT * n as u32),
            Layout::Grid { columns } => (WIDTH, ROW_HEIGHT * grid_rows(n, columns) as u32),
        };
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        match chart.layout {
            Layout::SideBySide => {
                let style = Style { title_font: 24, margin: MARGIN, x_label_area: 48 };
                for (area, panel) in root.split_evenly((1, n)).iter().zip(&chart.panels) {
                    draw(area, panel, &style, Some(n), true)?;
                }
            }
            Layout::Stacked => {
                let (legend, body) = root.split_vertically(LEGEND_HEIGHT);
                strip(&legend, &chart.panels)?;
                let style = Style { title_font: 18, margin: MARGIN / 2, x_label_area: 40 };
                for (i, (area, panel)) in body.split_evenly((n, 1)).iter().zip(&chart.panels).enumerate() {
                    draw(area, panel, &style, None, i + 1 == n)?;
                }
            }
            Layout::Grid { columns } => {
                let columns = columns.clamp(1, n);
                let style = Style { title_font: 20, margin: MARGIN, x_label_area: 48 };
                let cells = root.split_evenly((grid_rows(n, columns), columns));
                for (area, panel) in cells.iter().zip(&chart.panels) {
                    draw(area, panel, &style, Some(columns), true)?;
                }
            }
        }
        root.present()?;
    }
    Ok(svg)
}

/// The rows of a grid of `panels` panels, `columns` to a row.
fn grid_rows(panels: usize, columns: usize) -> usize {
    panels.div_ceil(columns.clamp(1, panels.max(1)))
}

/// A line's stroke: its palette color, or the thin grey of a reference.
pub fn stroke(color: Tone) -> ShapeStyle {
    match color {
        Tone::Series(i) => PALETTE[i % PALETTE.len()].stroke_width(2),
        Tone::Reference => BLACK.mix(0.5).stroke_width(1),
    }
}

/// A marker's fill, in its line's or scatter's color.
pub fn fill(color: Tone) -> ShapeStyle {
    ShapeStyle { filled: true, stroke_width: 1, ..stroke(color) }
}

/// A marker of `shape` at the pixel `at`, in `color`: a dot of radius
/// [`MARKER`], or a cross, triangle or open square a little larger, so that
/// one drawn on a dot still shows around it. On a chart, it is drawn at a
/// point as `EmptyElement::at(point) + marker(shape, (0, 0), color)`.
pub fn marker<DB: DrawingBackend>(
    shape: Marker,
    at: (i32, i32),
    color: Tone,
) -> DynElement<'static, DB, (i32, i32)> {
    let r = MARKER as i32;
    let line = ShapeStyle { filled: false, stroke_width: 2, ..stroke(color) };
    match shape {
        Marker::Circle => Circle::new(at, MARKER, fill(color)).into_dyn(),
        Marker::Cross => Cross::new(at, r + 2, line).into_dyn(),
        Marker::Triangle => TriangleMarker::new(at, r + 3, fill(color)).into_dyn(),
        Marker::Square => {
            Rectangle::new([(at.0 - r - 1, at.1 - r - 1), (at.0 + r + 1, at.1 + r + 1)], line).into_dyn()
        }
    }
}

/// A dashed pattern's dash and gap, in pixels; `None` for a solid line.
pub fn dashes(dash: Dash) -> Option<(u32, u32)> {
    match dash {
        Dash::Solid => None,
        Dash::Long => Some((10, 5)),
        Dash::Short => Some((4, 4)),
        Dash::Dotted => Some((2, 3)),
    }
}

/// A band's fill, and the stroke around each of its boxes.
pub fn band_style(band: &Band) -> (ShapeStyle, ShapeStyle) {
    let color = PALETTE[band.color % PALETTE.len()];
    (color.mix(BAND_OPACITY).filled(), color.mix(0.6).stroke_width(1))
}

/// Draws `panel` in `area`: axes, shades, lines, scattered points and,
/// with `legend` (the number of panels side by side), a legend in its
/// emptiest corner.
fn draw(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel,
    style: &Style,
    legend: Option<usize>,
    x_label: bool,
) -> anyhow::Result<()> {
    let scattered = || panel.scatters.iter().flat_map(|s| &s.points).map(|p| (p.x, p.y));
    let points = || panel.lines.iter().flat_map(|line| line.points.iter().copied()).chain(scattered());
    let boxes = || panel.bands.iter().flat_map(|band| band.boxes.iter());
    let xs = points().map(|p| p.0).chain(boxes().flat_map(|b| [b.from, b.to]));
    let ys = points().map(|p| p.1).chain(boxes().flat_map(|b| [b.low, b.high]));
    let x = range(&panel.x, xs, false);
    let y = range(&panel.y, ys, true);
    if panel.y.log {
        let coord = (y.start..y.end).log_scale().with_key_points(log_ticks(&y));
        plot(area, panel, style, (x, y.clone(), coord), legend, x_label)
    } else {
        plot(area, panel, style, (x, y.clone(), y), legend, x_label)
    }
}

/// [`draw`] on a y scale of type `Y`.
fn plot<Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel,
    style: &Style,
    (x, y, y_coord): (Range<f64>, Range<f64>, Y),
    legend: Option<usize>,
    x_label: bool,
) -> anyhow::Result<()>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let y_desc = format!("{}{}", panel.y.label, if panel.y.log { " (log scale)" } else { "" });
    // A log scale has no 0: a value at or below its bottom (a delay of 0,
    // a box from 0) is drawn at the bottom.
    let fit = |(px, py): (f64, f64)| (px, if panel.y.log { py.max(y.start) } else { py });
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", style.title_font))
        .margin(style.margin)
        .margin_right(MARGIN)
        .x_label_area_size(style.x_label_area)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x.clone(), y_coord)?;
    chart
        .configure_mesh()
        .x_desc(if x_label { panel.x.label.as_str() } else { "" })
        .y_desc(y_desc)
        .x_label_formatter(&|value| tick(&panel.x, &x, *value))
        .y_label_formatter(&|value| tick(&panel.y, &y, *value))
        .y_labels(if legend.is_some() { 10 } else { 5 })
        .label_style(("sans-serif", LABEL_FONT))
        .axis_desc_style(("sans-serif", LABEL_FONT + 2))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for shade in &panel.shades {
        let color = PALETTE[shade.color % PALETTE.len()].mix(SHADE_OPACITY).filled();
        chart.draw_series(std::iter::once(Rectangle::new(
            [(shade.from, y.start), (shade.to, y.end)],
            color,
        )))?;
    }
    for band in &panel.bands {
        let (fill, edge) = band_style(band);
        // A box alone is a rectangle; touching boxes are one area.
        let runs = runs(&band.boxes);
        let area = |run: &[BandBox]| outline(run).into_iter().map(fit).collect::<Vec<_>>();
        let corners = |b: &BandBox| [fit((b.from, b.low)), fit((b.to, b.high))];
        let series = chart.draw_series(runs.iter().map(|run| match run {
            [b] => Rectangle::new(corners(b), fill).into_dyn(),
            _ => Polygon::new(area(run), fill).into_dyn(),
        }))?;
        if legend.is_some() && !band.name.is_empty() {
            series
                .label(&band.name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 24, y + 6)], fill));
        }
        chart.draw_series(runs.iter().map(|run| match run {
            [b] => Rectangle::new(corners(b), edge).into_dyn(),
            _ => {
                let mut closed = area(run);
                closed.push(closed[0]);
                PathElement::new(closed, edge).into_dyn()
            }
        }))?;
    }
    for line in &panel.lines {
        let stroke = stroke(line.color);
        let points = line.points.iter().copied().map(fit);
        let series = match dashes(line.dash) {
            None => chart.draw_series(LineSeries::new(points, stroke))?,
            Some((dash, gap)) => chart.draw_series(DashedLineSeries::new(points, dash, gap, stroke))?,
        };
        if legend.is_some() && !line.name.is_empty() {
            let dash = dashes(line.dash);
            series.label(&line.name).legend(move |(x, y)| match dash {
                None => PathElement::new([(x, y), (x + 24, y)], stroke).into_dyn(),
                Some((dash, gap)) => {
                    DashedPathElement::new([(x, y), (x + 24, y)], dash, gap, stroke).into_dyn()
                }
            });
        }
        if line.markers {
            let fill = fill(line.color);
            chart.draw_series(line.points.iter().map(|&point| Circle::new(fit(point), MARKER, fill)))?;
        }
    }
    for scatter in &panel.scatters {
        let (fill, shape, color) = (fill(scatter.color), scatter.marker, scatter.color);
        let plain = scatter.points.iter().filter(|p| p.label.is_none());
        let at =
            |p: &staggered_sim::view::Point| EmptyElement::at(fit((p.x, p.y))) + marker(shape, (0, 0), color);
        let series = chart.draw_series(plain.map(at))?;
        if legend.is_some() && !scatter.name.is_empty() {
            series.label(&scatter.name).legend(move |(x, y)| marker(shape, (x + 12, y), color));
        }
        // A labelled point: a larger marker, its label above and to the right.
        let font = ("sans-serif", LABEL_FONT).into_font();
        let offset = (LABELLED_MARKER as i32 + 3, -(LABEL_FONT as i32) - 2);
        chart.draw_series(scatter.points.iter().filter_map(|p| {
            let label = p.label.clone()?;
            Some(
                EmptyElement::at(fit((p.x, p.y)))
                    + Circle::new((0, 0), LABELLED_MARKER, fill)
                    + Text::new(label, offset, font.clone()),
            )
        }))?;
    }
    if let Some(panels) = legend {
        let size = legend_box(panel, panels);
        let corner = corner(&panel.lines, &panel.scatters, &x, &y, panel.y.log, size);
        chart
            .configure_series_labels()
            .position(corner)
            .label_font(("sans-serif", LABEL_FONT))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered_sim::view::{Axis, Line, Point, Scatter, Shade};

    /// Whether `svg` has a `<text>` element of exactly `text`.
    fn has_text(svg: &str, text: &str) -> bool {
        svg.contains(&format!(">\n{text}\n</text>"))
    }

    fn hex(color: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
    }

    fn line(name: &str, color: Tone, points: &[(f64, f64)], markers: bool) -> Line {
        Line { name: name.to_owned(), points: points.to_vec(), color, markers, dash: Dash::Solid }
    }

    fn panels(log: bool) -> Vec<Panel> {
        let y = if log { Axis::log("time") } else { Axis::linear("calls") };
        let lines = vec![
            line("none", Tone::Series(0), &[(10.0, 25.0), (20.0, 90.0)], true),
            line("full", Tone::Series(1), &[(10.0, 16.0), (20.0, 10_000.0)], true),
        ];
        vec![Panel {
            title: "Calls".into(),
            x: Axis::linear("clients (N)"),
            y,
            lines,
            shades: Vec::new(),
            bands: Vec::new(),
            scatters: Vec::new(),
        }]
    }

    #[test]
    fn side_by_side_panels_have_titles_axes_lines_markers_and_legends() {
        let chart = Chart { layout: Layout::SideBySide, panels: [panels(false), panels(true)].concat() };
        let svg = render(&chart).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(&format!("width=\"{WIDTH}\" height=\"{ROW_HEIGHT}\"")));
        for text in ["Calls", "clients (N)", "calls", "time (log scale)"] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        for color in &PALETTE[..2] {
            let stroke = format!(
                "<polyline fill=\"none\" opacity=\"1\" stroke=\"{}\" stroke-width=\"2\"",
                hex(*color)
            );
            assert_eq!(svg.matches(&stroke).count(), 4, "a line and a legend sample per panel");
        }
        assert_eq!(svg.matches("<circle").count(), 8);
        assert_eq!(render(&chart).unwrap(), svg, "the same chart gives the same bytes");
    }

    #[test]
    fn stacked_panels_share_a_legend_strip_and_the_last_names_the_x_axis() {
        let mut panel = panels(false).remove(0);
        panel.lines.insert(0, line("capacity", Tone::Reference, &[(10.0, 50.0), (20.0, 50.0)], false));
        panel.shades.push(Shade { name: "trigger".into(), from: 12.0, to: 15.0, color: 1 });
        let chart = Chart { layout: Layout::Stacked, panels: vec![panel.clone(), panel] };
        let svg = render(&chart).unwrap();
        assert!(svg.contains(&format!("height=\"{}\"", LEGEND_HEIGHT + 2 * PANEL_HEIGHT)));
        assert_eq!(svg.matches(">\nclients (N)\n</text>").count(), 1, "on the last panel only");
        for name in ["none", "full", "capacity", "trigger"] {
            assert_eq!(svg.matches(&format!(">\n{name}\n</text>")).count(), 1, "{name} once, in the strip");
        }
        let shade = format!("opacity=\"{SHADE_OPACITY}\" fill=\"{}\"", hex(PALETTE[1]));
        assert_eq!(svg.matches(&shade).count(), 3, "a shade per panel and a legend sample");
    }

    #[test]
    fn bands_are_light_boxes_and_dashed_lines_are_dashed() {
        let mut panel = panels(false).remove(0);
        panel.x = Axis::linear("retry").integers().over(0.5, 2.5);
        panel.lines = vec![
            line("median", Tone::Series(0), &[(1.0, 20.0), (2.0, 100.0)], true),
            line("p99", Tone::Series(1), &[(1.0, 30.0), (2.0, 150.0)], false),
        ];
        panel.lines[1].dash = Dash::Dotted;
        panel.bands.push(Band {
            name: "range".into(),
            color: 2,
            boxes: vec![
                BandBox { from: 0.8, to: 1.2, low: 0.0, high: 40.0 },
                BandBox { from: 1.8, to: 2.2, low: 5.0, high: 200.0 },
            ],
        });
        let svg = render(&Chart { layout: Layout::SideBySide, panels: vec![panel] }).unwrap();
        let fill = format!("opacity=\"{BAND_OPACITY}\" fill=\"{}\"", hex(PALETTE[2]));
        assert_eq!(svg.matches(&fill).count(), 3, "a box per retry and a legend sample");
        assert!(has_text(&svg, "range"));
        // The band's top is inside the y range: 200 (plus the margin) fits.
        assert!(has_text(&svg, "200"), "the y axis reaches the band's top");
        // The dotted line is drawn in many short segments, its legend too.
        let dotted = format!("stroke=\"{}\"", hex(PALETTE[1]));
        assert!(svg.matches(&dotted).count() > 10, "{}", svg.matches(&dotted).count());
        // Retries are labelled 1 and 2, nothing between.
        assert!(has_text(&svg, "1") && has_text(&svg, "2") && !has_text(&svg, "1.5"));
    }

    #[test]
    fn ranges_fit_the_data_and_empty_charts_are_refused() {
        let values = [25.0, 90.0, 16.0, 10_000.0];
        assert_eq!(range(&Axis::log("t"), values.into_iter(), true), 8.0..12_500.0);
        assert_eq!(range(&Axis::linear("c"), values.into_iter(), true), 0.0..10_500.0);
        assert_eq!(range(&Axis::linear("x"), [5.0].into_iter(), false), 4.0..6.0);
        assert_eq!(range(&Axis::linear("x").over(0.0, 3.0), values.into_iter(), false), 0.0..3.0);
        assert!(render(&Chart { layout: Layout::SideBySide, panels: Vec::new() }).is_err());
    }

    #[test]
    fn a_grid_has_rows_of_panels_and_scatters_have_markers_and_labels() {
        let mut panel = panels(false).remove(0);
        panel.lines.clear();
        let point = |x, y, label: Option<&str>| Point { x, y, label: label.map(str::to_owned) };
        panel.scatters = vec![
            Scatter {
                name: "candidates".into(),
                color: Tone::Series(2),
                marker: Marker::Circle,
                points: vec![point(1.0, 2.0, None), point(2.0, 1.0, None)],
            },
            Scatter {
                name: String::new(),
                color: Tone::Reference,
                marker: Marker::Circle,
                points: vec![point(1.5, 1.5, Some("full"))],
            },
        ];
        let chart =
            Chart { layout: Layout::Grid { columns: 2 }, panels: vec![panel.clone(), panel.clone(), panel] };
        let svg = render(&chart).unwrap();
        assert!(svg.contains(&format!("width=\"{WIDTH}\" height=\"{}\"", 2 * ROW_HEIGHT)), "two rows");
        assert_eq!(svg.matches(">\nfull\n</text>").count(), 3, "the label of the point, in each panel");
        assert_eq!(svg.matches(">\ncandidates\n</text>").count(), 3, "a legend per panel");
        assert_eq!(svg.matches(">\nCalls\n</text>").count(), 3, "a title per panel");
        // Per panel: two markers, one labelled point and the legend's sample.
        assert_eq!(svg.matches("<circle").count(), 3 * 4);
        assert_eq!(svg.matches(&format!("r=\"{LABELLED_MARKER}\"")).count(), 3);
    }
}
