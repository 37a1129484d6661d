//! The reading under the hedging table: what the figures say, in a few
//! sentences derived from them (nothing here is written in advance: a run
//! where hedging pays at every load, or where the budget costs goodput,
//! reads so).

use std::time::Duration;

use staggered::config::format_duration;

use super::{HedgingParams, HedgingReport, HedgingRow};
use crate::fleet::Policy;
use crate::view::{format_significant, list, percent};

/// Goodputs closer than this (a fraction: 0.05 percentage points) are the
/// same for the reading.
pub const SAME_GOODPUT: f64 = 0.0005;

impl HedgingReport {
    /// The paragraphs under the table: what each policy did to the tail at
    /// the lightest load; at which load each stopped paying; what the
    /// budget did near the capacity; and goodput beyond it.
    pub fn paragraphs(&self) -> Vec<String> {
        reading(self.config(), self.rows())
    }
}

/// [`HedgingReport::paragraphs`] of these rows.
fn reading(config: &HedgingParams, rows: &[HedgingRow]) -> Vec<String> {
    let mut loads = config.loads.0.clone();
    loads.sort_by(f64::total_cmp);
    let at = |load: f64, policy| rows.iter().find(|row| row.load == load && row.policy == policy);
    let others: Vec<Policy> = config.policies.iter().copied().filter(|&p| p != Policy::NoRetry).collect();
    let mut paragraphs = Vec::new();
    let lightest = loads[0];
    if let Some(none) = at(lightest, Policy::NoRetry) {
        let rows: Vec<&HedgingRow> = others.iter().filter_map(|&p| at(lightest, p)).collect();
        paragraphs.extend(light(none, &rows));
        let series: Vec<(Policy, Vec<(&HedgingRow, &HedgingRow)>)> = others
            .iter()
            .map(|&policy| {
                let pairs =
                    loads.iter().filter_map(|&load| Some((at(load, Policy::NoRetry)?, at(load, policy)?)));
                (policy, pairs.collect())
            })
            .collect();
        paragraphs.extend(stops(&series));
    }
    let near = loads.iter().rev().copied().find(|&load| load < 1.0).filter(|&load| load > lightest);
    if let Some(near) = near {
        paragraphs.extend(saturation(config, at(near, Policy::NoRetry), |p| at(near, p)));
    }
    let heaviest = loads[loads.len() - 1];
    if heaviest > 1.0 {
        let rows: Vec<&HedgingRow> = config.policies.iter().filter_map(|&p| at(heaviest, p)).collect();
        let each: Vec<String> =
            rows.iter().map(|row| format!("{} {}", row.policy, goodput(row.goodput))).collect();
        paragraphs.push(format!(
            "Beyond the capacity, at {} load, the server rejects what it cannot queue: goodput was {}.",
            percent(heaviest),
            list(each.iter().map(String::as_str))
        ));
    }
    paragraphs
}

/// What each policy did to `no-retry`'s tail at the lightest load.
fn light(none: &HedgingRow, rows: &[&HedgingRow]) -> Option<String> {
    let mut sentence = format!("At {} load, no-retry's p99.9 was {}", percent(none.load), latency(none.p999));
    if none.p999.is_none() {
        sentence += &format!(" ({} of its operations failed)", share_failed(none));
    }
    let Some(base) = none.p999.filter(|_| !rows.is_empty()) else { return Some(sentence + ".") };
    let each: Vec<String> = rows
        .iter()
        .map(|row| {
            let extra = format!("for {} more attempts", share(row.attempts_per_operation - 1.0));
            match row.p999 {
                Some(p999) if p999 < base => {
                    let ratio = base.as_secs_f64() / p999.as_secs_f64();
                    format!(
                        "{} cut it to {}, {ratio:.1} times lower, {extra}",
                        row.policy,
                        latency(Some(p999))
                    )
                }
                Some(p999) => format!("{} had {}, no lower, {extra}", row.policy, latency(Some(p999))),
                None => format!("{}'s failed ({} of its operations), {extra}", row.policy, share_failed(row)),
            }
        })
        .collect();
    Some(format!("{sentence}: {}.", each.join("; ")))
}

