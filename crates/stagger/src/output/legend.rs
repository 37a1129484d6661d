//! Where a chart's legends go: in a panel's emptiest corner, or in a strip
//! above stacked panels.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use staggered_sim::view::{Color as Tone, Line, Marker, Panel, Scatter};

use super::svg::{
    band_style, dashes, marker, stroke, LABEL_FONT, LEGEND_HEIGHT, MARGIN, PALETTE, ROW_HEIGHT,
    SHADE_OPACITY, WIDTH, Y_LABEL_AREA,
};

/// About how much of the plotting area of one of `panels` panels side by
/// side the legend of `panel` (its named lines, bands and scatters) covers,
/// as fractions of its width and height. plotters estimates a character as
/// 0.56 of the font size wide; the rest is its padding and the sample line.
pub fn legend_box(panel: &Panel, panels: usize) -> (f64, f64) {
    let font = f64::from(LABEL_FONT);
    let lines = panel.lines.iter().map(|line| &line.name);
    let bands = panel.bands.iter().map(|band| &band.name);
    let names = lines.chain(bands).chain(panel.scatters.iter().map(|s| &s.name)).filter(|n| !n.is_empty());
    let (count, longest) =
        names.fold((0, 0), |(n, longest), name| (n + 1, longest.max(name.chars().count())));
    let width = 64.0 + 0.56 * font * longest as f64;
    let height = 10.0 + 1.3 * font * f64::from(count);
    let plot_width = f64::from(WIDTH) / panels.max(1) as f64 - f64::from(2 * MARGIN + Y_LABEL_AREA);
    let plot_height = f64::from(ROW_HEIGHT - 2 * MARGIN - 48 - 24) - 6.0;
    (width / plot_width, height / plot_height)
}

