//! The reading under the overload table: what the figures say, in a few
//! sentences derived from them (nothing here is written in advance: a run
//! where retries recover, or a budget does not, reads so).

use std::time::Duration;

use staggered_sim::OverloadPolicy;

use super::results::{Facts, PolicyResult};
use crate::duration;
use crate::simulate::config::show;

/// The amplification a budget may let through once drained: the issue's
/// bound (a budget that holds it keeps the extra load to a quarter).
pub const AMPLIFICATION_BOUND: f64 = 1.25;

/// A budget whose worst second once drained passes this much amplification
/// spends its allowance in bursts.
pub const BURST: f64 = 1.5;

/// Goodputs closer than this (a fraction: 0.05 percentage points) are the
/// same for the reading.
pub const SAME_GOODPUT: f64 = 0.0005;

/// Amplifications closer than this are the same for the reading (the
/// reading shows three decimals).
pub const SAME_AMPLIFICATION: f64 = 0.0005;

/// The paragraphs of the reading: with a trigger, what retries without a
/// budget did, then what the budgets did; without one, what the budgets
/// cost.
pub fn reading(facts: &Facts, rows: &[PolicyResult]) -> Vec<String> {
    let from = facts.trigger.map_or(Duration::ZERO, |t| t.end());
    let room = facts.duration.saturating_sub(from);
    if room < facts.recovery_window {
        // Every "never" would be the run's length speaking, not the policy.
        let after = if facts.trigger.is_some() { " after the trigger" } else { "" };
        return vec![format!(
            "The run leaves {}{after}, less than the recovery window ({}): recovery cannot be judged; \
             lengthen --duration.",
            duration::format(room),
            duration::format(facts.recovery_window)
        )];
    }
    let find = |policy| rows.iter().find(|row| row.policy == policy);
    let budgets: Vec<&PolicyResult> = rows.iter().filter(|row| row.policy.has_budget()).collect();
    let paragraphs = if facts.trigger.is_some() {
        vec![
            without_budget(facts, find(OverloadPolicy::NoRetry), find(OverloadPolicy::Retry)),
            with_budgets(&budgets),
        ]
    } else {
        vec![
            rare_failures(find(OverloadPolicy::NoRetry), find(OverloadPolicy::Retry), &budgets),
            unrecovered(facts, rows),
        ]
    };
    paragraphs.into_iter().flatten().collect()
}

