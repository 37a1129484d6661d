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
    /// Its name in the legend.
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
    /// The points.
    pub points: Vec<Point>,
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
    /// The `n`-th color of the palette, for a series.
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
    /// Its name in the legend.
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