/// The corner of the plotting area where a legend of `size` (fractions of
/// the area) covers the fewest samples of the lines and points; the first
/// of upper left, upper right, lower right, lower left on a tie.
pub fn corner(
    lines: &[Line],
    scatters: &[Scatter],
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
    let fraction = |(px, py): (f64, f64)| ((px - x.start) / (x.end - x.start), fy(py));
    let mut samples = Vec::new();
    for line in lines {
        let fractions: Vec<(f64, f64)> = line.points.iter().copied().map(fraction).collect();
        samples.extend(fractions.iter().copied());
        for pair in fractions.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            samples.extend((1..SAMPLES_PER_SEGMENT).map(|i| {
                let t = f64::from(i) / f64::from(SAMPLES_PER_SEGMENT);
                (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
            }));
        }
    }
    samples.extend(scatters.iter().flat_map(|s| &s.points).map(|p| fraction((p.x, p.y))));
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

/// What a legend entry's sample is.
#[derive(Clone, Copy)]
enum Sample {
    /// A line, dashed or not.
    Line(ShapeStyle, Option<(u32, u32)>),
    /// A filled box, for a band or a shade.
    Box(ShapeStyle),
    /// A marker, for a scatter.
    Marker(Marker, Tone),
}

/// The legend strip above stacked panels: a sample and a name for every
/// named line, scatter, band and shade of the panels, each name once;
/// series first, then references, then scatters, bands and shades.
pub fn strip(area: &DrawingArea<SVGBackend<'_>, Shift>, panels: &[Panel]) -> anyhow::Result<()> {
    let mut entries: Vec<(&str, Sample)> = Vec::new();
    let lines = panels.iter().flat_map(|panel| &panel.lines);
    let series = lines.clone().filter(|line| line.color != Tone::Reference);
    let references = lines.filter(|line| line.color == Tone::Reference);
    for line in series.chain(references) {
        entries.push((&line.name, Sample::Line(stroke(line.color), dashes(line.dash))));
    }
    for scatter in panels.iter().flat_map(|panel| &panel.scatters) {
        entries.push((&scatter.name, Sample::Marker(scatter.marker, scatter.color)));
    }
    for band in panels.iter().flat_map(|panel| &panel.bands) {
        entries.push((&band.name, Sample::Box(band_style(band).0)));
    }
    for shade in panels.iter().flat_map(|panel| &panel.shades) {
        let style = PALETTE[shade.color % PALETTE.len()].mix(SHADE_OPACITY).filled();
        entries.push((&shade.name, Sample::Box(style)));
    }
    let mut seen = Vec::new();
    entries.retain(|(name, _)| {
        !name.is_empty() && !seen.contains(name) && {
            seen.push(*name);
            true
        }
    });
    let y = (LEGEND_HEIGHT / 2) as i32;
    let mut x = (Y_LABEL_AREA + MARGIN) as i32;
    let font = ("sans-serif", LABEL_FONT).into_font();
    for (name, sample) in entries {
        match sample {
            Sample::Box(style) => area.draw(&Rectangle::new([(x, y - 7), (x + 24, y + 7)], style))?,
            Sample::Line(style, None) => area.draw(&PathElement::new([(x, y), (x + 24, y)], style))?,
            Sample::Line(style, Some((dash, gap))) => {
                area.draw(&DashedPathElement::new([(x, y), (x + 24, y)], dash, gap, style))?
            }
            Sample::Marker(shape, color) => area.draw(&marker(shape, (x + 12, y), color))?,
        }
        area.draw(&Text::new(name, (x + 30, y - (LABEL_FONT / 2) as i32), font.clone()))?;
        x += 30 + (0.56 * f64::from(LABEL_FONT) * name.chars().count() as f64) as i32 + 28;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use staggered_sim::view::{Axis, Dash, Marker, Point};

    fn line(points: &[(f64, f64)]) -> Line {
        Line {
            name: "a".into(),
            points: points.to_vec(),
            color: Tone::Series(0),
            markers: false,
            dash: Dash::Solid,
        }
    }

    #[test]
    fn the_legend_goes_where_the_lines_and_points_are_not() {
        let (x, y, size) = (0.0..1.0, 0.0..1.0, (0.3, 0.3));
        let lines =
            |pairs: &[&[(f64, f64)]]| -> Vec<Line> { pairs.iter().map(|points| line(points)).collect() };
        let rising = lines(&[&[(0.0, 0.0), (1.0, 1.0)], &[(0.0, 0.1), (1.0, 0.9)]]);
        assert_eq!(corner(&rising, &[], &x, &y, false, size), SeriesLabelPosition::UpperLeft);
        let falling = lines(&[&[(0.0, 1.0), (1.0, 0.0)]]);
        assert_eq!(corner(&falling, &[], &x, &y, false, size), SeriesLabelPosition::UpperRight);
        let high = lines(&[&[(0.0, 0.9), (1.0, 0.95)], &[(0.0, 0.05), (0.5, 0.1)]]);
        assert_eq!(corner(&high, &[], &x, &y, false, size), SeriesLabelPosition::LowerRight);
        // Points in the upper left, where a rising line leaves room, move it.
        let point = |x, y| Point { x, y, label: None };
        let crowd = Scatter {
            name: String::new(),
            color: Tone::Series(1),
            marker: Marker::Circle,
            points: vec![point(0.1, 0.9); 40],
        };
        let crowded = [crowd];
        assert_eq!(corner(&rising, &crowded, &x, &y, false, size), SeriesLabelPosition::LowerRight);
        // An unnamed scatter takes no room in the legend; a named one does.
        let panel = |lines: &[Line], scatters: &[Scatter]| Panel {
            title: String::new(),
            x: Axis::linear("x"),
            y: Axis::linear("y"),
            lines: lines.to_vec(),
            shades: Vec::new(),
            bands: Vec::new(),
            scatters: scatters.to_vec(),
        };
        let alone = legend_box(&panel(&rising, &[]), 1);
        assert_eq!(legend_box(&panel(&rising, &crowded), 1), alone);
        let named = [Scatter { name: "candidates".into(), ..crowded[0].clone() }];
        assert!(legend_box(&panel(&rising, &named), 1).1 > alone.1);
        let mut unnamed = rising.clone();
        unnamed[1].name.clear();
        assert!(legend_box(&panel(&unnamed, &[]), 1).1 < alone.1, "an unnamed line has no entry");
    }
}
