//! What a frontier measured: one row per (client count, point), a point
//! being a reference strategy or a candidate, with its place on the front
//! and against the target; and each candidate's standing over every client
//! count.

use std::cmp::Ordering;

use serde::Serialize;
use staggered::{Backoff, Strategy};

use super::{Candidate, FrontierParams};
use crate::{ContentionRow, ContentionStrategy, Summary};

/// What a point of the frontier is.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Entry {
    /// A reference strategy, run as the contention experiment runs it.
    Reference(ContentionStrategy),
    /// A candidate.
    Candidate(Candidate),
}

impl Entry {
    /// Its name: the strategy's, or the candidate's.
    pub fn name(&self) -> String {
        match self {
            Entry::Reference(strategy) => strategy.name().to_owned(),
            Entry::Candidate(candidate) => candidate.name(),
        }
    }
}

impl Serialize for Entry {
    /// The [`name`](Entry::name).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

/// One point: a client count and an entry, its measures, and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FrontierRow {
    /// The client count N.
    pub clients: u32,
    /// The reference or candidate.
    pub entry: Entry,
    /// Calls (writes that reached the server) per run.
    pub calls: Summary,
    /// Completion time per run, in time units.
    pub time: Summary,
    /// Whether it is on the Pareto front: no other point of this client
    /// count has mean calls and mean time both at most its own, one of them
    /// lower.
    pub front: bool,
    /// Its mean calls over `full`'s at this client count, if `full` is a reference.
    pub calls_vs_full: Option<f64>,
    /// Its mean time over `decorrelated`'s, if `decorrelated` is a reference.
    pub time_vs_decorrelated: Option<f64>,
    /// Whether both ratios are within 1 plus the margin; `None` without
    /// both references.
    pub on_target: Option<bool>,
}

/// A candidate over every client count: its worst ratios to the target's
/// references, where it is on the front, and whether it reached the target
/// everywhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Standing {
    /// The candidate.
    pub candidate: Candidate,
    /// Its largest ratio of mean calls to `full`'s, and the client count
    /// where it is (the first on a tie); `None` without `full`.
    pub calls_vs_full: Option<(f64, u32)>,
    /// Its largest ratio of mean time to `decorrelated`'s, and where.
    pub time_vs_decorrelated: Option<(f64, u32)>,
    /// The client counts at which it is on the front.
    pub fronts: Vec<u32>,
    /// Whether it reached the target at every client count; `None` without
    /// the target's references.
    pub dominates: Option<bool>,
}

impl Standing {
    /// How far it is from the target at its worst client count: the larger
    /// of its two worst ratios, less 1 (0.012: 1.2% over); `None` without
    /// the target. It dominates when this is at most the margin.
    pub fn excess(&self) -> Option<f64> {
        Some(self.calls_vs_full?.0.max(self.time_vs_decorrelated?.0) - 1.0)
    }
}

/// What [`FrontierParams`] ran to: for each client count in order, a row
/// per reference, then a row per candidate, both in the parameters' order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrontierReport {
    config: FrontierParams,
    candidates: Vec<Candidate>,
    /// The library schedule of each reference, then of each candidate.
    #[serde(skip)]
    schedules: Vec<Backoff>,
    rows: Vec<FrontierRow>,
}

impl FrontierReport {
    /// A report from the references' rows (the contention experiment's) and
    /// the candidates' (calls, time) summaries, client counts major.
    pub(super) fn new(
        config: FrontierParams,
        candidates: Vec<Candidate>,
        schedules: Vec<Backoff>,
        references: &[ContentionRow],
        summaries: &[(Summary, Summary)],
    ) -> Self {
        let count = candidates.len();
        let mut rows = Vec::with_capacity(references.len() + summaries.len());
        for (i, &clients) in config.clients.0.iter().enumerate() {
            let first = rows.len();
            for row in references.iter().filter(|row| row.clients == clients) {
                rows.push(point(clients, Entry::Reference(row.strategy), row.calls, row.time));
            }
            for (candidate, &(calls, time)) in candidates.iter().zip(&summaries[i * count..]) {
                rows.push(point(clients, Entry::Candidate(*candidate), calls, time));
            }
            place(&mut rows[first..], config.margin.0);
        }
        FrontierReport { config, candidates, schedules, rows }
    }

    /// The parameters that produced this report.
    pub const fn config(&self) -> &FrontierParams {
        &self.config
    }

    /// Every candidate, in the parameters' order.
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// The library schedule of each reference, then of each candidate.
    pub fn schedules(&self) -> &[Backoff] {
        &self.schedules
    }

    /// Every row: for each client count in order, the references, then the
    /// candidates.
    pub fn rows(&self) -> &[FrontierRow] {
        &self.rows
    }

    /// The rows of one client count.
    pub fn rows_for(&self, clients: u32) -> impl Iterator<Item = &FrontierRow> + Clone + '_ {
        self.rows.iter().filter(move |row| row.clients == clients)
    }

    /// The reference `strategy`'s row at `clients`, if it ran.
    pub fn reference(&self, clients: u32, strategy: Strategy) -> Option<&FrontierRow> {
        let entry = Entry::Reference(ContentionStrategy::Backoff(strategy));
        self.rows_for(clients).find(|row| row.entry == entry)
    }

    /// Each candidate's standing over every client count, in the
    /// parameters' order.
    pub fn standings(&self) -> Vec<Standing> {
        self.candidates
            .iter()
            .map(|candidate| {
                let entry = Entry::Candidate(*candidate);
                let rows: Vec<&FrontierRow> = self.rows.iter().filter(|row| row.entry == entry).collect();
                Standing {
                    candidate: *candidate,
                    calls_vs_full: worst(rows.iter().map(|r| (r.calls_vs_full, r.clients))),
                    time_vs_decorrelated: worst(rows.iter().map(|r| (r.time_vs_decorrelated, r.clients))),
                    fronts: rows.iter().filter(|r| r.front).map(|r| r.clients).collect(),
                    dominates: rows.iter().map(|r| r.on_target).try_fold(true, |all, on| Some(all && on?)),
                }
            })
            .collect()
    }
}

