//! One run of the hedging model: one policy at one load level, on the
//! engine.
//!
//! The reading of the model is documented on the [scenario](super).

use std::cell::Cell;
use std::time::Duration;

use staggered::{Action, Backoff, Budget, Decision, Failure, FastRng, Hedging, Limits, StopReason};

use super::server::{Admission, Request, Server, Service};
use super::HedgingParams;
use crate::engine::Engine;
use crate::experiment::Progress;
use crate::fleet::{exponential, Policy, Slots};
use crate::rng::derive;
use crate::units::{elapsed, to_units, SECOND};

/// What one run simulates: the parameters, the load level, the policy,
/// the schedule `retry` walks, and the policy's hedging, if it hedges.
pub(super) struct Point<'a> {
    pub config: &'a HedgingParams,
    pub load: f64,
    pub policy: Policy,
    pub backoff: &'a Backoff,
    pub hedging: Option<&'a Hedging>,
}

/// What one run counted, raw; [`report`](super::report) turns it into a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Counts {
    /// Operations offered.
    pub operations: u64,
    /// Attempts and copies that reached the server, rejected ones included.
    pub attempts: u64,
    /// Of those, the ones the server rejected (its queue was full).
    pub rejected: u64,
    /// Copies sent beyond the first (hedging policies).
    pub hedges: u64,
    /// Operations whose success came from a copy other than the first.
    pub hedge_wins: u64,
    /// Attempts and copies cut by their time limit (the timeout, or the
    /// deadline) before their answer.
    pub cut: u64,
    /// Requests the server served whose client no longer waited for them:
    /// copies that lost, attempts that timed out.
    pub wasted: u64,
    /// Retries or copies the budget refused.
    pub refused: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Each operation's latency, in time units, in the order they arrived:
    /// infinite for an operation that failed.
    pub latencies: Vec<f64>,
    /// When the last operation arrived, in time units.
    pub span: f64,
}

/// An event on the engine. An operation may have several events pending
/// (its copies' answers and time limits, a timer), so each names its
/// operation by number as well as slot, and a timer carries its
/// generation: an event whose operation or timer has moved on is stale.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// The next operation of the Poisson stream arrives.
    Arrival,
    /// The server finished a request: its answer reaches the client.
    Done(Request),
    /// An operation's timer: send its next attempt or copy.
    Timer { slot: u32, op: u32, generation: u32 },
    /// An attempt's or a copy's time limit.
    Cut(Request),
}

/// A slot's operation number once the operation ended.
const ENDED: u32 = u32::MAX;

/// One operation in flight.
struct Operation<'b, B> {
    /// Its number, in arrival order; [`ENDED`] once it ended.
    op: u32,
    decision: Decision<Backoff, &'b B>,
    /// When it arrived, in time units.
    start: f64,
    /// The copies in flight, bit `k - 1` for copy `k`; bit 0 alone for an
    /// attempt of a policy that does not hedge (its one attempt in flight
    /// is the decision's current one).
    in_flight: u32,
    /// The generation of its pending timer: arming a timer or dropping it
    /// moves it on.
    timer: u32,
    /// No more copies may be sent (a hedged operation).
    no_more: bool,
}

/// The bit of copy `copy` in [`Operation::in_flight`].
const fn bit(copy: u32) -> u32 {
    1 << (copy - 1)
}

/// Keys that separate the generators of a run.
const ARRIVALS: u64 = 0;
const SERVICE: u64 = 1;
const JITTER: u64 = 2;

/// The model's parameters in time units.
struct Params {
    /// The mean gap between arrivals.
    arrival_gap: f64,
    /// `retry`'s time limit on each attempt.
    timeout: Option<Duration>,
    limits: Limits,
    operations: u32,
}

/// One run, with its state.
struct Run<'a, 'b, B> {
    point: &'a Point<'a>,
    params: Params,
    engine: Engine<Event>,
    server: Server,
    service: Service,
    service_seed: u64,
    operations: Slots<Operation<'b, B>>,
    counts: Counts,
}

