//! The overload results as an SVG chart: per second, the offered load, the
//! attempts reaching the server and the goodput, with the server's capacity
//! and the trigger's window shaded; one panel per policy.
//!
//! Small multiples per policy rather than a panel per measure: the offered
//! load is the same for every policy (one seed), so a panel per measure
//! would draw it five times, and three policies (no-retry, the token bucket
//! and the throttle) would lie on top of each other in every panel. One
//! panel per policy tells each policy's story (arrivals against capacity,
//! goodput against offered load), and stacking the panels on one time axis
//! and one y scale lines their recoveries up for the eye. The legend is a
//! strip above the panels, so it never hides a line.
//!
//! The style (margins, fonts, palette) is the contention chart's, and so is
//! the backend: SVG alone, text left to the viewer, no font library.

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::results::{OverloadResults, PolicyResult};
use crate::duration;
use crate::simulate::plot::{CAPTION_FONT, LABEL_FONT, MARGIN, PALETTE, Y_LABEL_AREA};

/// The chart's width in pixels.
pub const WIDTH: u32 = 1200;
/// The height of the legend strip above the panels.
pub const LEGEND_HEIGHT: u32 = 40;
/// The height of each policy's panel.
pub const PANEL_HEIGHT: u32 = 200;

/// The height of a panel's x tick labels (and, on the last panel, its axis
/// label), in pixels.
const X_LABEL_AREA: u32 = 40;
/// The font size of a panel's title: smaller than the contention chart's,
/// for panels a third as tall.
const TITLE_FONT: u32 = CAPTION_FONT - 6;

/// The colors of the offered load, the server arrivals and the goodput.
const OFFERED: RGBColor = PALETTE[0];
const ARRIVALS: RGBColor = PALETTE[2];
const GOODPUT: RGBColor = PALETTE[4];
/// The trigger's window, shaded.
const TRIGGER: RGBColor = PALETTE[1];
/// How opaque the trigger's shade is.
const TRIGGER_OPACITY: f64 = 0.18;

/// The legend's entries: the three lines, the capacity and the trigger.
pub const LEGEND: [&str; 5] = ["offered load", "server arrivals", "goodput", "capacity", "trigger"];

/// The SVG document of `results`' chart.
///
/// # Errors
/// If plotters fails to lay the chart out, which results with rows do not
/// make it do.
pub fn render(results: &OverloadResults) -> anyhow::Result<String> {
    if results.rows.is_empty() {
        return Err(anyhow!("nothing to plot: the results have no policy"));
    }
    let panels = results.rows.len() as u32;
    let size = (WIDTH, LEGEND_HEIGHT + PANEL_HEIGHT * panels);
    let top = y_top(results);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        let (legend, body) = root.split_vertically(LEGEND_HEIGHT);
        draw_legend(&legend)?;
        let areas = body.split_evenly((results.rows.len(), 1));
        for (index, (area, row)) in areas.iter().zip(&results.rows).enumerate() {
            panel(area, results, row, top, index + 1 == results.rows.len())?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// The top of every panel's y axis: a little above the highest count or
/// capacity of any policy, so that the panels share one scale.
fn y_top(results: &OverloadResults) -> f64 {
    let counts = results.rows.iter().flat_map(|row| {
        let s = &row.series;
        s.offered.iter().chain(&s.arrivals).chain(&s.goodput).copied()
    });
    let highest = counts.map(f64::from).fold(results.facts.capacity, f64::max);
    highest.max(1.0) * 1.08
}

/// The title of `row`'s panel: its name, goodput and recovery.
pub fn title(row: &PolicyResult, has_trigger: bool) -> String {
    let recovery = match row.recovery_time {
        Some(t) if has_trigger => format!("recovered {} after the trigger", duration::format(t)),
        Some(t) => format!("goodput held from {}", duration::format(t)),
        None => "never recovered".to_owned(),
    };
    format!("{}: goodput {:.2}%, {recovery}", row.policy, 100.0 * row.goodput)
}

/// The server's capacity over the run, as the corners of a step line.
fn capacity_line(results: &OverloadResults) -> Vec<(f64, f64)> {
    let facts = &results.facts;
    let (end, capacity) = (facts.duration.as_secs_f64(), facts.capacity);
    match facts.trigger {
        Some(t) => {
            let (from, to, low) = (t.start().as_secs_f64(), t.end().as_secs_f64(), capacity * t.capacity());
            vec![(0.0, capacity), (from, capacity), (from, low), (to, low), (to, capacity), (end, capacity)]
        }
        None => vec![(0.0, capacity), (end, capacity)],
    }
}

/// A per-second count as points in the middle of each second (the last,
/// shorter second in the middle of what is left of it).
fn points(counts: &[u32], duration: f64) -> Vec<(f64, f64)> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let start = i as f64;
            ((start + (start + 1.0).min(duration)) / 2.0, f64::from(n))
        })
        .collect()
}

