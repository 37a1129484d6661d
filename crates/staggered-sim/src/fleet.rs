//! What the overload, throttling and hedging scenarios share: a fleet whose
//! operations arrive as a Poisson stream and retry by one schedule (or
//! hedge) under a [`Policy`], counted second by second into a [`Series`],
//! one panel per policy in the chart.

use std::time::Duration;

use staggered::config::format_duration;
use staggered::limiter::AdaptiveMode;
use staggered::{Backoff, FastRng, Limits, Rng, Strategy};

use crate::experiment::{check_work, ensure, parallel, Invalid, Progress};
use crate::units::SECOND;
use crate::values::{named, Jitter, List, Named, Span};
use crate::view::{Axis, Band, BandBox, Chart, Color, Dash, Layout, Line, Panel, Shade};

/// The longest run: a day of simulated time (the per-second series are
/// kept in memory).
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// The most attempts one run of the overload, throttling or hedging
/// scenario may make at worst (one policy's, at one load level for
/// hedging), when every attempt fails and each operation makes all the
/// attempts its policy allows: about ten minutes of one core.
pub const MAX_ATTEMPTS: f64 = 1e9;

/// How a fleet retries: not at all, by the schedule alone, or by the
/// schedule under one of the library's budgets or with the AWS SDKs'
/// adaptive limiter; or how it hedges. Each scenario compares the policies
/// its story needs.
///
/// ```
/// use staggered_sim::Policy;
///
/// let policy: Policy = "retry+token-bucket".parse()?;
/// assert_eq!((policy, policy.to_string()), (Policy::TokenBucket, "retry+token-bucket".to_owned()));
/// assert!(policy.has_budget() && !policy.has_limiter());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// `no-retry`: one attempt per operation.
    NoRetry,
    /// `retry`: the schedule's attempts, nothing else.
    Retry,
    /// `retry+token-bucket`: the schedule under the AWS SDKs' token bucket
    /// ([`staggered::TokenBucket`]; their standard mode in the throttling
    /// scenario, one per client).
    TokenBucket,
    /// `retry+ratio`: the schedule under Finagle's and tower's ratio budget
    /// ([`staggered::RatioBudget`]), on the simulation's virtual clock.
    Ratio,
    /// `retry+throttle`: the schedule under gRPC retry throttling
    /// ([`staggered::RetryThrottle`]).
    Throttle,
    /// `adaptive`: the AWS SDKs' adaptive mode, the standard mode plus an
    /// [`AdaptiveLimiter`](staggered::limiter::AdaptiveLimiter) that every
    /// attempt, the first included, takes a token from before it is sent.
    Adaptive,
    /// `adaptive-tracking`: `adaptive` with the limiter in its tracking
    /// mode ([`AdaptiveMode::Tracking`](staggered::limiter::AdaptiveMode::Tracking)):
    /// the rate follows what the server admitted.
    Tracking,
    /// `adaptive+headers`: the adaptive mode whose limiter is also told the
    /// quota the server announces in its rate-limit headers
    /// ([`AdaptiveLimiter::announce`](staggered::limiter::AdaptiveLimiter::announce)),
    /// in the throttling scenario with `announce` on.
    AdaptiveHeaders,
    /// `hedge`: a copy of the request after a fixed delay without an
    /// answer, the first success wins ([`staggered::Hedging::after`]).
    Hedge,
    /// `hedge+learned`: a copy after a percentile of the latencies seen so
    /// far ([`staggered::Hedging::at_percentile`]).
    HedgeLearned,
    /// `hedge+ratio`: `hedge` with every copy but the first paid from a
    /// ratio budget ([`staggered::RatioBudget`]), on the simulation's
    /// virtual clock.
    HedgeRatio,
}