/// At which load each policy stopped beating `no-retry`: its p99.9 no
/// lower (a failed percentile is the highest), or its goodput lower.
fn stops(series: &[(Policy, Vec<(&HedgingRow, &HedgingRow)>)]) -> Option<String> {
    let beats = |none: &HedgingRow, row: &HedgingRow| {
        let tail = match (row.p999, none.p999) {
            (Some(p999), Some(base)) => p999 < base,
            (Some(_), None) => true,
            (None, _) => false,
        };
        tail && lost(row, none).is_none()
    };
    let mut each = Vec::new();
    for (policy, pairs) in series {
        let stop = pairs.iter().position(|(none, row)| !beats(none, row));
        each.push(match stop.map(|i| (i, pairs[i])) {
            _ if pairs.is_empty() => continue,
            None => format!("{policy} beat it at every load"),
            Some((0, (_, row))) => format!("{policy} did not beat it even at {}", percent(row.load)),
            Some((_, (none, row))) => {
                let why = if lost(row, none).is_some() {
                    format!(
                        "goodput {} against {}, {} attempts per operation",
                        goodput(row.goodput),
                        goodput(none.goodput),
                        times(row.attempts_per_operation)
                    )
                } else {
                    format!("p99.9 {} against {}", latency(row.p999), latency(none.p999))
                };
                format!("{policy} stopped at {} ({why})", percent(row.load))
            }
        });
    }
    (!each.is_empty()).then(|| {
        format!(
            "Against no-retry, a policy pays while its p99.9 is lower and its goodput no lower: {}.",
            each.join("; ")
        )
    })
}

/// Near the capacity: what the budget let through and what it saved.
fn saturation<'a>(
    config: &HedgingParams,
    none: Option<&'a HedgingRow>,
    at: impl Fn(Policy) -> Option<&'a HedgingRow>,
) -> Option<String> {
    let none = none?;
    let mut sentences = Vec::new();
    let load = none.load;
    if let Some(budgeted) = at(Policy::HedgeRatio) {
        let extra = budgeted.attempts_per_operation - 1.0;
        let allowed = config.budget_share(load);
        let within = if extra <= allowed { "within" } else { "above" };
        let budget = format!(
            "{} of the requests plus {}/s: {} at this load",
            percent(config.ratio_percent.0),
            config.ratio_min_per_sec,
            share(allowed)
        );
        let change = lost(budgeted, none)
            .map_or_else(|| "not lower".to_owned(), |p| format!("lower by {p:.2} points"));
        sentences.push(format!(
            "At {} load, near the capacity, hedge+ratio sent {} more attempts, {within} its budget's share \
             ({budget}), for a goodput of {} against no-retry's {}: {change}.",
            percent(load),
            share(extra),
            goodput(budgeted.goodput),
            goodput(none.goodput),
        ));
    }
    let unbudgeted: Vec<String> = [Policy::Hedge, Policy::HedgeLearned]
        .into_iter()
        .filter_map(&at)
        .map(|row| {
            let cost = match lost(row, none) {
                None => "kept no-retry's goodput".to_owned(),
                Some(points) => format!("lost {points:.2} points of goodput"),
            };
            format!(
                "{} sent {} more attempts and {cost}",
                row.policy,
                share(row.attempts_per_operation - 1.0)
            )
        })
        .collect();
    if !unbudgeted.is_empty() {
        sentences.push(format!("Without a budget, {}.", unbudgeted.join("; ")));
    }
    if let Some(retry) = at(Policy::Retry) {
        sentences.push(format!(
            "retry, its attempts cut after {}, made {} attempts per operation for a goodput of {}.",
            format_duration(config.timeout.0),
            times(retry.attempts_per_operation),
            goodput(retry.goodput)
        ));
    }
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// The percentage points of goodput `row` lost against `none`'s, if it
/// lost more than [`SAME_GOODPUT`].
fn lost(row: &HedgingRow, none: &HedgingRow) -> Option<f64> {
    (row.goodput < none.goodput - SAME_GOODPUT).then_some(100.0 * (none.goodput - row.goodput))
}

/// A latency with three significant digits, or `failed`.
pub(super) fn latency(latency: Option<Duration>) -> String {
    latency.map_or_else(|| "failed".to_owned(), |d| format_significant(d, 3))
}

/// Attempts per operation with three decimals: `1.044`.
pub(super) fn times(attempts_per_operation: f64) -> String {
    format!("{attempts_per_operation:.3}")
}

/// A goodput as a percentage with two decimals: `98.50%`.
pub(super) fn goodput(goodput: f64) -> String {
    format!("{:.2}%", 100.0 * goodput)
}

/// A share as a percentage with one decimal: `4.4%`.
fn share(fraction: f64) -> String {
    format!("{:.1}%", 100.0 * fraction)
}

/// The share of `row`'s operations that failed: `0.86%`.
fn share_failed(row: &HedgingRow) -> String {
    format!("{:.2}%", 100.0 * (1.0 - row.goodput))
}
