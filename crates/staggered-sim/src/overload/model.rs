//! One run of the overload model: one policy, one server, on the engine.
//!
//! The reading of the model is documented on the [scenario](super).

use std::cell::Cell;
use std::time::Duration;

use staggered::{Action, Backoff, Budget, Decision, Failure, FastRng, Rng, StopReason};

use super::OverloadParams;
use crate::engine::Engine;
use crate::experiment::Progress;
use crate::fleet::{bucket, exponential, Policy, Seconds, Series, Slots};
use crate::rng::{derive, name_id};
use crate::units::{elapsed, to_units, SECOND};

/// What one run counted, raw; [`report`](super::report) turns it into a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Counts {
    /// Per second: first attempts, attempts reaching the server (first
    /// attempts and retries), and operations that succeeded.
    pub series: Series,
    /// Per second: the summed time from arrival to departure of the
    /// attempts arriving then, in time units.
    pub response_time: Vec<f64>,
    /// Operations started (first attempts).
    pub operations: u64,
    /// Attempts that reached the server, first ones included.
    pub attempts: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Attempts whose client timed out before the response (the server still
    /// served each one: wasted work).
    pub timed_out: u64,
    /// Retries the budget refused (each one ends its operation).
    pub refused: u64,
    /// When the budget first refused a retry, in time units.
    pub first_refusal: Option<f64>,
    /// First attempts and server arrivals during the trigger.
    pub trigger: (u64, u64),
    /// First attempts and server arrivals from the trigger's end to the end of the run.
    pub after: (u64, u64),
}

impl Counts {
    /// Nothing counted yet, over `buckets` seconds.
    pub(crate) fn new(buckets: usize) -> Self {
        Counts {
            series: Series::new(buckets),
            response_time: vec![0.0; buckets],
            operations: 0,
            attempts: 0,
            succeeded: 0,
            timed_out: 0,
            refused: 0,
            first_refusal: None,
            trigger: (0, 0),
            after: (0, 0),
        }
    }
}

/// An event on the engine. Each operation has exactly one event pending at
/// a time (its next attempt, or its attempt's outcome), so events carry the
/// operation's slot and nothing goes stale.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// The next first attempt of the Poisson stream.
    Arrival,
    /// An operation's retry reaches the server.
    Send(u32),
    /// An attempt's response reaches its client in time: a success, or an error.
    Response { op: u32, ok: bool },
    /// An attempt's timeout fires before its response.
    Timeout(u32),
}

/// The model's parameters in time units (milliseconds).
#[derive(Debug, Clone, Copy)]
struct Params {
    end: f64,
    arrival_gap: f64,
    service_time: f64,
    /// Trigger start, end, and the mean service time during it.
    trigger: Option<(f64, f64, f64)>,
    timeout: f64,
    error_rate: f64,
}

impl Params {
    fn of(params: &OverloadParams) -> Self {
        // The mean gap between events of a rate per second, in time units.
        let gap = |rate: f64| SECOND / rate;
        let capacity = params.capacity.0;
        Params {
            end: to_units(params.duration.0),
            arrival_gap: gap(params.arrival_rate.0),
            service_time: gap(capacity),
            trigger: params
                .trigger()
                .map(|(start, end, share)| (to_units(start), to_units(end), gap(capacity * share))),
            timeout: to_units(params.timeout.0),
            error_rate: params.error_rate.0,
        }
    }
}

/// The server: one FIFO queue and one worker that serves every request,
/// including those whose client has given up.
///
/// FIFO with one worker means a request's departure is known the moment it
/// arrives (Lindley's recursion): it starts when it arrives or when the
/// previous request departs, whichever is later, and its service time is
/// drawn then, at the rate in force at its start. So the queue is one
/// number, the time the worker becomes free.
struct Server {
    rng: FastRng,
    free_at: f64,
}