impl<'b, B: Budget> Run<'_, 'b, B> {
    fn hedges(&self) -> bool {
        self.point.hedging.is_some()
    }

    /// Operation number `op` arrives at `now`: copy 1 (attempt 1) goes at once.
    fn start(&mut self, op: u32, decision: Decision<Backoff, &'b B>, now: f64) {
        let operation = Operation { op, decision, start: now, in_flight: 0, timer: 0, no_more: false };
        let slot = self.operations.insert(operation);
        // As the library does: the timer of the next copy is set as copy 1
        // leaves, and an answer from copy 1 may then replace it.
        if let Some(delay) = self.point.hedging.and_then(Hedging::delay) {
            self.arm(slot, now + to_units(delay));
        }
        self.send(slot, 1, now);
    }

    /// Arms the operation's timer for `at`, in place of any other.
    fn arm(&mut self, slot: u32, at: f64) {
        let operation = &mut self.operations[slot];
        operation.timer = operation.timer.wrapping_add(1);
        let timer = Event::Timer { slot, op: operation.op, generation: operation.timer };
        self.engine.schedule_at(at, timer);
    }

    /// Drops the operation's timer, if it has one.
    fn disarm(&mut self, slot: u32) {
        let operation = &mut self.operations[slot];
        operation.timer = operation.timer.wrapping_add(1);
    }

    /// Sends copy (or attempt) `copy` of the operation in `slot` at `now`.
    fn send(&mut self, slot: u32, copy: u32, now: f64) {
        let operation = &mut self.operations[slot];
        let limit =
            operation.decision.limits().attempt_limit(self.params.timeout, elapsed(now - operation.start));
        operation.in_flight |= if self.point.hedging.is_some() { bit(copy) } else { 1 };
        let request = Request { slot, op: operation.op, copy };
        self.counts.attempts += 1;
        let service = self.service.time(self.service_seed, request.op, copy);
        match self.server.arrive(request, service, now) {
            Admission::Served(at) => self.engine.schedule_at(at, Event::Done(request)),
            Admission::Queued => {}
            Admission::Rejected => {
                self.counts.rejected += 1;
                return self.fail(request, Failure::TRANSIENT, now);
            }
        }
        if let Some(limit) = limit {
            self.engine.schedule_at(now + to_units(limit), Event::Cut(request));
        }
    }

    /// Whether the client still waits for `request`'s answer.
    fn waits_for(&self, request: Request) -> bool {
        let operation = &self.operations[request.slot];
        operation.op == request.op
            && if self.hedges() {
                operation.in_flight & bit(request.copy) != 0
            } else {
                operation.in_flight != 0 && operation.decision.attempt() == request.copy
            }
    }

    /// The server finished `request` at `now`.
    fn done(&mut self, request: Request, now: f64) {
        if let Some((next, at)) = self.server.depart(now) {
            self.engine.schedule_at(at, Event::Done(next));
        }
        if self.waits_for(request) {
            self.succeed(request, now);
        } else {
            self.counts.wasted += 1;
        }
    }

    /// `request`'s time limit passed at `now`.
    fn cut(&mut self, request: Request, now: f64) {
        if self.waits_for(request) {
            self.counts.cut += 1;
            self.fail(request, Failure::timeout(), now);
        }
    }

    /// The operation's timer fired at `now`: its next attempt or copy.
    fn timer(&mut self, slot: u32, now: f64) {
        let operation = &mut self.operations[slot];
        let Some(hedging) = self.point.hedging else {
            // A retry, after its backoff.
            operation.decision.on_send();
            let attempt = operation.decision.attempt();
            return self.send(slot, attempt, now);
        };
        match operation.decision.on_hedge(elapsed(now - operation.start)) {
            Action::Retry(_) => {
                operation.decision.on_send();
                let copy = operation.decision.attempt();
                self.counts.hedges += 1;
                match hedging.delay() {
                    Some(delay) => self.arm(slot, now + to_units(delay)),
                    None => self.disarm(slot),
                }
                self.send(slot, copy, now);
            }
            Action::Stop(reason) => {
                if reason == StopReason::BudgetExhausted {
                    self.counts.refused += 1;
                }
                operation.no_more = true;
                let running = operation.in_flight != 0;
                self.disarm(slot);
                if !running {
                    self.end(slot);
                }
            }
        }
    }

    /// `request` failed at `now` (rejected, or cut): the decision says what next.
    fn fail(&mut self, request: Request, failure: Failure, now: f64) {
        let slot = request.slot;
        let operation = &mut self.operations[slot];
        let elapsed = elapsed(now - operation.start);
        if self.point.hedging.is_none() {
            operation.in_flight = 0;
            match operation.decision.on_failure(&failure, elapsed) {
                Action::Retry(delay) => self.arm(slot, now + to_units(delay)),
                Action::Stop(reason) => {
                    if reason == StopReason::BudgetExhausted {
                        self.counts.refused += 1;
                    }
                    self.end(slot);
                }
            }
            return;
        }
        operation.in_flight &= !bit(request.copy);
        let running = operation.in_flight != 0;
        match operation.decision.on_hedged_failure(&failure, elapsed) {
            Action::Retry(wait) if !operation.no_more => self.arm(slot, now + to_units(wait)),
            // No more copies may go: the call waits for those running.
            Action::Retry(_) if running => {}
            Action::Stop(reason)
                if running && !matches!(reason, StopReason::Permanent | StopReason::Cancelled) =>
            {
                operation.no_more = true;
                self.disarm(slot);
            }
            _ => self.end(slot),
        }
    }

    /// `request` succeeded at `now`: the operation is done, its other
    /// copies dropped.
    fn succeed(&mut self, request: Request, now: f64) {
        let operation = &mut self.operations[request.slot];
        operation.decision.on_success();
        let latency = now - operation.start;
        if let Some(hedging) = self.point.hedging {
            hedging.record(elapsed(latency));
            self.counts.hedge_wins += u64::from(request.copy > 1);
        }
        self.counts.succeeded += 1;
        self.counts.latencies[operation.op as usize] = latency;
        self.end(request.slot);
    }

    /// The operation in `slot` ended (its latency is set if it succeeded):
    /// every event of its still pending is stale.
    fn end(&mut self, slot: u32) {
        self.operations[slot].op = ENDED;
        self.operations.free(slot);
    }
}