/// What `retry` did after the trigger, and `no-retry` for comparison.
fn without_budget(
    facts: &Facts,
    no_retry: Option<&PolicyResult>,
    retry: Option<&PolicyResult>,
) -> Option<String> {
    let mut sentences = Vec::new();
    if let Some(retry) = retry {
        sentences.push(match retry.recovery_time {
            Some(t) => format!(
                "retry without a budget recovered {} after the trigger, at {} the offered load during it.",
                duration::format(t),
                times(retry.amplification_trigger.unwrap_or(retry.amplification))
            ),
            None if facts.arrival_rate >= facts.capacity => format!(
                "retry without a budget never recovered, nor could any policy: the offered load alone ({}/s) \
                 is at or above the capacity ({}/s).",
                show(facts.arrival_rate),
                show(facts.capacity)
            ),
            None => {
                let after = retry.amplification_after.unwrap_or(retry.amplification);
                let every_attempt = if facts.attempts > 1 && after >= f64::from(facts.attempts) - 0.01 {
                    format!(", every operation making all {} attempts", facts.attempts)
                } else {
                    String::new()
                };
                format!(
                    "retry without a budget never recovered: a metastable failure. After the trigger it sent {} \
                     the offered load to the server ({:.0}/s for a capacity of {}/s){every_attempt}, and {} of \
                     its attempts timed out: work the server did for clients that had given up.",
                    times(after),
                    after * facts.arrival_rate,
                    show(facts.capacity),
                    share(retry.timed_out, retry.attempts)
                )
            }
        });
    }
    if let Some(no_retry) = no_retry {
        sentences.push(match no_retry.recovery_time {
            Some(t) => {
                format!("Without retries the server recovered {} after the trigger.", duration::format(t))
            }
            None => "Without retries the server never recovered.".to_owned(),
        });
    }
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// Whether the budgets recovered, how much load they let through once
/// drained, and which one recovered last and why.
fn with_budgets(budgets: &[&PolicyResult]) -> Option<String> {
    if budgets.is_empty() {
        return None;
    }
    let (recovered, never): (Vec<&PolicyResult>, Vec<&PolicyResult>) =
        budgets.iter().partition(|row| row.recovered);
    let latest = recovered.iter().copied().max_by_key(|row| row.recovery_time);
    let mut sentences = Vec::new();
    let within = |row: &PolicyResult| row.recovery_time.map_or_else(String::new, duration::format);
    match (&never[..], latest) {
        ([], Some(latest)) if budgets.len() == 1 => {
            sentences.push(format!("{} recovered {} after the trigger", latest.policy, within(latest)))
        }
        ([], Some(latest)) => {
            sentences.push(format!("Every budget recovered, within {} of the trigger's end", within(latest)))
        }
        (never, _) => {
            let names = names(never.iter().copied());
            let mut sentence = format!("{names} never recovered despite the budget");
            if let Some(latest) = latest {
                sentence += &format!("; {} recovered within {}", names_of(&recovered), within(latest));
            }
            sentences.push(sentence);
        }
    }
    let drained: Vec<(&PolicyResult, f64)> =
        budgets.iter().filter_map(|row| Some((*row, row.amplification_drained?))).collect();
    let worst = drained.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    let last = sentences.last_mut().expect("a sentence");
    match worst {
        Some((row, worst)) if worst <= AMPLIFICATION_BOUND => {
            let whom = if drained.len() > 1 {
                format!("worst: {}, {worst:.2}", row.policy)
            } else {
                format!("{worst:.2}")
            };
            *last +=
                &format!(", and once drained kept amplification at or below {AMPLIFICATION_BOUND} ({whom}).");
        }
        Some((row, worst)) => {
            *last += &format!(
                "; once drained, {} let amplification reach {worst:.2}, above {AMPLIFICATION_BOUND}.",
                row.policy
            );
        }
        None => *last += ".",
    }
    let undrained: Vec<&PolicyResult> = budgets.iter().copied().filter(|row| row.refused == 0).collect();
    if !undrained.is_empty() {
        sentences.push(format!("{} never refused a retry.", names(undrained.into_iter())));
    }
    let first = recovered.iter().copied().min_by_key(|row| row.recovery_time);
    if let (Some(latest), Some(first)) = (latest, first) {
        if recovered.len() > 1 && latest.recovery_time > first.recovery_time {
            let mut sentence = format!("{} recovered last", latest.policy);
            match latest.peak_amplification_drained {
                Some(peak) if peak > BURST => {
                    sentence += &format!(
                        ": it spends its allowance in bursts, up to {} the offered load in one second once drained",
                        times(peak)
                    );
                }
                _ => {}
            }
            sentences.push(sentence + ".");
        }
    }
    Some(sentences.join(" "))
}

/// Without a trigger: whether the budgets cost anything against `retry`.
fn rare_failures(
    no_retry: Option<&PolicyResult>,
    retry: Option<&PolicyResult>,
    budgets: &[&PolicyResult],
) -> Option<String> {
    let retry = retry?;
    if budgets.is_empty() {
        return None;
    }
    let free = budgets.iter().all(|row| {
        row.refused == 0
            && (row.goodput - retry.goodput).abs() < SAME_GOODPUT
            && (row.amplification - retry.amplification).abs() < SAME_AMPLIFICATION
    });
    let mut sentence = if free {
        format!(
            "Without a trigger the budgets cost nothing: none refused a retry, and each kept retry's goodput \
             ({}) and amplification ({:.3}).",
            goodput(retry.goodput),
            retry.amplification
        )
    } else {
        let each: Vec<String> = budgets
            .iter()
            .map(|row| format!("{} refused {} (goodput {})", row.policy, row.refused, goodput(row.goodput)))
            .collect();
        format!(
            "Without a trigger the budgets still refused retries: {}, against {} for retry.",
            each.join(", "),
            goodput(retry.goodput)
        )
    };
    if let Some(no_retry) = no_retry {
        sentence += &format!(" Without retries goodput was {}.", goodput(no_retry.goodput));
    }
    Some(sentence)
}

/// Without a trigger, the policies whose goodput never held the threshold.
fn unrecovered(facts: &Facts, rows: &[PolicyResult]) -> Option<String> {
    let never: Vec<&PolicyResult> = rows.iter().filter(|row| !row.recovered).collect();
    (!never.is_empty()).then(|| {
        format!(
            "{} never held goodput at {} of the offered load for {}.",
            names(never.into_iter()),
            super::results::percent(facts.recovery_threshold),
            duration::format(facts.recovery_window)
        )
    })
}

/// `2.81x`.
fn times(amplification: f64) -> String {
    format!("{amplification:.2}x")
}

/// A goodput as a percentage with two decimals: `86.33%`.
pub fn goodput(goodput: f64) -> String {
    format!("{:.2}%", 100.0 * goodput)
}

/// `part / whole` as a whole percentage: `94%`.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "none".to_owned();
    }
    format!("{:.0}%", 100.0 * part as f64 / whole as f64)
}