impl Server {
    /// Serves a request arriving at `now`: its departure time, and whether
    /// the response is an error.
    #[inline]
    fn serve(&mut self, params: &Params, now: f64) -> (f64, bool) {
        let start = now.max(self.free_at);
        let mean = match params.trigger {
            Some((from, to, slow)) if (from..to).contains(&start) => slow,
            _ => params.service_time,
        };
        let departure = start + exponential(&mut self.rng, mean);
        self.free_at = departure;
        let error = params.error_rate > 0.0 && self.rng.next_f64() < params.error_rate;
        (departure, error)
    }
}

/// One operation in flight: its retry decision and when its first attempt left.
struct Operation<'b, B> {
    decision: Decision<Backoff, &'b B>,
    start: f64,
}

/// Keys that separate the generators of a run.
const ARRIVALS: u64 = 0;
const SERVER: u64 = 1;
const JITTER: u64 = 2;

/// One run, with its state.
struct Run<'b, B> {
    params: Params,
    engine: Engine<Event>,
    server: Server,
    operations: Slots<Operation<'b, B>>,
    counts: Counts,
}

impl<B: Budget> Run<'_, B> {
    /// An attempt of operation `op` reaches the server at `now`.
    fn send(&mut self, op: u32, now: f64) {
        let (departure, error) = self.server.serve(&self.params, now);
        let c = &mut self.counts;
        c.attempts += 1;
        if now < self.params.end {
            c.series.arrivals[bucket(now)] += 1;
            c.response_time[bucket(now)] += departure - now;
        }
        if let Some((from, to, _)) = self.params.trigger {
            if (from..to).contains(&now) {
                c.trigger.1 += 1;
            } else if (to..self.params.end).contains(&now) {
                c.after.1 += 1;
            }
        }
        // With a deadline, the attempt's timeout is clipped to the time left,
        // as a deadline bounds the whole operation.
        let operation = &self.operations[op];
        let timeout = match operation.decision.limits().deadline {
            None => self.params.timeout,
            Some(_) => operation
                .decision
                .time_left(elapsed(now - operation.start))
                .map_or(self.params.timeout, |left| self.params.timeout.min(to_units(left))),
        };
        if departure - now <= timeout {
            self.engine.schedule_at(departure, Event::Response { op, ok: !error });
        } else {
            c.timed_out += 1;
            self.engine.schedule_at(now + timeout, Event::Timeout(op));
        }
    }

    /// Operation `op`'s attempt failed at `now`: the decision retries or stops.
    fn fail(&mut self, op: u32, now: f64, failure: Failure) {
        let operation = &mut self.operations[op];
        match operation.decision.on_failure(&failure, elapsed(now - operation.start)) {
            Action::Retry(delay) => self.engine.schedule_at(now + to_units(delay), Event::Send(op)),
            Action::Stop(reason) => {
                if reason == StopReason::BudgetExhausted {
                    self.counts.refused += 1;
                    self.counts.first_refusal.get_or_insert(now);
                }
                self.operations.free(op);
            }
        }
    }

    /// Operation `op`'s attempt succeeded at `now`.
    fn succeed(&mut self, op: u32, now: f64) {
        self.operations[op].decision.on_success();
        self.counts.succeeded += 1;
        if now < self.params.end {
            self.counts.series.goodput[bucket(now)] += 1;
        }
        self.operations.free(op);
    }
}