/// Operations are added to the progress in batches of this many.
const PROGRESS_BATCH: u32 = 1000;

/// Simulates one run of `point` under `budget`, shared by all its
/// operations. `clock` is the virtual time the budget may read; the run
/// sets it before every event.
pub(crate) fn simulate<B: Budget>(
    point: &Point<'_>,
    budget: &B,
    clock: &Cell<Duration>,
    progress: &Progress,
) -> Counts {
    let config = point.config;
    let limits = Limits::for_schedule(point.backoff);
    let limits = match (point.policy, point.hedging) {
        (_, Some(hedging)) => limits.with_max_attempts(Some(hedging.max_attempts())),
        (Policy::NoRetry, None) => limits.with_max_attempts(Some(1)),
        _ => limits,
    };
    let params = Params {
        arrival_gap: SECOND / (point.load * config.capacity()),
        timeout: (point.policy == Policy::Retry).then_some(config.timeout.0),
        limits,
        operations: config.operations,
    };
    // Seeded by the load, never the policy: every policy meets the same
    // operations, each with the same service times and jitter.
    let seed = derive(&[config.seed, point.load.to_bits()]);
    let mut arrivals = FastRng::seed(derive(&[seed, ARRIVALS]));
    let jitter = derive(&[seed, JITTER]);
    let mut run = Run {
        point,
        engine: Engine::with_capacity(1024),
        server: Server::new(config.workers, config.queue),
        service: super::server::Service::of(config),
        service_seed: derive(&[seed, SERVICE]),
        operations: Slots::new(),
        counts: Counts {
            operations: 0,
            attempts: 0,
            rejected: 0,
            hedges: 0,
            hedge_wins: 0,
            cut: 0,
            wasted: 0,
            refused: 0,
            succeeded: 0,
            latencies: vec![f64::INFINITY; params.operations as usize],
            span: 0.0,
        },
        params,
    };
    run.engine.schedule_at(exponential(&mut arrivals, run.params.arrival_gap), Event::Arrival);
    let mut started = 0_u32;
    while let Some(event) = run.engine.pop() {
        let now = run.engine.now();
        clock.set(elapsed(now));
        match event {
            Event::Arrival => {
                let op = started;
                started += 1;
                run.counts.operations += 1;
                run.counts.span = now;
                budget.record_request();
                let rng = FastRng::seed(derive(&[jitter, u64::from(op)]));
                let decision =
                    Decision::with_delays(point.backoff.delays_with_rng(rng), run.params.limits, budget);
                run.start(op, decision, now);
                if started % PROGRESS_BATCH == 0 {
                    progress.add(u64::from(PROGRESS_BATCH));
                }
                if started < run.params.operations {
                    let next = now + exponential(&mut arrivals, run.params.arrival_gap);
                    run.engine.schedule_at(next, Event::Arrival);
                }
            }
            Event::Done(request) => run.done(request, now),
            Event::Timer { slot, op, generation } => {
                let operation = &run.operations[slot];
                if operation.op == op && operation.timer == generation {
                    run.timer(slot, now);
                }
            }
            Event::Cut(request) => run.cut(request, now),
        }
    }
    progress.add(u64::from(started % PROGRESS_BATCH));
    run.counts
}
