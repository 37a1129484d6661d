//! The reading under the overload table: what the figures say, in a few
//! sentences derived from them (nothing here is written in advance: a run
//! where retries recover, or a budget does not, reads so).

use std::time::Duration;

use staggered::config::format_duration;

use super::{OverloadParams, OverloadReport, OverloadRow};
use crate::fleet::Policy;
use crate::view::{format_rounded, list, number as show, percent};

/// The amplification a budget may let through once drained: a budget that
/// holds it keeps the extra load to a quarter.
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

impl OverloadReport {
    /// The paragraphs under the table: with a trigger, what retries without
    /// a budget did, then what the budgets did; without one, what the
    /// budgets cost.
    pub fn paragraphs(&self) -> Vec<String> {
        reading(self.config(), self.backoff().max_attempts().unwrap_or(1), self.rows())
    }
}

/// [`OverloadReport::paragraphs`] of these rows, whose operations made at
/// most `attempts` attempts.
fn reading(config: &OverloadParams, attempts: u32, rows: &[OverloadRow]) -> Vec<String> {
    let from = config.trigger().map_or(Duration::ZERO, |(_, end, _)| end);
    let room = config.duration.0.saturating_sub(from);
    if room < config.recovery_window.0 {
        // Every "never" would be the run's length speaking, not the policy.
        let after = if config.trigger().is_some() { " after the trigger" } else { "" };
        return vec![format!(
            "The run leaves {}{after}, less than the recovery window ({}): recovery cannot be judged; \
             lengthen the run.",
            format_duration(room),
            format_duration(config.recovery_window.0)
        )];
    }
    let find = |policy| rows.iter().find(|row| row.policy == policy);
    let budgets: Vec<&OverloadRow> = rows.iter().filter(|row| row.policy.has_budget()).collect();
    let paragraphs = if config.trigger().is_some() {
        vec![
            without_budget(config, attempts, find(Policy::NoRetry), find(Policy::Retry)),
            with_budgets(&budgets),
        ]
    } else {
        vec![rare_failures(find(Policy::NoRetry), find(Policy::Retry), &budgets), unrecovered(config, rows)]
    };
    paragraphs.into_iter().flatten().collect()
}