impl Policy {
    /// The name: `no-retry`, `retry`, `retry+token-bucket`, `retry+ratio`,
    /// `retry+throttle`, `adaptive`, `adaptive-tracking`, `adaptive+headers`,
    /// `hedge`, `hedge+learned` or `hedge+ratio`.
    pub const fn name(self) -> &'static str {
        match self {
            Policy::NoRetry => "no-retry",
            Policy::Retry => "retry",
            Policy::TokenBucket => "retry+token-bucket",
            Policy::Ratio => "retry+ratio",
            Policy::Throttle => "retry+throttle",
            Policy::Adaptive => "adaptive",
            Policy::Tracking => "adaptive-tracking",
            Policy::AdaptiveHeaders => "adaptive+headers",
            Policy::Hedge => "hedge",
            Policy::HedgeLearned => "hedge+learned",
            Policy::HedgeRatio => "hedge+ratio",
        }
    }

    /// Whether the policy retries or hedges under a budget (the adaptive
    /// mode under the standard mode's token bucket).
    pub const fn has_budget(self) -> bool {
        !matches!(self, Policy::NoRetry | Policy::Retry | Policy::Hedge | Policy::HedgeLearned)
    }

    /// Whether the policy hedges: sends copies of a slow request rather
    /// than retrying a failed one.
    pub const fn hedges(self) -> bool {
        matches!(self, Policy::Hedge | Policy::HedgeLearned | Policy::HedgeRatio)
    }

    /// Whether the policy's attempts take tokens from an adaptive limiter.
    pub const fn has_limiter(self) -> bool {
        self.limiter_mode().is_some()
    }

    /// Whether the policy's limiter reads the quota the server announces.
    pub const fn reads_headers(self) -> bool {
        matches!(self, Policy::AdaptiveHeaders)
    }

    /// The mode of the policy's adaptive limiter, if it has one.
    pub const fn limiter_mode(self) -> Option<AdaptiveMode> {
        match self {
            Policy::Adaptive | Policy::AdaptiveHeaders => Some(AdaptiveMode::Aws),
            Policy::Tracking => Some(AdaptiveMode::Tracking),
            _ => None,
        }
    }

    /// The decision limits of the policy: one attempt for `no-retry`, else
    /// the schedule's own, as `RetryPolicy::new` derives them.
    pub(crate) fn limits(self, backoff: &Backoff) -> Limits {
        match self {
            Policy::NoRetry => Limits::NONE.with_max_attempts(Some(1)),
            _ => Limits::for_schedule(backoff),
        }
    }
}

impl Named for Policy {
    const ALL: &'static [Self] = &[
        Policy::NoRetry,
        Policy::Retry,
        Policy::TokenBucket,
        Policy::Ratio,
        Policy::Throttle,
        Policy::Adaptive,
        Policy::Tracking,
        Policy::AdaptiveHeaders,
        Policy::Hedge,
        Policy::HedgeLearned,
        Policy::HedgeRatio,
    ];
    const KIND: &'static str = "policy";

    fn name(self) -> &'static str {
        Policy::name(self)
    }
}

named!(Policy);

/// Checks that `policies` are some of a scenario's `known` ones, each once.
pub(crate) fn check_policies(policies: &List<Policy>, known: &[Policy]) -> Result<(), Invalid> {
    let policies = &policies.0;
    ensure(!policies.is_empty(), &["policies"], "invalid policies: give at least one policy")?;
    for (i, policy) in policies.iter().enumerate() {
        let names: Vec<&str> = known.iter().map(|p| p.name()).collect();
        let unknown = format!("unknown policy \"{policy}\": expected one of {}", names.join(", "));
        ensure(known.contains(policy), &["policies"], unknown)?;
        ensure(
            !policies[..i].contains(policy),
            &["policies"],
            format!("invalid policies: {policy} is given twice"),
        )?;
    }
    Ok(())
}

