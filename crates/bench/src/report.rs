//! The comparison table and its verdicts, as plain text (pure functions, so
//! they are tested without timing anything).

use std::fmt::Write as _;
use std::time::Duration;

use crate::harness::Timing;
use crate::schedules::{Info, Role};

/// The speed-up over the fastest peer that the project aims for.
pub const GOAL_RATIO: f64 = 4.0;

/// One measured row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// What was measured.
    pub info: Info,
    /// How long a delay took.
    pub timing: Timing,
    /// Heap allocations per delay, over a counted run after warm-up.
    pub allocations_per_delay: f64,
}

impl Row {
    /// The staggered row with the same jitter shape, if `self` is not one.
    fn equivalent<'a>(&self, rows: &'a [Row]) -> Option<&'a Row> {
        if self.info.role == Role::Staggered {
            return None;
        }
        rows.iter().find(|r| r.info.role == Role::Staggered && r.info.shape == self.info.shape)
    }

    /// This row's time over the time of its staggered equivalent.
    pub fn ratio(&self, rows: &[Row]) -> Option<f64> {
        self.equivalent(rows).map(|ours| self.timing.median_ns / ours.timing.median_ns)
    }
}

/// The verdicts drawn from the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The peer with the lowest median, and its ratio to its staggered equivalent.
    pub fastest_peer: Option<(&'static str, f64)>,
    /// Staggered rows that allocated during the counted run (must be empty).
    pub allocating: Vec<&'static str>,
}

impl Verdict {
    /// Reads the verdicts off the rows.
    pub fn of(rows: &[Row]) -> Self {
        let fastest_peer = rows
            .iter()
            .filter(|r| r.info.role == Role::Peer)
            .min_by(|a, b| a.timing.median_ns.total_cmp(&b.timing.median_ns))
            .and_then(|r| r.ratio(rows).map(|ratio| (r.info.name, ratio)));
        let allocating = rows
            .iter()
            .filter(|r| r.info.role == Role::Staggered && r.allocations_per_delay > 0.0)
            .map(|r| r.info.slug)
            .collect();
        Verdict { fastest_peer, allocating }
    }

    /// Whether staggered is at least [`GOAL_RATIO`] times faster than the fastest peer.
    pub fn goal_met(&self) -> bool {
        self.fastest_peer.is_some_and(|(_, ratio)| ratio >= GOAL_RATIO)
    }
}

/// The table, one line per row, columns aligned, followed by the verdicts.
pub fn render(rows: &[Row]) -> String {
    let header = ["crate", "jitter", "per sequence", "ns/delay", "min", "ratio", "allocs/delay", "max delay"];
    let mut cells: Vec<[String; 8]> = vec![header.map(String::from)];
    for row in rows {
        let ratio = match row.ratio(rows) {
            Some(r) => format!("{r:.2}x"),
            None => "1 (base)".to_string(),
        };
        cells.push([
            row.info.name.to_string(),
            row.info.jitter.to_string(),
            row.info.per_sequence.to_string(),
            format!("{:.2}", row.timing.median_ns),
            format!("{:.2}", row.timing.min_ns),
            ratio,
            format!("{}", row.allocations_per_delay),
            seconds(row.info.ceiling()),
        ]);
    }
    let mut out = aligned(&cells, 3);
    let verdict = Verdict::of(rows);
    if let Some((name, ratio)) = verdict.fastest_peer {
        let status = if verdict.goal_met() { "goal met" } else { "GOAL MISSED" };
        let _ = writeln!(
            out,
            "\nfastest peer: {name}, {ratio:.2}x slower than staggered with the same jitter ({status}: >= {GOAL_RATIO}x)"
        );
    }
    if verdict.allocating.is_empty() {
        out.push_str("allocations: staggered makes none per delay (ok)\n");
    } else {
        let _ = writeln!(out, "FAIL: staggered allocates per delay: {}", verdict.allocating.join(", "));
    }
    out
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// `cells` as an aligned text table: the first row is the header, underlined;
/// the first `text_columns` columns are left-aligned, the rest (numbers)
/// right-aligned.
pub fn aligned<R: AsRef<[String]>>(cells: &[R], text_columns: usize) -> String {
    let columns = cells.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            cells.iter().filter_map(|r| r.as_ref().get(c)).map(|cell| cell.chars().count()).max().unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, line) in cells.iter().enumerate() {
        let mut text = String::new();
        for (c, cell) in line.as_ref().iter().enumerate() {
            if c < text_columns {
                let _ = write!(text, "{cell:<w$}  ", w = widths[c]);
            } else {
                let _ = write!(text, "{cell:>w$}  ", w = widths[c]);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1)));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedules::Shape;

    fn row(name: &'static str, ours: bool, shape: Shape, ns: f64, allocs: f64) -> Row {
        let role = if ours { Role::Staggered } else { Role::Peer };
        Row {
            info: Info { name, slug: name, role, shape, jitter: "j", per_sequence: "p", clamped: true },
            timing: Timing { median_ns: ns, min_ns: ns, max_ns: ns, batches_per_round: 1, rounds: 1 },
            allocations_per_delay: allocs,
        }
    }

    #[test]
    fn ratios_are_like_for_like_and_the_goal_is_judged_on_the_fastest_peer() {
        let rows = [
            row("ours-full", true, Shape::Full, 2.0, 0.0),
            row("ours-add", true, Shape::Additive, 4.0, 0.0),
            row("slow", false, Shape::Full, 40.0, 0.0),
            row("fast", false, Shape::Additive, 12.0, 0.0),
        ];
        assert_eq!(rows[2].ratio(&rows), Some(20.0));
        assert_eq!(rows[0].ratio(&rows), None);
        let verdict = Verdict::of(&rows);
        assert_eq!(verdict.fastest_peer, Some(("fast", 3.0)));
        assert!(!verdict.goal_met());
        let text = render(&rows);
        assert!(text.contains("GOAL MISSED"), "{text}");
        assert!(text.contains("20.00x"), "{text}");
        assert!(text.contains("(ok)"), "{text}");
    }

    #[test]
    fn an_allocating_staggered_row_fails() {
        let rows = [row("ours", true, Shape::Full, 1.0, 0.1), row("peer", false, Shape::Full, 10.0, 0.0)];
        let verdict = Verdict::of(&rows);
        assert_eq!(verdict.allocating, vec!["ours"]);
        assert!(verdict.goal_met());
        assert!(render(&rows).contains("FAIL: staggered allocates"));
    }
}