/// The largest of `ratios` and its client count (the first on a tie);
/// `None` if any ratio is missing.
fn worst(ratios: impl Iterator<Item = (Option<f64>, u32)>) -> Option<(f64, u32)> {
    let mut worst: Option<(f64, u32)> = None;
    for (ratio, clients) in ratios {
        let ratio = ratio?;
        if worst.is_none_or(|(largest, _)| ratio > largest) {
            worst = Some((ratio, clients));
        }
    }
    worst
}

/// A row not yet placed on the front or against the target.
fn point(clients: u32, entry: Entry, calls: Summary, time: Summary) -> FrontierRow {
    FrontierRow {
        clients,
        entry,
        calls,
        time,
        front: false,
        calls_vs_full: None,
        time_vs_decorrelated: None,
        on_target: None,
    }
}

/// Marks the front among `rows` (one client count) and measures each row
/// against `full`'s calls and `decorrelated`'s time.
fn place(rows: &mut [FrontierRow], margin: f64) {
    let reference = |strategy| {
        let entry = Entry::Reference(ContentionStrategy::Backoff(strategy));
        rows.iter().find(|row| row.entry == entry).copied()
    };
    let (full, decorrelated) = (reference(Strategy::Full), reference(Strategy::Decorrelated));
    for row in rows.iter_mut() {
        row.calls_vs_full = full.map(|full| row.calls.mean / full.calls.mean);
        row.time_vs_decorrelated = decorrelated.map(|d| row.time.mean / d.time.mean);
        row.on_target = row
            .calls_vs_full
            .zip(row.time_vs_decorrelated)
            .map(|(c, t)| c <= 1.0 + margin && t <= 1.0 + margin);
    }
    for i in front(rows) {
        rows[i].front = true;
    }
}

/// The indices of the rows no other beats on both means: sorted by calls,
/// then time, a row is on the front when its time is below that of every
/// row with fewer calls and is the least among rows with as many.
fn front(rows: &[FrontierRow]) -> Vec<usize> {
    let key = |i: &usize| (rows[*i].calls.mean, rows[*i].time.mean);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|a, b| {
        let ((ca, ta), (cb, tb)) = (key(a), key(b));
        ca.total_cmp(&cb).then(ta.total_cmp(&tb))
    });
    let mut on = Vec::new();
    let mut best_fewer = f64::INFINITY;
    let mut start = 0;
    while start < order.len() {
        let calls = key(&order[start]).0;
        let end = start
            + order[start..].iter().take_while(|i| key(i).0.total_cmp(&calls) == Ordering::Equal).count();
        let least = key(&order[start]).1;
        on.extend(order[start..end].iter().filter(|i| key(i).1 == least && least < best_fewer));
        best_fewer = best_fewer.min(least);
        start = end;
    }
    on.sort_unstable();
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(calls: f64, time: f64) -> FrontierRow {
        let summary = |mean| Summary { mean, std_dev: 1.0, min: mean, max: mean, runs: 4 };
        let candidate = Candidate::new(super::super::Family::Full, calls, 2.0, 0.0);
        point(10, Entry::Candidate(candidate), summary(calls), summary(time))
    }

    #[test]
    fn the_front_is_what_nothing_beats_on_both_measures() {
        let rows = [
            row(10.0, 50.0), // front: fewest calls
            row(12.0, 40.0), // front
            row(12.0, 45.0), // beaten by the one above (same calls, sooner)
            row(15.0, 40.0), // beaten: as soon, more calls
            row(20.0, 30.0), // front: soonest
            row(20.0, 30.0), // a tie with it: both on the front
            row(25.0, 35.0), // beaten on both
        ];
        assert_eq!(front(&rows), [0, 1, 4, 5]);
        assert_eq!(front(&[]), Vec::<usize>::new());
        assert_eq!(front(&rows[..1]), [0]);
    }

    #[test]
    fn rows_are_measured_against_full_and_decorrelated() {
        let mut rows = vec![row(100.0, 1000.0), row(100.5, 900.0), row(102.0, 850.0)];
        rows[0].entry = Entry::Reference(ContentionStrategy::Backoff(Strategy::Full));
        rows[2].entry = Entry::Reference(ContentionStrategy::Backoff(Strategy::Decorrelated));
        place(&mut rows, 0.01);
        let candidate = rows[1];
        assert_eq!(candidate.calls_vs_full, Some(1.005));
        assert!((candidate.time_vs_decorrelated.unwrap() - 900.0 / 850.0).abs() < 1e-12);
        assert_eq!(candidate.on_target, Some(false), "5.9% later than decorrelated");
        assert!(rows.iter().all(|r| r.front));
        place(&mut rows, 0.06);
        assert_eq!(rows[1].on_target, Some(true));
        let mut alone = vec![row(1.0, 1.0)];
        place(&mut alone, 0.01);
        assert_eq!((alone[0].calls_vs_full, alone[0].on_target), (None, None));
    }
}