/// Simulates one run of `policy` on `backoff` under `budget`, shared by all
/// its operations. `clock` is the virtual time the budget may read; the run
/// sets it before every event. Each simulated second is added to
/// `progress` as the clock passes it.
pub(crate) fn simulate<B: Budget>(
    config: &OverloadParams,
    policy: Policy,
    backoff: &Backoff,
    budget: &B,
    clock: &Cell<Duration>,
    progress: &Progress,
) -> Counts {
    let params = Params::of(config);
    let seed = config.seed;
    let buckets = config.buckets();
    let limits = policy.limits(backoff);
    // The offered load and the server's draws are seeded without the policy:
    // every policy meets the same first attempts (a paired comparison). Each
    // operation's jitter has its own generator, so operations never share draws.
    let mut arrivals = FastRng::seed(derive(&[seed, ARRIVALS]));
    let jitter = derive(&[seed, JITTER, name_id(policy.name())]);
    let mut run = Run {
        params,
        engine: Engine::with_capacity(1024),
        server: Server { rng: FastRng::seed(derive(&[seed, SERVER])), free_at: 0.0 },
        operations: Slots::new(),
        counts: Counts::new(buckets),
    };

    let first = exponential(&mut arrivals, params.arrival_gap);
    if first < params.end {
        run.engine.schedule_at(first, Event::Arrival);
    }
    let mut seconds = Seconds::new(buckets, progress);
    while let Some(event) = run.engine.pop() {
        let now = run.engine.now();
        clock.set(elapsed(now));
        seconds.at(now);
        match event {
            Event::Arrival => {
                let c = &mut run.counts;
                c.series.offered[bucket(now)] += 1;
                if let Some((from, to, _)) = params.trigger {
                    if (from..to).contains(&now) {
                        c.trigger.0 += 1;
                    } else if now >= to {
                        c.after.0 += 1;
                    }
                }
                let index = c.operations;
                c.operations += 1;
                budget.record_request();
                let rng = FastRng::seed(derive(&[jitter, index]));
                let decision = Decision::with_delays(backoff.delays_with_rng(rng), limits, budget);
                let op = run.operations.insert(Operation { decision, start: now });
                run.send(op, now);
                let next = now + exponential(&mut arrivals, params.arrival_gap);
                if next < params.end {
                    run.engine.schedule_at(next, Event::Arrival);
                }
            }
            Event::Send(op) => run.send(op, now),
            Event::Response { op, ok: true } => run.succeed(op, now),
            Event::Response { op, ok: false } => run.fail(op, now, Failure::TRANSIENT),
            Event::Timeout(op) => run.fail(op, now, Failure::timeout()),
        }
    }
    seconds.finish();
    run.counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{Fraction, Jitter, Rate, Span, Window};
    use staggered::NoBudget;

    fn run(params: &OverloadParams, policy: Policy) -> Counts {
        let backoff = params.backoff().unwrap();
        simulate(params, policy, &backoff, &NoBudget, &Cell::new(Duration::ZERO), &Progress::default())
    }

    fn params(change: impl FnOnce(&mut OverloadParams)) -> OverloadParams {
        let mut params = OverloadParams::default();
        change(&mut params);
        params
    }

    #[test]
    fn every_operation_is_followed_to_its_end() {
        let config = params(|p| p.duration = Span(Duration::from_secs(20)));
        for policy in [Policy::NoRetry, Policy::Retry] {
            let c = run(&config, policy);
            assert_eq!(c.series.offered.iter().map(|&n| u64::from(n)).sum::<u64>(), c.operations);
            // Retries of operations still running at the end arrive after the series.
            let series = c.series.arrivals.iter().map(|&n| u64::from(n)).sum::<u64>();
            assert!(series <= c.attempts && c.attempts - series < 3_000, "{series} of {}", c.attempts);
            assert!(c.succeeded <= c.operations);
            // Each attempt either succeeded in time or timed out (no errors here).
            let failed = c.operations - c.succeeded;
            assert!(c.timed_out >= failed, "{policy}: {c:?}");
            if policy == Policy::NoRetry {
                assert_eq!(c.attempts, c.operations);
                assert_eq!(c.timed_out, failed);
            }
        }
    }

    #[test]
    fn an_idle_server_answers_every_first_attempt() {
        // 50 requests per second on a server of 1000: none waits 100 ms.
        let config = params(|p| (p.arrival_rate, p.trigger) = (Rate(50.0), Window::None));
        let c = run(&config, Policy::Retry);
        assert_eq!((c.attempts, c.succeeded, c.timed_out), (c.operations, c.operations, 0));
        assert!((2700..3300).contains(&c.operations), "{}", c.operations);
    }

    #[test]
    fn errors_are_retried_until_attempts_run_out() {
        let config = params(|p| (p.error_rate, p.trigger) = (Fraction(1.0), Window::None));
        let c = run(&config, Policy::Retry);
        assert_eq!(c.succeeded, 0);
        assert_eq!(c.attempts, 3 * c.operations);
        let c = run(&config, Policy::NoRetry);
        assert_eq!(c.attempts, c.operations);
    }

    /// Every 10 ms, `attempts` in all, within `deadline`.
    fn constant_10ms(p: &mut OverloadParams, attempts: u32, deadline: Option<u64>) {
        (p.strategy, p.base, p.attempts) =
            (Jitter(staggered::Strategy::Constant), Span(Duration::from_millis(10)), attempts);
        p.deadline = deadline.map(|ms| Span(Duration::from_millis(ms)));
        p.trigger = Window::None;
    }

    #[test]
    fn a_deadline_stops_the_retries() {
        // Every attempt fails after its service time (errors, on a quiet
        // server, about 1 ms): with 10 ms between attempts, a 25 ms deadline
        // leaves room for 3 of the 10, or 2 when the first two services took
        // more than 5 ms (about 4% of operations).
        let config = params(|p| {
            constant_10ms(p, 10, Some(25));
            (p.error_rate, p.arrival_rate) = (Fraction(1.0), Rate(20.0));
        });
        let c = run(&config, Policy::Retry);
        assert!(c.attempts <= 3 * c.operations && c.attempts * 100 > 290 * c.operations, "{c:?}");
    }

    #[test]
    fn a_deadline_clips_the_attempt_timeout() {
        // A slow quiet server (70 ms per request): a first attempt that times
        // out at 100 ms retries at 110 ms, with 40 ms left before a 150 ms
        // deadline. Without the deadline the retry waits the full 100 ms.
        // Both runs send the same attempts at the same times and draw the
        // same service times, so they differ only in the retry's timeout.
        let config = |deadline| {
            params(|p| {
                constant_10ms(p, 2, deadline);
                (p.arrival_rate, p.capacity) = (Rate(5.0), Rate(1000.0 / 70.0));
                p.duration = Span(Duration::from_secs(300));
            })
        };
        let clipped = run(&config(Some(150)), Policy::Retry);
        let free = run(&config(None), Policy::Retry);
        assert_eq!(clipped.attempts, free.attempts);
        assert!(clipped.attempts > clipped.operations * 11 / 10, "{clipped:?}");
        let lost = free.succeeded - clipped.succeeded;
        assert!(lost > 20, "{lost} retries answered in 40 to 100 ms");
        assert_eq!(clipped.timed_out - free.timed_out, lost);
    }

    #[test]
    fn the_trigger_uses_the_rate_at_service_start() {
        let params = Params::of(&OverloadParams::default());
        let mut server = Server { rng: FastRng::seed(3), free_at: 0.0 };
        let mut slow = 0.0;
        let mut fast = 0.0;
        for _ in 0..20_000 {
            server.free_at = 0.0;
            fast += server.serve(&params, 5_000.0).0 - 5_000.0;
            server.free_at = 0.0;
            slow += server.serve(&params, 12_000.0).0 - 12_000.0;
        }
        // Means of 1 ms and 2 ms, to within 5%.
        assert!((fast / 20_000.0 - 1.0).abs() < 0.05, "{fast}");
        assert!((slow / 20_000.0 - 2.0).abs() < 0.1, "{slow}");
        // A request queued behind a busy worker starts when it is free.
        server.free_at = 9_999.0;
        let (departure, _) = server.serve(&params, 9_000.0);
        assert!(departure > 9_999.0);
    }
}