/// The policies' names: `a`, `a and b`, `a, b and c`.
fn names<'a>(rows: impl Iterator<Item = &'a PolicyResult>) -> String {
    let names: Vec<&str> = rows.map(|row| row.policy.name()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// [`names`] of a slice.
fn names_of(rows: &[&PolicyResult]) -> String {
    names(rows.iter().copied())
}

/// The recovery times of `rows`, for tests.
#[cfg(test)]
fn recovery_times(rows: &[PolicyResult]) -> Vec<Option<Duration>> {
    rows.iter().map(|row| row.recovery_time).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::overload::results::fixtures::{self, row};

    fn read(results: &super::super::results::OverloadResults) -> Vec<String> {
        reading(&results.facts, &results.rows)
    }

    #[test]
    fn the_default_run_reads_as_a_metastable_failure_and_budgets_that_recover() {
        let results = fixtures::results();
        assert_eq!(recovery_times(&results.rows)[1], None);
        let reading = read(&results);
        assert_eq!(reading.len(), 2, "{reading:#?}");
        assert_eq!(
            reading[0],
            "retry without a budget never recovered: a metastable failure. After the trigger it sent 3.00x the \
             offered load to the server (2100/s for a capacity of 1000/s), every operation making all 3 \
             attempts, and 0% of its attempts timed out: work the server did for clients that had given up. \
             Without retries the server recovered 4s after the trigger."
        );
        assert_eq!(
            reading[1],
            "Every budget recovered, within 14s of the trigger's end, and once drained kept amplification at or \
             below 1.25 (worst: retry+ratio, 1.13). retry+ratio recovered last: it spends its allowance in \
             bursts, up to 2.21x the offered load in one second once drained."
        );
    }

    #[test]
    fn other_outcomes_read_otherwise() {
        let mut results = fixtures::results();
        results.rows[1] = row(OverloadPolicy::Retry, 0.8, Some(6), 1.5, 1.1, None, 0);
        results.rows[3] = row(OverloadPolicy::Ratio, 0.5, None, 1.4, 1.3, Some((1.3, 2.0)), 11311);
        results.rows[4].refused = 0;
        let reading = read(&results);
        assert!(
            reading[0].starts_with("retry without a budget recovered 6s after the trigger, at 1.50x"),
            "{reading:?}"
        );
        assert_eq!(
            reading[1],
            "retry+ratio never recovered despite the budget; retry+token-bucket and retry+throttle recovered \
             within 4s; once drained, retry+ratio let amplification reach 1.30, above 1.25. retry+throttle never \
             refused a retry."
        );
        results.rows.retain(|row| row.policy == OverloadPolicy::TokenBucket);
        assert_eq!(
            read(&results),
            ["retry+token-bucket recovered 4s after the trigger, and once drained kept amplification at or below \
              1.25 (1.00)."]
        );
        results.facts.arrival_rate = 1000.0;
        results.rows = vec![row(OverloadPolicy::Retry, 0.1, None, 3.0, 3.0, None, 0)];
        assert!(read(&results)[0].contains("nor could any policy: the offered load alone (1000/s)"));
    }

    #[test]
    fn without_a_trigger_it_reads_what_budgets_cost() {
        let mut results = fixtures::results();
        results.facts.trigger = None;
        for row in &mut results.rows {
            let failed = if row.policy == OverloadPolicy::NoRetry { 0.0097 } else { 0.0 };
            (row.goodput, row.amplification, row.refused, row.recovered) = (1.0 - failed, 1.0099, 0, true);
        }
        results.rows[0].amplification = 1.0;
        let reading = read(&results);
        assert_eq!(
            reading,
            ["Without a trigger the budgets cost nothing: none refused a retry, and each kept retry's goodput \
              (100.00%) and amplification (1.010). Without retries goodput was 99.03%."]
        );
        results.rows[2].refused = 3;
        results.rows[0].recovered = false;
        let reading = read(&results);
        assert!(reading[0].starts_with("Without a trigger the budgets still refused retries: retry+token-bucket refused 3 (goodput 100.00%), "), "{reading:?}");
        assert_eq!(reading[1], "no-retry never held goodput at 95% of the offered load for 5s.");
    }

    #[test]
    fn a_run_too_short_for_the_window_says_so() {
        let mut results = fixtures::results();
        results.facts.duration = Duration::from_secs(14);
        assert_eq!(
            read(&results),
            ["The run leaves 4s after the trigger, less than the recovery window (5s): recovery cannot be \
              judged; lengthen --duration."]
        );
        results.facts.trigger = None;
        results.facts.duration = Duration::from_millis(1500);
        assert!(read(&results)[0].starts_with("The run leaves 1.5s, less than"));
    }
}
