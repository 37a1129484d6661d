//! The retry-loop tables and their goal verdicts, as plain text (pure
//! functions, tested without timing anything).

use std::fmt::Write as _;

use super::{Driver, Info, Path, Role};
use crate::harness::Timing;

/// The most the blocking loop may add to a successful call, in ns (the project's goal).
pub const BLOCKING_GOAL_NS: f64 = 1.0;
/// The most the async loop may add to a successful call, in ns (the project's goal).
pub const ASYNC_GOAL_NS: f64 = 10.0;
/// The most the blocking loop may add to a call that fails once, in ns (the
/// project's goal: about one jittered delay and the limit checks).
pub const BLOCKING_FAIL_GOAL_NS: f64 = 10.0;

/// Rows of staggered that may add no more over bare than a peer's row of the
/// same driver and path (the project's goals): staggered's row name, the
/// peer's row name.
pub const PEER_GOALS: [(Driver, Path, &str, &str); 2] = [
    (Driver::Async, Path::Success, "staggered", "tokio-retry"),
    (Driver::Async, Path::FailOnce, "staggered-ready", "backon-ready"),
];

/// One measured row.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// What was measured.
    pub info: Info,
    /// How long a call took.
    pub timing: Timing,
    /// Heap allocations per call, over a counted run after warm-up.
    pub allocations_per_call: f64,
}

impl Measured {
    /// Heap allocations per attempt (per call of the operation).
    pub fn allocations_per_attempt(&self) -> f64 {
        self.allocations_per_call / self.info.path.attempts() as f64
    }

    /// The bare row of the same driver and path.
    fn baseline<'a>(&self, rows: &'a [Measured]) -> Option<&'a Measured> {
        rows.iter().find(|r| {
            r.info.role == Role::Bare && r.info.driver == self.info.driver && r.info.path == self.info.path
        })
    }

    /// Median and min ns per call over those of the bare row.
    pub fn overhead(&self, rows: &[Measured]) -> Option<(f64, f64)> {
        self.baseline(rows).map(|bare| {
            (self.timing.median_ns - bare.timing.median_ns, self.timing.min_ns - bare.timing.min_ns)
        })
    }
}

/// A goal of the project and whether staggered met it.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    /// What the goal says.
    pub text: String,
    /// What was measured.
    pub measured: String,
    /// Whether it was met.
    pub met: bool,
    /// Whether the verdict is exact (allocation counts) rather than a timing.
    pub exact: bool,
}

/// The project's goals, judged on the staggered rows: overhead over bare
/// (by median ns) on the success path and on the blocking fail-once path,
/// overhead at most a peer's ([`PEER_GOALS`]), and no allocation on any path.
pub fn goals(rows: &[Measured]) -> Vec<Goal> {
    let mut goals = Vec::new();
    for row in rows.iter().filter(|r| r.info.role == Role::Staggered) {
        let driver = driver_name(row.info.driver);
        let limit = match (row.info.path, row.info.driver) {
            (Path::Success, Driver::Blocking) => Some(BLOCKING_GOAL_NS),
            (Path::Success, Driver::Async) => Some(ASYNC_GOAL_NS),
            (Path::FailOnce, Driver::Blocking) => Some(BLOCKING_FAIL_GOAL_NS),
            // Async fail-once: measured against a peer (below); the rows on
            // tokio's timer wait for its next 1 ms tick.
            (Path::FailOnce, Driver::Async) => None,
        };
        if let (Some(limit), Some((median, min))) = (limit, row.overhead(rows)) {
            goals.push(Goal {
                text: format!(
                    "{}, {driver} {}: at most {limit} ns over bare",
                    row.info.name,
                    path_name(row.info.path)
                ),
                measured: format!("{median:+.2} ns (median), {min:+.2} ns (min)"),
                met: median <= limit,
                exact: false,
            });
        }
        let peer = PEER_GOALS
            .iter()
            .filter(|(d, p, name, _)| *d == row.info.driver && *p == row.info.path && *name == row.info.name)
            .find_map(|(_, _, _, peer)| {
                rows.iter().find(|r| {
                    r.info.name == *peer && r.info.driver == row.info.driver && r.info.path == row.info.path
                })
            });
        if let Some(peer) = peer {
            if let (Some((median, _)), Some((peer_median, _))) = (row.overhead(rows), peer.overhead(rows)) {
                goals.push(Goal {
                    text: format!(
                        "{}, {driver} {}: at most {}'s over bare",
                        row.info.name,
                        path_name(row.info.path),
                        peer.info.name
                    ),
                    measured: format!("{median:+.2} ns against {peer_median:+.2} ns (medians)"),
                    met: median <= peer_median,
                    exact: false,
                });
            }
        }
        let unit = match row.info.path {
            Path::Success => "call",
            Path::FailOnce => "attempt",
        };
        goals.push(Goal {
            text: format!(
                "{}, {driver} {}: no heap allocation per {unit}",
                row.info.name,
                path_name(row.info.path)
            ),
            measured: format!("{} per {unit}", row.allocations_per_attempt()),
            met: row.allocations_per_call == 0.0,
            exact: true,
        });
    }
    goals
}

