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
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use staggered_sim::view::{Band, Chart, Color as Tone, Dash, Layout, Line, Panel};

use super::axis::{range, tick};

/// The chart's width in pixels.
pub const WIDTH: u32 = 1200;
/// The height of side-by-side panels.
pub const ROW_HEIGHT: u32 = 520;
/// The height of each stacked panel, and of the legend strip above them.
pub const PANEL_HEIGHT: u32 = 200;
/// The height of the legend strip above stacked panels.
pub const LEGEND_HEIGHT: u32 = 40;

/// The margin around each panel, in pixels.
const MARGIN: u32 = 16;
/// The width of a panel's y tick labels and axis label, in pixels.
const Y_LABEL_AREA: u32 = 72;
/// The font size of tick labels and legend entries.
const LABEL_FONT: u32 = 14;
/// How opaque a shaded span is.
const SHADE_OPACITY: f64 = 0.18;
/// How opaque a band's boxes are: light enough for the lines over them.
pub const BAND_OPACITY: f64 = 0.3;

/// The series' colors, in order (Tableau 10), repeating past ten.
pub const PALETTE: [RGBColor; 10] = [
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
    };
    if n == 0 || chart.panels.iter().all(empty) {
        return Err(anyhow!("nothing to plot: the chart has no points"));
    }
    let mut svg = String::new();
    {
        let size = match chart.layout {
            Layout::SideBySide => (WIDTH, ROW_HEIGHT),
            Layout::Stacked => (WIDTH, LEGEND_HEIGHT + PANEL_HEIGHT * n as u32),
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
        }
        root.present()?;
    }
    Ok(svg)
}

/// A line's stroke: its palette color, or the thin grey of a reference.
fn stroke(color: Tone) -> ShapeStyle {
    match color {
        Tone::Series(i) => PALETTE[i % PALETTE.len()].stroke_width(2),
        Tone::Reference => BLACK.mix(0.5).stroke_width(1),
    }
}

/// A dashed pattern's dash and gap, in pixels; `None` for a solid line.
fn dashes(dash: Dash) -> Option<(u32, u32)> {
    match dash {
        Dash::Solid => None,
        Dash::Long => Some((10, 5)),
        Dash::Short => Some((4, 4)),
        Dash::Dotted => Some((2, 3)),
    }
}

/// A band's fill, and the stroke around each of its boxes.
fn band_style(band: &Band) -> (ShapeStyle, ShapeStyle) {
    let color = PALETTE[band.color % PALETTE.len()];
    (color.mix(BAND_OPACITY).filled(), color.mix(0.6).stroke_width(1))
}