/// What `retry` did after the trigger, and `no-retry` for comparison.
fn without_budget(
    config: &OverloadParams,
    attempts: u32,
    no_retry: Option<&OverloadRow>,
    retry: Option<&OverloadRow>,
) -> Option<String> {
    let (capacity, arrival_rate) = (config.capacity.0, config.arrival_rate.0);
    let mut sentences = Vec::new();
    if let Some(retry) = retry {
        sentences.push(match retry.recovery_time {
            Some(t) => format!(
                "retry without a budget recovered {} after the trigger, at {} the offered load during it.",
                format_rounded(t),
                times(retry.amplification_trigger.unwrap_or(retry.amplification))
            ),
            None if arrival_rate >= capacity => format!(
                "retry without a budget never recovered, nor could any policy: the offered load alone ({}/s) \
                 is at or above the capacity ({}/s).",
                show(arrival_rate),
                show(capacity)
            ),
            None => {
                let after = retry.amplification_after.unwrap_or(retry.amplification);
                let every_attempt = if attempts > 1 && after >= f64::from(attempts) - 0.01 {
                    format!(", every operation making all {} attempts", attempts)
                } else {
                    String::new()
                };
                format!(
                    "retry without a budget never recovered: a metastable failure. After the trigger it sent {} \
                     the offered load to the server ({:.0}/s for a capacity of {}/s){every_attempt}, and {} of \
                     its attempts timed out: work the server did for clients that had given up.",
                    times(after),
                    after * arrival_rate,
                    show(capacity),
                    share(retry.timed_out, retry.attempts)
                )
            }
        });
    }
    if let Some(no_retry) = no_retry {
        sentences.push(match no_retry.recovery_time {
            Some(t) => {
                format!("Without retries the server recovered {} after the trigger.", format_rounded(t))
            }
            None => "Without retries the server never recovered.".to_owned(),
        });
    }
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// Whether the budgets recovered, how much load they let through once
/// drained, and which one recovered last and why.
fn with_budgets(budgets: &[&OverloadRow]) -> Option<String> {
    if budgets.is_empty() {
        return None;
    }
    let (recovered, never): (Vec<&OverloadRow>, Vec<&OverloadRow>) =
        budgets.iter().partition(|row| row.recovered);
    let latest = recovered.iter().copied().max_by_key(|row| row.recovery_time);
    let mut sentences = Vec::new();
    let within = |row: &OverloadRow| row.recovery_time.map_or_else(String::new, format_rounded);
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
    let drained: Vec<(&OverloadRow, f64)> =
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
    let undrained: Vec<&OverloadRow> = budgets.iter().copied().filter(|row| row.refused == 0).collect();
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
    no_retry: Option<&OverloadRow>,
    retry: Option<&OverloadRow>,
    budgets: &[&OverloadRow],
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
fn unrecovered(config: &OverloadParams, rows: &[OverloadRow]) -> Option<String> {
    let never: Vec<&OverloadRow> = rows.iter().filter(|row| !row.recovered).collect();
    (!never.is_empty()).then(|| {
        format!(
            "{} never held goodput at {} of the offered load for {}.",
            names(never.into_iter()),
            percent(config.recovery_threshold.0),
            format_duration(config.recovery_window.0)
        )
    })
}

/// `2.81x`.
fn times(amplification: f64) -> String {
    format!("{amplification:.2}x")
}

/// A goodput as a percentage with two decimals: `86.33%`.
pub(super) fn goodput(goodput: f64) -> String {
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
fn names<'a>(rows: impl Iterator<Item = &'a OverloadRow>) -> String {
    list(rows.map(|row| row.policy.name()))
}

/// [`names`] of a slice.
fn names_of(rows: &[&OverloadRow]) -> String {
    names(rows.iter().copied())
}

/// Rows shared by the reading's and the view's tests: the default run's
/// figures, rounded, over a 20 s run with a trigger from 5 s to 10 s.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::fleet::Series;
    use crate::values::{Span, Window};

    /// A policy's row with these figures and flat series.
    pub fn row(
        policy: Policy,
        goodput: f64,
        recovery: Option<u64>,
        (trigger, after): (f64, f64),
        drained: Option<(f64, f64)>,
        refused: u64,
    ) -> OverloadRow {
        let offered = vec![700; 20];
        let arrivals = offered.iter().map(|&n| (f64::from(n) * after) as u32).collect();
        let goodput_series = offered.iter().map(|&n| (f64::from(n) * goodput) as u32).collect();
        OverloadRow {
            policy,
            operations: 14_000,
            attempts: (14_000.0 * (trigger + after) / 2.0) as u64,
            succeeded: (14_000.0 * goodput) as u64,
            timed_out: 100,
            refused,
            goodput,
            amplification: (trigger + after) / 2.0,
            amplification_trigger: Some(trigger),
            amplification_after: Some(after),
            drained_at: drained.map(|_| Duration::from_millis(10_400)),
            amplification_drained: drained.map(|d| d.0),
            peak_amplification_drained: drained.map(|d| d.1),
            recovered: recovery.is_some(),
            recovery_time: recovery.map(Duration::from_secs),
            series: Series { offered, arrivals, goodput: goodput_series },
            response_time: vec![Duration::ZERO; 20],
        }
    }

    /// The parameters of the rows: 20 s, the trigger from 5 s to 10 s.
    pub fn config() -> OverloadParams {
        let trigger = Window::Between(Duration::from_secs(5), Duration::from_secs(10));
        OverloadParams { duration: Span(Duration::from_secs(20)), trigger, ..OverloadParams::default() }
    }

    /// The parameters of the rows, changed.
    pub fn config_with(change: impl FnOnce(&mut OverloadParams)) -> OverloadParams {
        let mut config = config();
        change(&mut config);
        config
    }

    /// Every policy, as the default run reads.
    pub fn rows() -> Vec<OverloadRow> {
        vec![
            row(Policy::NoRetry, 0.8633, Some(4), (1.0, 1.0), None, 0),
            row(Policy::Retry, 0.1686, None, (2.808, 3.0), None, 0),
            row(Policy::TokenBucket, 0.8622, Some(4), (1.014, 1.0), Some((1.0, 1.0)), 5798),
            row(Policy::Ratio, 0.7010, Some(14), (1.418, 1.048), Some((1.127, 2.213)), 11311),
            row(Policy::Throttle, 0.8633, Some(4), (1.001, 1.0), Some((1.0, 1.0)), 5754),
        ]
    }

    /// The report of [`config`] and [`rows`].
    pub fn report() -> OverloadReport {
        OverloadReport::new(config(), config().backoff().unwrap(), rows())
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{config, config_with, row, rows};
    use super::*;
    use crate::values::{Rate, Span, Window};

    #[test]
    fn the_default_run_reads_as_a_metastable_failure_and_budgets_that_recover() {
        let reading = reading(&config(), 3, &rows());
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
        let mut rows = rows();
        rows[1] = row(Policy::Retry, 0.8, Some(6), (1.5, 1.1), None, 0);
        rows[3] = row(Policy::Ratio, 0.5, None, (1.4, 1.3), Some((1.3, 2.0)), 11311);
        rows[4].refused = 0;
        let read = reading(&config(), 3, &rows);
        assert!(
            read[0].starts_with("retry without a budget recovered 6s after the trigger, at 1.50x"),
            "{read:?}"
        );
        assert_eq!(
            read[1],
            "retry+ratio never recovered despite the budget; retry+token-bucket and retry+throttle recovered \
             within 4s; once drained, retry+ratio let amplification reach 1.30, above 1.25. retry+throttle never \
             refused a retry."
        );
        rows.retain(|row| row.policy == Policy::TokenBucket);
        assert_eq!(
            reading(&config(), 3, &rows),
            ["retry+token-bucket recovered 4s after the trigger, and once drained kept amplification at or below \
              1.25 (1.00)."]
        );
        let saturated = config_with(|c| c.arrival_rate = Rate(1000.0));
        let rows = [row(Policy::Retry, 0.1, None, (3.0, 3.0), None, 0)];
        assert!(reading(&saturated, 3, &rows)[0]
            .contains("nor could any policy: the offered load alone (1000/s)"));
    }

    #[test]
    fn without_a_trigger_it_reads_what_budgets_cost() {
        let config = config_with(|c| c.trigger = Window::None);
        let mut rows = rows();
        for row in &mut rows {
            let failed = if row.policy == Policy::NoRetry { 0.0097 } else { 0.0 };
            (row.goodput, row.amplification, row.refused, row.recovered) = (1.0 - failed, 1.0099, 0, true);
        }
        rows[0].amplification = 1.0;
        assert_eq!(
            reading(&config, 3, &rows),
            ["Without a trigger the budgets cost nothing: none refused a retry, and each kept retry's goodput \
              (100.00%) and amplification (1.010). Without retries goodput was 99.03%."]
        );
        rows[2].refused = 3;
        rows[0].recovered = false;
        let read = reading(&config, 3, &rows);
        assert!(
            read[0].starts_with(
                "Without a trigger the budgets still refused retries: retry+token-bucket refused 3 (goodput \
                 100.00%), "
            ),
            "{read:?}"
        );
        assert_eq!(read[1], "no-retry never held goodput at 95% of the offered load for 5s.");
    }

    #[test]
    fn a_run_too_short_for_the_window_says_so() {
        let short = config_with(|c| c.duration = Span(Duration::from_secs(14)));
        assert_eq!(
            reading(&short, 3, &rows()),
            ["The run leaves 4s after the trigger, less than the recovery window (5s): recovery cannot be \
              judged; lengthen the run."]
        );
        let shorter =
            config_with(|c| (c.trigger, c.duration) = (Window::None, Span(Duration::from_millis(1500))));
        assert!(reading(&shorter, 3, &rows())[0].starts_with("The run leaves 1.5s, less than"));
    }
}