fn driver_name(driver: Driver) -> &'static str {
    match driver {
        Driver::Blocking => "blocking",
        Driver::Async => "async",
    }
}

fn path_name(path: Path) -> &'static str {
    match path {
        Path::Success => "success path",
        Path::FailOnce => "fail-once path",
    }
}

/// One table per driver and path, in the order of `rows`, each followed by a
/// blank line; then the goals.
pub fn render(rows: &[Measured]) -> String {
    let mut out = String::new();
    let mut groups: Vec<(Driver, Path)> = Vec::new();
    for row in rows {
        if !groups.contains(&(row.info.driver, row.info.path)) {
            groups.push((row.info.driver, row.info.path));
        }
    }
    for (driver, path) in groups {
        let _ = writeln!(out, "{} {}:", driver_name(driver), path_name(path));
        let group: Vec<&Measured> =
            rows.iter().filter(|r| r.info.driver == driver && r.info.path == path).collect();
        out.push_str(&table(&group, rows));
        out.push('\n');
    }
    for goal in goals(rows) {
        let status = match (goal.met, goal.exact) {
            (true, _) => "met",
            (false, true) => "FAIL",
            (false, false) => "MISSED",
        };
        let _ = writeln!(out, "goal {status}: {}: {}", goal.text, goal.measured);
    }
    out.push_str(
        "Instructions per call beside these timings (repeatable where they are not): \
         crates/bench/callgrind.sh --bench retry_loop\n",
    );
    out
}

/// Nanoseconds with two decimals, or none from 1000 ns on (the timer rows).
fn ns(value: f64, signed: bool) -> String {
    match (value.abs() >= 1000.0, signed) {
        (true, true) => format!("{value:+.0}"),
        (true, false) => format!("{value:.0}"),
        (false, true) => format!("{value:+.2}"),
        (false, false) => format!("{value:.2}"),
    }
}

