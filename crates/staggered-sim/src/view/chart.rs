//! [`Chart`]: panels of lines, scattered points, bands and shaded spans on
//! axes, as data; the CLI draws it as SVG.

/// A chart: panels, each with its axes, lines, bands and shaded spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// How the panels are laid out, and where the legend goes.
    pub layout: Layout,
    /// The panels, left to right or top to bottom.
    pub panels: Vec<Panel>,
}

/// How a chart lays out its panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Side by side, one measure each; each panel has its own legend, in its
    /// emptiest corner.
    SideBySide,
    /// Stacked on one x axis (named on the last panel only), so that the
    /// panels line up for the eye; one legend strip above them all, so it
    /// never hides a line.
    Stacked,
    /// Rows of panels side by side, `columns` to a row (the last row may
    /// be short), for one panel per case of an experiment; each panel has
    /// its own axes and legend, as side by side.
    Grid {
        /// Panels per row, at least 1.
        columns: usize,
    },
}

/// One panel: a title, two axes, lines, scattered points, bands and shaded
/// spans of x.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The title above the panel.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The lines, drawn in order, over the bands.
    pub lines: Vec<Line>,
    /// Spans of x shaded behind everything, such as a trigger's window.
    pub shades: Vec<Shade>,
    /// Ranges of y drawn as light boxes behind the lines, such as the
    /// smallest to the largest delay of each retry.
    pub bands: Vec<Band>,
    /// Points drawn as markers with no line between them, over the lines.
    pub scatters: Vec<Scatter>,
}

/// How close to an earlier line a line must lie, at every point, for
/// [`Panel::mark_coinciding`] to mark it: a fraction of the panel's height
/// (on a log scale, of its orders of magnitude), about a pixel or two.
const COINCIDING: f64 = 0.005;

impl Panel {
    /// Marks each line drawn on an earlier one, so that neither hides the
    /// other: where every point of it lies within half a percent of the
    /// panel's height (on a log scale, of its orders of magnitude: a pixel
    /// or two) of the earlier line's, at the same x, it is dashed, so the
    /// earlier line's color shows between its dashes, and its legend entry
    /// names the other: `equal (same as full)`, or `(close to full)` when
    /// not exact. A second line on the same one gets shorter dashes.
    pub fn mark_coinciding(&mut self) {
        const DASHES: [Dash; 3] = [Dash::Long, Dash::Short, Dash::Dotted];
        let ys = || self.lines.iter().flat_map(|line| &line.points).map(|&(_, y)| y);
        // A log scale draws a value of 0 at its bottom, by the smallest
        // positive one: compare there, not at ln(0).
        let bottom = ys().filter(|&y| y > 0.0).fold(f64::INFINITY, f64::min);
        let scale = |y: f64| if self.y.log { y.max(bottom).ln() } else { y };
        let (low, high) =
            ys().map(scale).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let tolerance = COINCIDING * (high - low);
        let names: Vec<String> = self.lines.iter().map(|line| line.name.clone()).collect();
        let mut marked = 0;
        for i in 1..self.lines.len() {
            let line = &self.lines[i];
            let on = |earlier: &&Line| {
                earlier.points.len() == line.points.len()
                    && !line.points.is_empty()
                    && earlier
                        .points
                        .iter()
                        .zip(&line.points)
                        .all(|(a, b)| a.0 == b.0 && (scale(a.1) - scale(b.1)).abs() <= tolerance)
            };
            let Some(j) = self.lines[..i].iter().position(|earlier| on(&earlier)) else { continue };
            let how = if self.lines[j].points == line.points { "same as" } else { "close to" };
            let name = format!("{} ({how} {})", names[i], names[j]);
            self.lines[i].name = name;
            self.lines[i].dash = DASHES[marked % DASHES.len()];
            marked += 1;
        }
    }
}

/// An axis: its label (with its unit), scale and range.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The label, with its unit: `mean completion time in time units`.
    pub label: String,
    /// Whether the scale is logarithmic, for values orders of magnitude apart.
    pub log: bool,
    /// The range; `None` fits the lines (from 0 on a linear scale).
    pub range: Option<(f64, f64)>,
    /// Whether only whole numbers are labelled, for a count such as a retry.
    pub integers: bool,
}

impl Axis {
    /// A linear axis fitted to the data.
    pub fn linear(label: impl Into<String>) -> Self {
        Axis { label: label.into(), log: false, range: None, integers: false }
    }

    /// A logarithmic axis fitted to the data.
    pub fn log(label: impl Into<String>) -> Self {
        Axis { label: label.into(), log: true, range: None, integers: false }
    }

    /// This axis, labelled at whole numbers only.
    #[must_use]
    pub fn integers(self) -> Self {
        Axis { integers: true, ..self }
    }

    /// This axis over `low..high`.
    #[must_use]
    pub fn over(self, low: f64, high: f64) -> Self {
        Axis { range: Some((low, high)), ..self }
    }
}

