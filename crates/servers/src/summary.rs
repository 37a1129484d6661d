//! The figures of a run: pure arithmetic on its records.

use std::time::Duration;

use crate::driver::Run;
use crate::record::{Attempt, AttemptOutcome, RequestOutcome};

/// The window the time to 90% of the limit is measured over, and its step.
const RATE_WINDOW: f64 = 1.0;
const RATE_STEP: f64 = 0.1;

/// What a run came to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Requests offered.
    pub requests: usize,
    /// Attempts sent.
    pub attempts: usize,
    /// Attempts the server admitted (200).
    pub admitted: usize,
    /// Attempts the server throttled (429 or 503).
    pub throttled: usize,
    /// Attempts dropped before they answered (hedges that lost, requests
    /// their caller gave up on).
    pub cancelled: usize,
    /// Attempts admitted per second, of those sent in the last half of the
    /// arrivals.
    pub admitted_rate: f64,
    /// Throttled attempts over attempts that got a response.
    pub throttled_fraction: f64,
    /// Requests that succeeded within the caller's timeout, over requests offered.
    pub goodput: f64,
    /// Requests the caller's timeout cut.
    pub timed_out: usize,
    /// The requests' latencies (a timed-out one counts the timeout).
    pub p50: Duration,
    /// The 99th percentile.
    pub p99: Duration,
    /// The 99.9th percentile.
    pub p999: Duration,
    /// When the first throttled attempt was sent.
    pub first_throttle: Option<Duration>,
    /// From the first throttle to the start of the first window of a
    /// second in which the server admitted 90% of `limit`; `None` if none
    /// did (or no limit, or no throttle).
    pub to_90: Option<Duration>,
    /// The most attempts admitted that were sent within one second (from
    /// the run's start, whole seconds).
    pub most_admitted_per_second: usize,
}

/// The figures of `run` against the server's `limit` (requests a second),
/// if it has one.
pub fn summarize(run: &Run, limit: Option<f64>) -> Summary {
    let attempts = &run.attempts;
    let admitted: Vec<f64> =
        attempts.iter().filter(|a| a.is_admitted()).map(|a| a.sent.as_secs_f64()).collect();
    let answered = attempts.iter().filter(|a| matches!(a.outcome, AttemptOutcome::Status(_))).count();
    let throttled = attempts.iter().filter(|a| a.is_throttled()).count();
    let end = run.arrivals_end.as_secs_f64();
    let half = end / 2.0;
    let last_half = admitted.iter().filter(|&&t| t >= half && t < end).count();
    let mut latencies: Vec<Duration> = run.requests.iter().map(|r| r.latency).collect();
    latencies.sort();
    let first_throttle = attempts.iter().filter(|a| a.is_throttled()).map(|a| a.sent).min();
    let to_90 = match (limit, first_throttle) {
        (Some(limit), Some(first)) => time_to(&admitted, first.as_secs_f64(), end, 0.9 * limit),
        _ => None,
    };
    Summary {
        requests: run.requests.len(),
        attempts: attempts.len(),
        admitted: admitted.len(),
        throttled,
        cancelled: attempts.iter().filter(|a| a.outcome == AttemptOutcome::Cancelled).count(),
        admitted_rate: if half > 0.0 { last_half as f64 / (end - half) } else { 0.0 },
        throttled_fraction: ratio(throttled, answered),
        goodput: ratio(
            run.requests.iter().filter(|r| r.is_goodput(run.caller_timeout)).count(),
            run.requests.len(),
        ),
        timed_out: run.requests.iter().filter(|r| r.outcome == RequestOutcome::TimedOut).count(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        p999: percentile(&latencies, 0.999),
        first_throttle,
        to_90,
        most_admitted_per_second: most_per_second(attempts),
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The nearest-rank `p` percentile of `sorted`; zero if empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// From `from` to the start of the first window of [`RATE_WINDOW`],
/// starting every [`RATE_STEP`] and ending by `end`, holding at least
/// `rate` a second of the sorted times `admitted`.
fn time_to(admitted: &[f64], from: f64, end: f64, rate: f64) -> Option<Duration> {
    let needed = rate * RATE_WINDOW;
    let mut step = 0u32;
    loop {
        let start = from + f64::from(step) * RATE_STEP;
        if start + RATE_WINDOW > end {
            return None;
        }
        let first = admitted.partition_point(|&t| t < start);
        let last = admitted.partition_point(|&t| t < start + RATE_WINDOW);
        if (last - first) as f64 >= needed {
            return Some(Duration::from_secs_f64(start - from));
        }
        step += 1;
    }
}

fn most_per_second(attempts: &[Attempt]) -> usize {
    let mut counts = std::collections::BTreeMap::<u64, usize>::new();
    for attempt in attempts.iter().filter(|a| a.is_admitted()) {
        *counts.entry(attempt.sent.as_secs()).or_default() += 1;
    }
    counts.values().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RequestRecord;

    fn attempt(sent_ms: u64, status: u16) -> Attempt {
        Attempt {
            client: 0,
            sent: Duration::from_millis(sent_ms),
            latency: Duration::from_millis(1),
            outcome: AttemptOutcome::Status(status),
        }
    }

    fn request(latency_ms: u64, outcome: RequestOutcome) -> RequestRecord {
        RequestRecord {
            client: 0,
            started: Duration::ZERO,
            latency: Duration::from_millis(latency_ms),
            outcome,
            attempts: 1,
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let sorted: Vec<Duration> = (1..=1000).map(Duration::from_millis).collect();
        assert_eq!(percentile(&sorted, 0.5), Duration::from_millis(500));
        assert_eq!(percentile(&sorted, 0.99), Duration::from_millis(990));
        assert_eq!(percentile(&sorted, 0.999), Duration::from_millis(999));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn a_run_sums_up() {
        // 4 s of arrivals: 10 admitted a second for 2 s, a throttle at 2 s,
        // nothing admitted for 1 s, then 20 a second.
        let mut attempts: Vec<Attempt> = (0..20).map(|i| attempt(i * 100, 200)).collect();
        attempts.push(attempt(2000, 429));
        attempts.extend((0..20).map(|i| attempt(3000 + i * 50, 200)));
        let requests = vec![
            request(10, RequestOutcome::Status(200)),
            request(20, RequestOutcome::Status(200)),
            request(5000, RequestOutcome::TimedOut),
            request(30, RequestOutcome::Status(429)),
        ];
        let run = Run {
            attempts,
            requests,
            limiters: Vec::new(),
            arrivals_end: Duration::from_secs(4),
            caller_timeout: Duration::from_secs(5),
        };
        let summary = summarize(&run, Some(20.0));
        assert_eq!((summary.requests, summary.attempts, summary.admitted, summary.throttled), (4, 41, 40, 1));
        // The last half, 2 s to 4 s: the 20 sent from 3 s.
        assert!((summary.admitted_rate - 10.0).abs() < 1e-9, "{summary:?}");
        assert!((summary.throttled_fraction - 1.0 / 41.0).abs() < 1e-9);
        assert!((summary.goodput - 0.5).abs() < 1e-9);
        assert_eq!(summary.timed_out, 1);
        assert_eq!(summary.first_throttle, Some(Duration::from_secs(2)));
        // 90% of 20 is 18 in a second: the window from 2.9 s holds those
        // sent from 3 s to 3.85 s, the first window that does.
        let to_90 = summary.to_90.unwrap();
        assert!((to_90.as_secs_f64() - 0.9).abs() < 1e-6, "{to_90:?}");
        assert_eq!(summary.most_admitted_per_second, 20);
        assert_eq!(summarize(&run, None).to_90, None);
    }
}