/// Draws `row`'s panel: the trigger's shade, the capacity, the three lines;
/// the x axis label on the `last` panel only.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    results: &OverloadResults,
    row: &PolicyResult,
    top: f64,
    last: bool,
) -> anyhow::Result<()> {
    let facts = &results.facts;
    let end = facts.duration.as_secs_f64();
    let mut chart = ChartBuilder::on(area)
        .caption(title(row, facts.trigger.is_some()), ("sans-serif", TITLE_FONT))
        .margin(MARGIN / 2)
        .margin_right(MARGIN)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(0.0..end, 0.0..top)?;
    chart
        .configure_mesh()
        .x_desc(if last { "seconds since the run began" } else { "" })
        .y_desc("per second")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .y_labels(5)
        .label_style(("sans-serif", LABEL_FONT))
        .axis_desc_style(("sans-serif", LABEL_FONT + 2))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    if let Some(t) = facts.trigger {
        let window = [(t.start().as_secs_f64(), 0.0), (t.end().as_secs_f64(), top)];
        chart.draw_series(std::iter::once(Rectangle::new(window, TRIGGER.mix(TRIGGER_OPACITY).filled())))?;
    }
    chart.draw_series(LineSeries::new(capacity_line(results), BLACK.mix(0.5).stroke_width(1)))?;
    let series = &row.series;
    for (counts, color) in
        [(&series.offered, OFFERED), (&series.arrivals, ARRIVALS), (&series.goodput, GOODPUT)]
    {
        chart.draw_series(LineSeries::new(points(counts, end), color.stroke_width(2)))?;
    }
    Ok(())
}

/// The legend strip: a sample and a label per entry of [`LEGEND`], left to
/// right. plotters estimates a character as 0.56 of the font size wide.
fn draw_legend(area: &DrawingArea<SVGBackend<'_>, Shift>) -> anyhow::Result<()> {
    let samples: [ShapeStyle; 5] = [
        OFFERED.stroke_width(2),
        ARRIVALS.stroke_width(2),
        GOODPUT.stroke_width(2),
        BLACK.mix(0.5).stroke_width(1),
        TRIGGER.mix(TRIGGER_OPACITY).filled(),
    ];
    let y = (LEGEND_HEIGHT / 2) as i32;
    let mut x = (Y_LABEL_AREA + MARGIN) as i32;
    let font = ("sans-serif", LABEL_FONT).into_font();
    for (label, style) in LEGEND.iter().zip(samples) {
        if style.filled {
            area.draw(&Rectangle::new([(x, y - 7), (x + 24, y + 7)], style))?;
        } else {
            area.draw(&PathElement::new([(x, y), (x + 24, y)], style))?;
        }
        area.draw(&Text::new(*label, (x + 30, y - (LABEL_FONT / 2) as i32), font.clone()))?;
        x += 30 + (0.56 * f64::from(LABEL_FONT) * label.chars().count() as f64) as i32 + 28;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::overload::results::fixtures;

    /// Whether `svg` has a `<text>` element of exactly `text`.
    fn has_text(svg: &str, text: &str) -> bool {
        svg.contains(&format!(">\n{text}\n</text>"))
    }

    fn hex(color: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
    }

    #[test]
    fn a_titled_panel_per_policy_with_three_lines_each() {
        let results = fixtures::results();
        let svg = render(&results).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(&format!("width=\"{WIDTH}\" height=\"{}\"", LEGEND_HEIGHT + 5 * PANEL_HEIGHT)));
        for row in &results.rows {
            assert!(has_text(&svg, &title(row, true)), "{}", title(row, true));
        }
        assert!(has_text(&svg, "retry: goodput 16.86%, never recovered"));
        assert!(has_text(&svg, "retry+ratio: goodput 70.10%, recovered 14s after the trigger"));
        for label in LEGEND.iter().chain(&["seconds since the run began", "per second"]) {
            assert!(has_text(&svg, label), "{label}");
        }
        assert_eq!(
            svg.matches(">\nseconds since the run began\n</text>").count(),
            1,
            "on the last panel only"
        );
        for color in [OFFERED, ARRIVALS, GOODPUT] {
            let line =
                format!("<polyline fill=\"none\" opacity=\"1\" stroke=\"{}\" stroke-width=\"2\"", hex(color));
            assert_eq!(svg.matches(&line).count(), 5 + 1, "a line per panel and a legend sample");
        }
        let shade = format!("opacity=\"{TRIGGER_OPACITY}\" fill=\"{}\"", hex(TRIGGER));
        assert_eq!(svg.matches(&shade).count(), 5 + 1, "a shade per panel and a legend sample");
        assert_eq!(render(&results).unwrap(), svg, "the same results give the same bytes");
    }

    #[test]
    fn without_a_trigger_nothing_is_shaded() {
        let mut results = fixtures::results();
        results.facts.trigger = None;
        results.rows.truncate(2);
        let svg = render(&results).unwrap();
        let shade = format!("opacity=\"{TRIGGER_OPACITY}\" fill=\"{}\"", hex(TRIGGER));
        assert_eq!(svg.matches(&shade).count(), 1, "the legend's sample alone");
        assert_eq!(capacity_line(&results), [(0.0, 1000.0), (20.0, 1000.0)]);
        results.rows.clear();
        assert!(render(&results).is_err());
    }

    #[test]
    fn the_axes_fit_every_policy_and_the_last_second() {
        let results = fixtures::results();
        assert_eq!(y_top(&results), 2100.0 * 1.08);
        assert_eq!(points(&[1, 2, 3], 2.5), [(0.5, 1.0), (1.5, 2.0), (2.25, 3.0)]);
        assert_eq!(capacity_line(&results)[2], (5.0, 500.0));
    }
}
