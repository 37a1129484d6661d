//! The outline of a band: its boxes, where one ends where the next starts
//! (a count per second), are one area under a step line, rather than a
//! wall of boxes each with its own edges.

use staggered_sim::view::BandBox;

/// The boxes of `boxes` in runs, each box of a run starting where the one
/// before it ends.
pub fn runs(boxes: &[BandBox]) -> Vec<&[BandBox]> {
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=boxes.len() {
        if i == boxes.len() || boxes[i].from != boxes[i - 1].to {
            runs.push(&boxes[start..i]);
            start = i;
        }
    }
    runs
}

/// The closed outline of a run of boxes: along their tops from left to
/// right, then along their bottoms back.
pub fn outline(run: &[BandBox]) -> Vec<(f64, f64)> {
    let tops = run.iter().flat_map(|b| [(b.from, b.high), (b.to, b.high)]);
    let bottoms = run.iter().rev().flat_map(|b| [(b.to, b.low), (b.from, b.low)]);
    tops.chain(bottoms).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(from: f64, to: f64, high: f64) -> BandBox {
        BandBox { from, to, low: 0.0, high }
    }

    #[test]
    fn touching_boxes_are_one_run_under_a_step_line() {
        let boxes = [boxed(0.0, 1.0, 5.0), boxed(1.0, 2.0, 3.0), boxed(2.5, 3.0, 4.0)];
        let runs = runs(&boxes);
        assert_eq!(runs.len(), 2, "a gap starts another run");
        assert_eq!(runs[0], &boxes[..2]);
        assert_eq!(
            outline(runs[0]),
            [(0.0, 5.0), (1.0, 5.0), (1.0, 3.0), (2.0, 3.0), (2.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 0.0)]
        );
        assert_eq!(outline(runs[1]), [(2.5, 4.0), (3.0, 4.0), (3.0, 0.0), (2.5, 0.0)], "a box alone");
        assert!(super::runs(&[]).is_empty());
    }
}