fn table(group: &[&Measured], rows: &[Measured]) -> String {
    let header =
        ["crate", "call", "built per call", "ns/call", "min", "over bare", "allocs/call", "allocs/attempt"];
    let mut cells: Vec<[String; 8]> = vec![header.map(String::from)];
    for row in group {
        let over = match (row.info.role, row.overhead(rows)) {
            (Role::Bare, _) | (_, None) => "-".to_string(),
            (_, Some((median, _))) => ns(median, true),
        };
        cells.push([
            row.info.name.to_string(),
            row.info.api.to_string(),
            row.info.per_call.to_string(),
            ns(row.timing.median_ns, false),
            ns(row.timing.min_ns, false),
            over,
            format!("{}", row.allocations_per_call),
            format!("{}", row.allocations_per_attempt()),
        ]);
    }
    crate::report::aligned(&cells, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(role: Role, driver: Driver, path: Path, ns: f64, allocs: f64) -> Measured {
        let name = match role {
            Role::Bare => "bare",
            Role::Staggered => "staggered",
            Role::Peer => "peer",
        };
        Measured {
            info: Info { name, slug: name.to_string(), role, driver, path, api: "a", per_call: "p" },
            timing: Timing { median_ns: ns, min_ns: ns - 0.5, max_ns: ns, batches_per_round: 1, rounds: 1 },
            allocations_per_call: allocs,
        }
    }

    #[test]
    fn overhead_is_over_the_bare_row_of_the_same_driver_and_path() {
        let rows = [
            row(Role::Bare, Driver::Blocking, Path::Success, 1.0, 0.0),
            row(Role::Bare, Driver::Async, Path::Success, 3.0, 0.0),
            row(Role::Staggered, Driver::Async, Path::Success, 10.0, 0.0),
        ];
        assert_eq!(rows[2].overhead(&rows), Some((7.0, 7.0)));
        assert_eq!(rows[0].overhead(&rows), Some((0.0, 0.0)));
    }

    #[test]
    fn goals_judge_time_over_bare_and_allocations_everywhere() {
        let rows = [
            row(Role::Bare, Driver::Blocking, Path::Success, 1.0, 0.0),
            row(Role::Staggered, Driver::Blocking, Path::Success, 2.5, 0.0),
            row(Role::Bare, Driver::Async, Path::Success, 3.0, 0.0),
            row(Role::Staggered, Driver::Async, Path::Success, 12.0, 0.0),
            row(Role::Bare, Driver::Blocking, Path::FailOnce, 3.0, 0.0),
            row(Role::Staggered, Driver::Blocking, Path::FailOnce, 30.0, 1.0),
            row(Role::Peer, Driver::Blocking, Path::FailOnce, 30.0, 4.0),
        ];
        let goals = goals(&rows);
        let met: Vec<bool> = goals.iter().map(|g| g.met).collect();
        assert_eq!(met, [false, true, true, true, false, false], "{goals:?}");
        assert_eq!(goals[4].text, "staggered, blocking fail-once path: at most 10 ns over bare");
        assert_eq!(goals[5].measured, "0.5 per attempt");
        let text = render(&rows);
        assert!(
            text.contains("goal MISSED: staggered, blocking success path: at most 1 ns over bare: +1.50 ns"),
            "{text}"
        );
        assert!(
            text.contains("goal FAIL: staggered, blocking fail-once path: no heap allocation per attempt"),
            "{text}"
        );
        assert!(
            text.contains("goal met: staggered, async success path: at most 10 ns over bare: +9.00 ns"),
            "{text}"
        );
        assert_eq!(text.matches("blocking fail-once path:\n").count(), 1, "{text}");
        assert!(text
            .contains("goal MISSED: staggered, blocking fail-once path: at most 10 ns over bare: +27.00 ns"));
        assert!(text.ends_with("crates/bench/callgrind.sh --bench retry_loop\n"), "{text}");
    }

    #[test]
    fn some_rows_are_judged_against_a_peer_of_the_same_driver_and_path() {
        let named = |name: &'static str, role, path, ns| {
            let mut r = row(role, Driver::Async, path, ns, 0.0);
            r.info.name = name;
            r
        };
        let rows = [
            named("bare", Role::Bare, Path::Success, 10.0),
            named("staggered", Role::Staggered, Path::Success, 15.0),
            named("tokio-retry", Role::Peer, Path::Success, 16.0),
            named("bare", Role::Bare, Path::FailOnce, 20.0),
            named("staggered", Role::Staggered, Path::FailOnce, 2000.0),
            named("staggered-ready", Role::Staggered, Path::FailOnce, 60.0),
            named("backon-ready", Role::Peer, Path::FailOnce, 50.0),
        ];
        let text = render(&rows);
        assert!(
            text.contains("goal met: staggered, async success path: at most tokio-retry's over bare: +5.00 ns against +6.00 ns"),
            "{text}"
        );
        assert!(
            text.contains(
                "goal MISSED: staggered-ready, async fail-once path: at most backon-ready's over bare: +40.00 ns against +30.00 ns"
            ),
            "{text}"
        );
        // The row on tokio's timer has no time goal (its 1 ms tick dominates).
        assert!(!text.contains("goal met: staggered, async fail-once path: at most"), "{text}");
        assert!(!text.contains("goal MISSED: staggered, async fail-once path: at most"), "{text}");
    }
}
