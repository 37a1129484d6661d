//! The reading under the throttling table: what the figures say, in a few
//! sentences derived from them (a run where retries help, the limiter does
//! not settle, or nothing is throttled reads so).

use std::time::Duration;

use super::{ThrottlingParams, ThrottlingReport, ThrottlingRow};
use crate::fleet::Policy;
use crate::view::{format_rounded, number};

/// Goodputs closer than this (a fraction: 0.05 percentage points) are the
/// same for the reading.
pub const SAME_GOODPUT: f64 = 0.0005;

/// A send rate within this share of the rate limit has settled at it.
pub const SETTLED: f64 = 0.25;

impl ThrottlingReport {
    /// The paragraphs under the table: what retries did against the limit,
    /// what the standard mode's quota did, and what the adaptive limiter
    /// bought and cost; or, when nothing was throttled, that the policies
    /// did not differ.
    pub fn paragraphs(&self) -> Vec<String> {
        reading(self.config(), self.rows())
    }
}

/// [`ThrottlingReport::paragraphs`] of these rows.
fn reading(config: &ThrottlingParams, rows: &[ThrottlingRow]) -> Vec<String> {
    // Every policy meets the same arrivals: none for one is none for all,
    // and a goodput of 0/0 read as 0% would be nonsense.
    if rows.iter().all(|row| row.operations == 0) {
        let duration = config.duration.0;
        return vec![format!(
            "No operation started: at {}/s for {} the clients expected {} operations in all and drew none, \
             so there is nothing to measure.",
            number(config.arrival_rate.0),
            crate::view::format_duration(duration),
            number(config.arrival_rate.0 * duration.as_secs_f64())
        )];
    }
    if rows.iter().all(|row| row.throttled == 0) {
        return vec![unthrottled(config, rows)];
    }
    let find = |policy| rows.iter().find(|row| row.policy == policy);
    let retry = find(Policy::Retry);
    [
        retries(config, find(Policy::NoRetry), retry),
        find(Policy::TokenBucket).map(standard),
        find(Policy::Adaptive).map(|adaptive| adaptive_mode(config, adaptive, retry)),
        find(Policy::Tracking).map(|tracking| adaptive_mode(config, tracking, retry)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Nothing throttled: the limit covers the load, and whether the policies
/// gave the same figures.
fn unthrottled(config: &ThrottlingParams, rows: &[ThrottlingRow]) -> String {
    let mut sentence = format!(
        "Nothing was throttled: the server's limit ({}/s) covered the offered load ({}/s), so no policy \
         retried and no limiter turned on",
        number(config.rate_limit.0),
        number(config.arrival_rate.0)
    );
    let same = rows.windows(2).all(|pair| same_figures(&pair[0], &pair[1]));
    if rows.len() > 1 && same {
        sentence += &format!("; every policy gave the same results, goodput {}", percent(rows[0].goodput));
    }
    if let Some(row) = rows.iter().find(|row| row.unfinished > 0) {
        sentence += &format!(" ({} operations were still in flight at the end)", row.unfinished);
    }
    sentence + "."
}

/// Whether two rows measured the same, whatever their policies.
fn same_figures(a: &ThrottlingRow, b: &ThrottlingRow) -> bool {
    ThrottlingRow { policy: b.policy, ..a.clone() } == *b
}

/// What retries did against the limit, with no retries for comparison.
fn retries(
    config: &ThrottlingParams,
    no_retry: Option<&ThrottlingRow>,
    retry: Option<&ThrottlingRow>,
) -> Option<String> {
    let mut sentences = vec![format!(
        "The server admits {}/s; the clients offered {}/s.",
        number(config.rate_limit.0),
        number(config.arrival_rate.0)
    )];
    if let Some(no_retry) = no_retry {
        sentences.push(format!(
            "Without retries {} of the attempts were throttled and goodput was {}.",
            percent(no_retry.throttled_fraction),
            percent(no_retry.goodput)
        ));
    }
    if let Some(retry) = retry {
        let mut sentence = format!(
            "retry sent {:.2} attempts per operation, {} of them throttled, for a goodput of {}",
            retry.attempts_per_operation,
            percent(retry.throttled_fraction),
            percent(retry.goodput)
        );
        if let Some(no_retry) = no_retry {
            let gain = retry.goodput - no_retry.goodput;
            sentence += &if gain.abs() < SAME_GOODPUT {
                format!(
                    ": retries added {:.0}% more attempts and no goodput, since the server admits no more",
                    100.0 * (retry.attempts_per_operation / no_retry.attempts_per_operation - 1.0)
                )
            } else {
                format!(", {} points {} than without retries", points(gain), more_or_less(gain))
            };
        }
        sentences.push(sentence + ".");
    }
    (sentences.len() > 1).then(|| sentences.join(" "))
}

/// What the standard mode's quota did.
fn standard(row: &ThrottlingRow) -> String {
    format!(
        "{}'s quota refused {} retries: it sent {:.2} attempts per operation, {} of them throttled, for a \
         goodput of {}.",
        row.policy,
        row.refused,
        row.attempts_per_operation,
        percent(row.throttled_fraction),
        percent(row.goodput)
    )
}

/// What the adaptive limiter bought (against `retry`) and what it cost.
fn adaptive_mode(config: &ThrottlingParams, row: &ThrottlingRow, retry: Option<&ThrottlingRow>) -> String {
    let mut sentences = Vec::new();
    let mut sentence =
        format!("{} throttled {} of its attempts", row.policy, percent(row.throttled_fraction));
    if let Some(retry) = retry {
        if row.throttled_fraction > 0.0 && row.throttled_fraction < retry.throttled_fraction {
            sentence += &format!(
                ", {:.1} times fewer than retry ({})",
                retry.throttled_fraction / row.throttled_fraction,
                percent(retry.throttled_fraction)
            );
        } else {
            sentence += &format!(" (retry: {})", percent(retry.throttled_fraction));
        }
        let change = row.goodput - retry.goodput;
        sentence += &if change.abs() < SAME_GOODPUT {
            format!(", with the same goodput ({})", percent(row.goodput))
        } else {
            format!(
                ", with a goodput of {}, {} points {}",
                percent(row.goodput),
                points(change),
                more_or_less(change)
            )
        };
    }
    sentences.push(sentence + ".");
    let limit = config.rate_limit.0;
    let off = row.send_rate / limit - 1.0;
    sentences.push(format!(
        "Over the last half of the run its clients sent {:.0} attempts a second, {} the limit{}.",
        row.send_rate,
        if off.abs() < 0.0005 {
            "exactly".to_owned()
        } else {
            format!("{:.1}% {}", 100.0 * off.abs(), if off > 0.0 { "above" } else { "below" })
        },
        if off.abs() <= SETTLED { "" } else { ": it did not settle at the limit" }
    ));
    let mut cost = format!(
        "The price is waiting at the clients: operations waited {} at the median and {} at the 99th percentile",
        seconds(row.wait_p50),
        seconds(row.wait_p99)
    );
    if let Some(retry) = retry {
        cost += &format!(" (retry: {} and {})", seconds(retry.wait_p50), seconds(retry.wait_p99));
    }
    if row.shed > 0 {
        cost += &format!(
            "; {} operations ({} of those offered) were shed rather than wait longer for a token",
            row.shed,
            percent(row.shed as f64 / row.operations.max(1) as f64)
        );
    }
    if row.unfinished > 0 {
        cost += &format!(", and {} operations were still waiting or in flight at the end", row.unfinished);
    }
    sentences.push(cost + ".");
    sentences.join(" ")
}

/// A fraction as a percentage with two decimals: `50.96%`.
pub(super) fn percent(fraction: f64) -> String {
    format!("{:.2}%", 100.0 * fraction)
}

/// A difference of fractions in percentage points, unsigned: `1.25`.
fn points(change: f64) -> String {
    format!("{:.2}", 100.0 * change.abs())
}

fn more_or_less(change: f64) -> &'static str {
    if change > 0.0 {
        "more"
    } else {
        "less"
    }
}

/// Seconds as a person reads them, rounded as every computed duration is
/// ([`format_rounded`]): `92ms`, `13.94s`.
pub(super) fn seconds(secs: f64) -> String {
    format_rounded(Duration::try_from_secs_f64(secs).unwrap_or(Duration::ZERO))
}

/// Rows shared by the reading's and the view's tests: the default run's
/// figures, rounded, over 20 s.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::fleet::Series;
    use crate::values::Span;

    /// A policy's row with these figures and flat series.
    pub fn row(
        policy: Policy,
        (throttled, goodput, apo): (f64, f64, f64),
        (p50, p99, send_rate): (f64, f64, f64),
        (refused, unfinished): (u64, u64),
    ) -> ThrottlingRow {
        let operations = 20_000;
        let attempts = (operations as f64 * apo) as u64;
        ThrottlingRow {
            policy,
            throttled_fraction: throttled,
            goodput,
            attempts_per_operation: apo,
            wait_p50: p50,
            wait_p99: p99,
            send_rate,
            operations,
            attempts,
            throttled: (attempts as f64 * throttled) as u64,
            succeeded: (operations as f64 * goodput) as u64,
            refused,
            unfinished,
            shed: 0,
            late: 0,
            series: Series {
                offered: vec![1000; 20],
                arrivals: vec![(1000.0 * apo) as u32; 20],
                goodput: vec![(1000.0 * goodput) as u32; 20],
            },
        }
    }

    /// The configuration of the rows: the default, over 20 s.
    pub fn config() -> ThrottlingParams {
        ThrottlingParams { duration: Span(Duration::from_secs(20)), ..ThrottlingParams::default() }
    }

    /// Every policy, as the default run reads.
    pub fn rows() -> Vec<ThrottlingRow> {
        use Policy::*;
        vec![
            row(NoRetry, (0.4903, 0.5096, 1.0), (0.0, 0.0, 996.1), (0, 17)),
            row(Retry, (0.7872, 0.5096, 2.395), (0.092, 0.274, 2413.2), (0, 154)),
            row(TokenBucket, (0.5713, 0.5096, 1.189), (0.0, 0.184, 1148.3), (28048, 31)),
            row(Adaptive, (0.0154, 0.5096, 0.518), (13.939, 34.945, 507.5), (0, 29342)),
        ]
    }

    /// The report of [`config`] and [`rows`].
    pub fn report() -> ThrottlingReport {
        ThrottlingReport::new(config(), config().backoff().unwrap(), rows())
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{config, row, rows};
    use super::*;
    use crate::values::{Rate, Span};

    #[test]
    fn the_default_run_reads_as_throttles_turned_into_waits() {
        let reading = reading(&config(), &rows());
        assert_eq!(
            reading,
            [
                "The server admits 500/s; the clients offered 1000/s. Without retries 49.03% of the attempts \
                 were throttled and goodput was 50.96%. retry sent 2.40 attempts per operation, 78.72% of them \
                 throttled, for a goodput of 50.96%: retries added 140% more attempts and no goodput, since the \
                 server admits no more.",
                "retry+token-bucket's quota refused 28048 retries: it sent 1.19 attempts per operation, 57.13% \
                 of them throttled, for a goodput of 50.96%.",
                "adaptive throttled 1.54% of its attempts, 51.1 times fewer than retry (78.72%), with the same \
                 goodput (50.96%). Over the last half of the run its clients sent 508 attempts a second, 1.5% \
                 above the limit. The price is waiting at the clients: operations waited 13.94s at the median \
                 and 34.95s at the 99th percentile (retry: 92ms and 274ms), and 29342 operations were still \
                 waiting or in flight at the end.",
            ]
        );
    }

    #[test]
    fn other_outcomes_read_otherwise() {
        let mut rows = rows();
        rows[1] = row(Policy::Retry, (0.6, 0.55, 2.0), (0.1, 0.3, 2000.0), (0, 0));
        rows[3] = row(Policy::Adaptive, (0.7, 0.5, 0.6), (1.0, 2.0, 200.0), (0, 0));
        let read = reading(&config(), &rows);
        assert!(
            read[0].ends_with("for a goodput of 55.00%, 4.04 points more than without retries."),
            "{read:?}"
        );
        assert!(
            read[2].starts_with(
                "adaptive throttled 70.00% of its attempts (retry: 60.00%), with a goodput of \
             50.00%, 5.00 points less."
            ),
            "{read:?}"
        );
        assert!(
            read[2].contains("200 attempts a second, 60.0% below the limit: it did not settle at the limit.")
        );
        assert!(!read[2].contains("still waiting"));
    }

    #[test]
    fn without_throttles_it_says_the_policies_agree() {
        let mut rows = rows();
        for row in &mut rows {
            *row = ThrottlingRow {
                policy: row.policy,
                ..fixtures::row(row.policy, (0.0, 0.9997, 1.0), (0.0, 0.0, 996.1), (0, 17))
            };
        }
        let limit = ThrottlingParams { rate_limit: Rate(2000.0), ..config() };
        assert_eq!(
            reading(&limit, &rows),
            ["Nothing was throttled: the server's limit (2000/s) covered the offered load (1000/s), so no policy \
              retried and no limiter turned on; every policy gave the same results, goodput 99.97% (17 operations \
              were still in flight at the end)."]
        );
        rows[3].unfinished = 3;
        assert!(!reading(&limit, &rows)[0].contains("same results"));
    }

    #[test]
    fn a_run_without_operations_says_so_rather_than_a_goodput_of_0() {
        let sparse = ThrottlingParams {
            arrival_rate: Rate(0.001),
            duration: Span(Duration::from_secs(10)),
            ..config()
        };
        let report = crate::Experiment::run(&sparse).unwrap();
        assert!(report.rows().iter().all(|row| row.operations == 0));
        assert_eq!(
            report.paragraphs(),
            ["No operation started: at 0.001/s for 10s the clients expected 0.01 operations in all and drew \
              none, so there is nothing to measure."]
        );
    }
}
