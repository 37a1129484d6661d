//! [`Chart`]: panels of lines on axes, as data; the CLI draws it as SVG.

/// A chart: panels, each with its axes, lines and shaded spans.
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
}

/// One panel: a title, two axes, lines and shaded spans of x.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The title above the panel.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The lines, drawn in order.
    pub lines: Vec<Line>,
    /// Spans of x shaded behind the lines, such as a trigger's window.
    pub shades: Vec<Shade>,
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
}

impl Axis {
    /// A linear axis fitted to the data.
    pub fn linear(label: impl Into<String>) -> Self {
        Axis { label: label.into(), log: false, range: None }
    }

    /// A logarithmic axis fitted to the data.
    pub fn log(label: impl Into<String>) -> Self {
        Axis { label: label.into(), log: true, range: None }
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