/// A line through points, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Its name in the legend; empty for no entry (a line a band's entry
    /// names already).
    pub name: String,
    /// The points, `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// Its color.
    pub color: Color,
    /// Whether each point gets a marker (for a few measured points, rather
    /// than a dense series).
    pub markers: bool,
    /// Its pattern: solid, or dashed to tell apart lines of one color.
    pub dash: Dash,
}

/// Points of one series drawn as markers, with no line between them: a
/// scatter of candidates, or reference points that carry their own labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Scatter {
    /// Its name in the legend; empty for no entry (points labelled one by
    /// one need none).
    pub name: String,
    /// Its color.
    pub color: Color,
    /// The shape of its markers (a labelled point is always a circle).
    pub marker: Marker,
    /// The points.
    pub points: Vec<Point>,
}

/// The shape of a [`Scatter`]'s markers: the shape tells apart series of
/// one color, and one drawn on another's point still shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marker {
    /// A filled dot.
    #[default]
    Circle,
    /// A cross, wider than a dot, so that it shows on one.
    Cross,
    /// A filled triangle, pointing up.
    Triangle,
    /// An open square.
    Square,
}

/// A point of a [`Scatter`].
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Where it is on x.
    pub x: f64,
    /// Where it is on y.
    pub y: f64,
    /// The text written beside it, if any; a labelled point is drawn larger.
    pub label: Option<String>,
}

/// A line's pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dash {
    /// A solid line.
    #[default]
    Solid,
    /// Long dashes.
    Long,
    /// Short dashes.
    Short,
    /// Dots.
    Dotted,
}

/// A line's color.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// The `n`-th color of the palette, for a series (repeating past
    /// [`PALETTE_LEN`](super::PALETTE_LEN)); [`Color::of`] gives each
    /// strategy and policy its own.
    Series(usize),
    /// A thin grey line, for a reference such as a capacity.
    Reference,
}

/// A shaded span of x, behind the lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Shade {
    /// Its name in the legend.
    pub name: String,
    /// Where it starts.
    pub from: f64,
    /// Where it ends.
    pub to: f64,
    /// The palette color it is shaded in, lightly.
    pub color: usize,
}

/// A band: ranges of y over spans of x, drawn as light boxes in one color.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Its name in the legend; empty for no entry.
    pub name: String,
    /// The palette color it is filled in, lightly.
    pub color: usize,
    /// Its boxes.
    pub boxes: Vec<BandBox>,
}

/// One box of a [`Band`]: `low..high` over `from..to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandBox {
    /// Where it starts on x.
    pub from: f64,
    /// Where it ends on x.
    pub to: f64,
    /// Its bottom on y.
    pub low: f64,
    /// Its top on y.
    pub high: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, ys: &[f64]) -> Line {
        let points = ys.iter().enumerate().map(|(x, &y)| (x as f64, y)).collect();
        Line { name: name.to_owned(), points, color: Color::Series(0), markers: true, dash: Dash::Solid }
    }

    fn panel(y: Axis, lines: Vec<Line>) -> Panel {
        let (shades, bands, scatters) = (Vec::new(), Vec::new(), Vec::new());
        Panel { title: String::new(), x: Axis::linear("x"), y, lines, shades, bands, scatters }
    }

    fn marks(panel: &Panel) -> Vec<(&str, Dash)> {
        panel.lines.iter().map(|line| (line.name.as_str(), line.dash)).collect()
    }

    #[test]
    fn a_line_on_an_earlier_one_is_dashed_and_named_after_it() {
        let lines = vec![
            line("full", &[0.1, 0.3, 0.7]),
            line("equal", &[0.1, 0.3, 0.7]),
            line("decorrelated", &[0.3, 1.2, 3.9]),
            line("close", &[0.1, 0.3, 0.701]),
        ];
        let mut linear = panel(Axis::linear("s"), lines.clone());
        linear.mark_coinciding();
        assert_eq!(
            marks(&linear),
            [
                ("full", Dash::Solid),
                ("equal (same as full)", Dash::Long),
                ("decorrelated", Dash::Solid),
                ("close (close to full)", Dash::Short),
            ]
        );
        // 0.3 and 0.4 are far apart on a log scale of 0.1 to 3.9, though
        // closer than the tolerance of a linear one over 0 to 100.
        let apart = vec![line("a", &[0.1, 0.3, 100.0]), line("b", &[0.1, 0.4, 100.0])];
        let mut log = panel(Axis::log("s"), apart.clone());
        log.mark_coinciding();
        assert_eq!(marks(&log), [("a", Dash::Solid), ("b", Dash::Solid)]);
        let mut linear = panel(Axis::linear("s"), apart);
        linear.mark_coinciding();
        assert_eq!(marks(&linear)[1], ("b (close to a)", Dash::Long));
        // A 0 on a log scale is compared at its bottom, not at ln(0), which
        // would make every line close to every other.
        let mut zero =
            panel(Axis::log("s"), vec![line("a", &[0.0, 1.0, 10.0]), line("b", &[0.0, 2.0, 10.0])]);
        zero.mark_coinciding();
        assert_eq!(marks(&zero)[1], ("b", Dash::Solid));
    }
}