/// Draws `panel` in `area`: axes, shades, lines and, with `legend` (the
/// number of panels side by side), a legend in its emptiest corner.
fn draw(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel,
    style: &Style,
    legend: Option<usize>,
    x_label: bool,
) -> anyhow::Result<()> {
    let points = || panel.lines.iter().flat_map(|line| line.points.iter().copied());
    let boxes = || panel.bands.iter().flat_map(|band| band.boxes.iter());
    let xs = points().map(|p| p.0).chain(boxes().flat_map(|b| [b.from, b.to]));
    let ys = points().map(|p| p.1).chain(boxes().flat_map(|b| [b.low, b.high]));
    let x = range(&panel.x, xs, false);
    let y = range(&panel.y, ys, true);
    if panel.y.log {
        plot(area, panel, style, (x, y.clone(), (y.start..y.end).log_scale()), legend, x_label)
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
        let corners = |b: &staggered_sim::view::BandBox| [(b.from, b.low), (b.to, b.high)];
        let series = chart.draw_series(band.boxes.iter().map(|b| Rectangle::new(corners(b), fill)))?;
        if legend.is_some() {
            series
                .label(&band.name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 24, y + 6)], fill));
        }
        chart.draw_series(band.boxes.iter().map(|b| Rectangle::new(corners(b), edge)))?;
    }
    for line in &panel.lines {
        let stroke = stroke(line.color);
        let points = line.points.iter().copied();
        let series = match dashes(line.dash) {
            None => chart.draw_series(LineSeries::new(points, stroke))?,
            Some((dash, gap)) => chart.draw_series(DashedLineSeries::new(points, dash, gap, stroke))?,
        };
        if legend.is_some() {
            let dash = dashes(line.dash);
            series.label(&line.name).legend(move |(x, y)| match dash {
                None => PathElement::new([(x, y), (x + 24, y)], stroke).into_dyn(),
                Some((dash, gap)) => {
                    DashedPathElement::new([(x, y), (x + 24, y)], dash, gap, stroke).into_dyn()
                }
            });
        }
        if line.markers {
            let fill = ShapeStyle { filled: true, stroke_width: 1, ..stroke };
            chart.draw_series(line.points.iter().map(|&point| Circle::new(point, 3, fill)))?;
        }
    }
    if let Some(panels) = legend {
        let corner = corner(&panel.lines, &x, &y, panel.y.log, legend_box(&panel.lines, panels));
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

/// About how much of the plotting area of one of `panels` panels side by
/// side a legend of `lines` covers, as fractions of its width and height.
/// plotters estimates a character as 0.56 of the font size wide; the rest
/// is its padding and the sample line.
fn legend_box(lines: &[Line], panels: usize) -> (f64, f64) {
    let font = f64::from(LABEL_FONT);
    let longest = lines.iter().map(|line| line.name.chars().count()).max().unwrap_or(0) as f64;
    let width = 64.0 + 0.56 * font * longest;
    let height = 10.0 + 1.3 * font * lines.len() as f64;
    let plot_width = f64::from(WIDTH) / panels.max(1) as f64 - f64::from(2 * MARGIN + Y_LABEL_AREA);
    let plot_height = f64::from(ROW_HEIGHT - 2 * MARGIN - 48 - 24) - 6.0;
    (width / plot_width, height / plot_height)
}

/// The corner of the plotting area where a legend of `size` (fractions of
/// the area) covers the fewest samples of the lines; the first of upper
/// left, upper right, lower right, lower left on a tie.
fn corner(
    lines: &[Line],
    x: &Range<f64>,
    y: &Range<f64>,
    log: bool,
    size: (f64, f64),
) -> SeriesLabelPosition {
    const SAMPLES_PER_SEGMENT: u32 = 16;
    let fy = |v: f64| {
        if log {
            (v.max(y.start) / y.start).ln() / (y.end / y.start).ln()
        } else {
            (v - y.start) / (y.end - y.start)
        }
    };
    let mut samples = Vec::new();
    for line in lines {
        let fractions: Vec<(f64, f64)> =
            line.points.iter().map(|&(px, py)| ((px - x.start) / (x.end - x.start), fy(py))).collect();
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

/// The legend strip above stacked panels: a sample and a name for every
/// line, band and shade of the panels, each name once; series first, then
/// references, then bands, then shades.
fn strip(area: &DrawingArea<SVGBackend<'_>, Shift>, panels: &[Panel]) -> anyhow::Result<()> {
    // A name, its sample's style, and its dashes if it is a dashed line.
    type Entry<'a> = (&'a str, ShapeStyle, Option<(u32, u32)>);
    let mut entries: Vec<Entry<'_>> = Vec::new();
    let lines = panels.iter().flat_map(|panel| &panel.lines);
    let series = lines.clone().filter(|line| line.color != Tone::Reference);
    let references = lines.filter(|line| line.color == Tone::Reference);
    for line in series.chain(references) {
        entries.push((&line.name, stroke(line.color), dashes(line.dash)));
    }
    for band in panels.iter().flat_map(|panel| &panel.bands) {
        entries.push((&band.name, band_style(band).0, None));
    }
    for shade in panels.iter().flat_map(|panel| &panel.shades) {
        entries.push((&shade.name, PALETTE[shade.color % PALETTE.len()].mix(SHADE_OPACITY).filled(), None));
    }
    let mut seen = Vec::new();
    entries.retain(|(name, _, _)| {
        !seen.contains(name) && {
            seen.push(*name);
            true
        }
    });
    let y = (LEGEND_HEIGHT / 2) as i32;
    let mut x = (Y_LABEL_AREA + MARGIN) as i32;
    let font = ("sans-serif", LABEL_FONT).into_font();
    for (name, style, dash) in entries {
        match dash {
            _ if style.filled => area.draw(&Rectangle::new([(x, y - 7), (x + 24, y + 7)], style))?,
            None => area.draw(&PathElement::new([(x, y), (x + 24, y)], style))?,
            Some((dash, gap)) => {
                area.draw(&DashedPathElement::new([(x, y), (x + 24, y)], dash, gap, style))?
            }
        }
        area.draw(&Text::new(name, (x + 30, y - (LABEL_FONT / 2) as i32), font.clone()))?;
        x += 30 + (0.56 * f64::from(LABEL_FONT) * name.chars().count() as f64) as i32 + 28;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered_sim::view::{Axis, BandBox, Shade};

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
    fn the_legend_goes_where_the_lines_are_not() {
        let (x, y, size) = (0.0..1.0, 0.0..1.0, (0.3, 0.3));
        let lines = |pairs: &[&[(f64, f64)]]| -> Vec<Line> {
            pairs.iter().map(|points| line("a", Tone::Series(0), points, false)).collect()
        };
        let rising = lines(&[&[(0.0, 0.0), (1.0, 1.0)], &[(0.0, 0.1), (1.0, 0.9)]]);
        assert_eq!(corner(&rising, &x, &y, false, size), SeriesLabelPosition::UpperLeft);
        let falling = lines(&[&[(0.0, 1.0), (1.0, 0.0)]]);
        assert_eq!(corner(&falling, &x, &y, false, size), SeriesLabelPosition::UpperRight);
        let high = lines(&[&[(0.0, 0.9), (1.0, 0.95)], &[(0.0, 0.05), (0.5, 0.1)]]);
        assert_eq!(corner(&high, &x, &y, false, size), SeriesLabelPosition::LowerRight);
    }
}