/// A warning for each parameter that has no effect on this run: `groups`
/// lists parameters with whether anything in the run uses them and, when
/// nothing does, why (`"no policy retries"`).
pub(crate) fn inert(groups: &[(&[&'static str], bool, &str)]) -> Vec<(&'static str, String)> {
    let unused = groups.iter().filter(|(_, applies, _)| !applies);
    unused
        .flat_map(|(fields, _, why)| {
            fields.iter().map(move |&field| (field, format!("has no effect: {why}")))
        })
        .collect()
}

/// The schedule every retrying policy walks, from its parameters.
///
/// # Errors
/// An [`Invalid`] naming the parameter the library refuses, or `attempts`
/// (then `deadline`) when neither bounds an operation.
pub(crate) fn schedule(
    strategy: Jitter,
    base: Span,
    cap: Span,
    attempts: u32,
    deadline: Option<Span>,
) -> Result<Backoff, Invalid> {
    let builder =
        Backoff::builder(strategy.0).with_base(base.0).with_max_delay(cap.0).with_max_attempts(attempts);
    let builder = match deadline {
        Some(deadline) => builder.with_deadline(deadline.0),
        None => builder.without_deadline(),
    };
    builder.build().map_err(|err| {
        let fields: &[&str] = match err.field() {
            staggered::Field::Base => &["base", "cap"],
            staggered::Field::MaxDelay => &["cap", "base"],
            staggered::Field::MaxAttempts => &["attempts"],
            _ => &["strategy", "deadline"],
        };
        Invalid::new(fields, err)
    })
}

/// Checks a run's `duration`: at least a second, at most [`MAX_DURATION`].
pub(crate) fn check_duration(duration: Duration) -> Result<(), Invalid> {
    let (shown, max) = (format_duration(duration), format_duration(MAX_DURATION));
    let range = format!("invalid duration {shown}: must be between 1s and {max}");
    ensure(duration >= Duration::from_secs(1) && duration <= MAX_DURATION, &["duration"], range)
}

/// Checks a run of `duration` at `arrival_rate` operations per second: at
/// most `max_operations` expected (`why` says why that limit), and, when a
/// policy retries, at most [`MAX_ATTEMPTS`] attempts at worst.
pub(crate) fn check_load(
    duration: Duration,
    arrival_rate: f64,
    (max_operations, why): (f64, &str),
    retries: bool,
    backoff: &Backoff,
) -> Result<(), Invalid> {
    let operations = arrival_rate * duration.as_secs_f64();
    let many = format!("invalid arrival-rate and duration: {operations:.0} operations expected, at most {max_operations}{why}");
    ensure(operations <= max_operations, &["arrival_rate", "duration"], many)?;
    // Without a budget, an overload makes every operation use all its attempts.
    let attempts = if retries { backoff.max_attempts().unwrap_or(1) } else { 1 };
    let fields = &["attempts", "arrival_rate", "duration"];
    check_attempts(fields, (operations, "operations expected"), attempts)
}

/// Checks one run of the fleet scenarios against [`MAX_ATTEMPTS`]:
/// `operations` (described as `what`) that could each make `attempts`
/// attempts, `fields` naming the parameters that set those.
pub(crate) fn check_attempts(
    fields: &[&'static str],
    (operations, what): (f64, &str),
    attempts: u32,
) -> Result<(), Invalid> {
    let worst = operations * f64::from(attempts);
    let how = format!("{operations:.0} {what} x max_attempts {attempts}, if every attempt fails");
    check_work(fields, worst, ("attempts", &how), MAX_ATTEMPTS)
}

/// Runs `simulate` for each of `policies` on the threads `progress` allows,
/// and returns the rows in the policies' order.
pub(crate) fn run_policies<T: Send>(
    policies: &[Policy],
    progress: &Progress,
    simulate: impl Fn(Policy) -> T + Sync,
) -> Vec<T> {
    let order: Vec<usize> = (0..policies.len()).collect();
    parallel(progress, &order, |_: &mut (), i| simulate(policies[i]))
}

/// An exponential draw with this mean: the gap to the next arrival of a
/// Poisson stream. `1 - u` is in `(0, 1]`, so never `ln(0)`.
#[inline]
pub(crate) fn exponential(rng: &mut FastRng, mean: f64) -> f64 {
    -mean * (1.0 - rng.next_f64()).ln()
}

/// The 1-second bucket of time `now` (in time units).
#[inline]
pub(crate) fn bucket(now: f64) -> usize {
    (now / SECOND) as usize
}

/// Operations in flight, each in a slot; a finished one's slot is reused.
/// Each operation has one event pending at a time, which names its slot,
/// so nothing goes stale.
pub(crate) struct Slots<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Slots<T> {
    pub(crate) const fn new() -> Self {
        Slots { items: Vec::new(), free: Vec::new() }
    }

    /// Places `item` in a free slot, and says which.
    pub(crate) fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.items[slot as usize] = item;
                slot
            }
            None => {
                self.items.push(item);
                u32::try_from(self.items.len() - 1).expect("fewer than 2^32 operations at once")
            }
        }
    }

    /// Frees `slot` for the next operation.
    pub(crate) fn free(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Every slot's item, free ones included.
    pub(crate) fn all(&self) -> &[T] {
        &self.items
    }
}

impl<T> std::ops::Index<u32> for Slots<T> {
    type Output = T;
    fn index(&self, slot: u32) -> &T {
        &self.items[slot as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Slots<T> {
    fn index_mut(&mut self, slot: u32) -> &mut T {
        &mut self.items[slot as usize]
    }
}

/// The simulated seconds a run has passed, each added to the progress as
/// the virtual clock passes it.
pub(crate) struct Seconds<'p> {
    passed: usize,
    buckets: usize,
    progress: &'p Progress,
}

impl<'p> Seconds<'p> {
    pub(crate) const fn new(buckets: usize, progress: &'p Progress) -> Self {
        Seconds { passed: 0, buckets, progress }
    }

    /// The clock is at `now`.
    #[inline]
    pub(crate) fn at(&mut self, now: f64) {
        while self.passed < self.buckets && now >= (self.passed + 1) as f64 * SECOND {
            self.passed += 1;
            self.progress.add(1);
        }
    }

    /// The run is over: the seconds not passed count too.
    pub(crate) fn finish(self) {
        self.progress.add((self.buckets - self.passed) as u64);
    }
}

/// One policy's load, second by second: bucket `i` covers `[i s, i+1 s)`
/// of the run. These are the lines of the chart.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Series {
    /// The offered load: operations started in the second (the same for
    /// every policy of an experiment, whose arrivals share one seed).
    pub offered: Vec<u32>,
    /// Attempts that reached the server in the second, first ones and retries.
    pub arrivals: Vec<u32>,
    /// Goodput: operations that succeeded in the second, each counted once.
    pub goodput: Vec<u32>,
}

impl Series {
    /// Series of `buckets` seconds, all zero.
    pub(crate) fn new(buckets: usize) -> Self {
        Series { offered: vec![0; buckets], arrivals: vec![0; buckets], goodput: vec![0; buckets] }
    }
}

/// How many 1-second buckets a run of `duration` has: its seconds rounded up
/// (a last, shorter bucket counts).
pub(crate) fn buckets(duration: Duration) -> usize {
    crate::units::seconds_up(duration)
}

/// The `backoff` line of the parameters.
pub(crate) fn backoff_line(backoff: &Backoff) -> (&'static str, String) {
    let text = format!(
        "strategy {}, base {}, cap (max_delay) {}, max_attempts {}",
        backoff.strategy(),
        format_duration(backoff.base()),
        format_duration(backoff.max_delay()),
        backoff.max_attempts().unwrap_or(1)
    );
    ("backoff", text)
}

/// A chart of a panel per policy over a run of `end` seconds: per second,
/// the goodput as a light area, the attempts reaching the server
/// (`arrivals`, in its palette color) as a line, and the offered load
/// dashed over it, under the `reference` line (what the server can take)
/// and over `shades`; every panel on one scale, from 0 to past the highest
/// count and the reference.
///
/// The three measures are often equal (without retries every operation
/// arrives once; while the server keeps up every one succeeds), so each is
/// drawn so that it shows on the others: the goodput's area under the
/// lines, the offered load's dashes over the arrivals' line, and the
/// reference, thin, over all.
pub(crate) fn chart<'a>(
    end: f64,
    reference: &Line,
    shades: &[Shade],
    arrivals: (&str, usize),
    panels: impl Iterator<Item = (String, &'a Series)> + Clone,
) -> Chart {
    let counts =
        panels.clone().flat_map(|(_, s)| s.offered.iter().chain(&s.arrivals).chain(&s.goodput).copied());
    let limit = reference.points.iter().map(|&(_, y)| y).fold(0.0, f64::max);
    let top = counts.map(f64::from).fold(limit, f64::max).max(1.0) * 1.08;
    // Second i spans i to i + 1 (what is left of the last, shorter one); a
    // count is drawn in its middle.
    let second = |i: usize| (i as f64, (i as f64 + 1.0).min(end));
    let line = |(name, color): (&str, usize), dash: Dash, counts: &[u32]| {
        let middle = |i: usize| (second(i).0 + second(i).1) / 2.0;
        let points = counts.iter().enumerate().map(|(i, &n)| (middle(i), f64::from(n))).collect();
        Line { name: name.to_owned(), points, color: Color::Series(color), markers: false, dash }
    };
    let goodput = |counts: &[u32]| Band {
        name: "goodput".to_owned(),
        color: GOODPUT,
        boxes: counts
            .iter()
            .enumerate()
            .map(|(i, &n)| BandBox { from: second(i).0, to: second(i).1, low: 0.0, high: f64::from(n) })
            .collect(),
    };
    let panels = panels.map(|(title, s)| Panel {
        title,
        x: Axis::linear("seconds since the run began").over(0.0, end),
        y: Axis::linear("per second").over(0.0, top),
        lines: vec![
            line(arrivals, Dash::Solid, &s.arrivals),
            line(("offered load", OFFERED), Dash::Long, &s.offered),
            reference.clone(),
        ],
        shades: shades.to_vec(),
        bands: vec![goodput(&s.goodput)],
        scatters: Vec::new(),
    });
    Chart { layout: Layout::Stacked, panels: panels.collect() }
}

/// The palette colors of the offered load (blue) and the goodput (green);
/// the scenarios draw the arrivals in red.
const OFFERED: usize = 0;
const GOODPUT: usize = 4;

/// The schedule both scenarios retry by, by default: full jitter from the
/// `interactive` preset's base (100 ms) under a 1 s cap, 3 attempts (the
/// AWS SDKs' standard mode), no deadline.
pub(crate) const DEFAULT_SCHEDULE: (Strategy, Duration, Duration, u32) =
    (Strategy::Full, Duration::from_millis(100), Duration::from_secs(1), 3);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_are_checked_against_the_scenario_s() {
        let known = [Policy::NoRetry, Policy::Retry, Policy::TokenBucket, Policy::Adaptive];
        let check =
            |text: &str| check_policies(&text.parse().unwrap(), &known).map_err(|err| err.to_string());
        assert_eq!(check("retry, adaptive"), Ok(()));
        assert_eq!(
            check("retry+ratio"),
            Err("unknown policy \"retry+ratio\": expected one of no-retry, retry, retry+token-bucket, adaptive".into())
        );
        assert_eq!(check("adaptive,adaptive"), Err("invalid policies: adaptive is given twice".into()));
        assert_eq!(check_policies(&List(vec![]), &known).unwrap_err().fields(), ["policies"]);
        for &policy in Policy::ALL {
            assert_eq!(policy.name().to_uppercase().parse::<Policy>(), Ok(policy));
        }
        let budgeted: Vec<_> = Policy::ALL.iter().filter(|p| p.has_budget()).map(|p| p.name()).collect();
        assert_eq!(
            budgeted,
            [
                "retry+token-bucket",
                "retry+ratio",
                "retry+throttle",
                "adaptive",
                "adaptive-tracking",
                "adaptive+headers",
                "hedge+ratio"
            ]
        );
        let hedging: Vec<_> = Policy::ALL.iter().filter(|p| p.hedges()).map(|p| p.name()).collect();
        assert_eq!(hedging, ["hedge", "hedge+learned", "hedge+ratio"]);
        let limited: Vec<_> = Policy::ALL.iter().filter_map(|p| p.limiter_mode()).collect();
        assert_eq!(limited, [AdaptiveMode::Aws, AdaptiveMode::Tracking, AdaptiveMode::Aws]);
    }

    #[test]
    fn the_schedule_names_what_the_library_refuses() {
        let (strategy, base, cap) =
            (Jitter(Strategy::Full), Span(Duration::from_millis(100)), Span(Duration::from_secs(1)));
        assert_eq!(schedule(strategy, base, cap, 0, None).unwrap_err().fields()[0], "attempts");
        let above = schedule(strategy, Span(Duration::from_secs(2)), cap, 3, None).unwrap_err();
        assert_eq!(above.fields(), ["cap", "base"]);
        assert_eq!(schedule(strategy, base, cap, 3, None).unwrap().max_attempts(), Some(3));
    }

    #[test]
    fn seconds_pass_once_each() {
        let progress = Progress::default();
        let mut seconds = Seconds::new(3, &progress);
        seconds.at(999.0);
        assert_eq!(progress.done(), 0);
        seconds.at(2500.0);
        seconds.at(9000.0);
        assert_eq!(progress.done(), 3, "no more than the buckets");
        seconds.finish();
        assert_eq!(progress.done(), 3);
    }
}
