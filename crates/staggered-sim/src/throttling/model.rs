//! One run of the throttling model: one policy, a fleet of clients and a
//! rate-limited server, on the engine.
//!
//! The reading of the model is documented on the [scenario](super).

use std::cell::Cell;
use std::collections::VecDeque;
use std::time::Duration;

use staggered::classify::quota::ratelimit;
use staggered::limiter::AdaptiveLimiter;
use staggered::{Action, Backoff, Decision, Failure, FastRng, Quota, StopReason, TokenBucket};

use super::ThrottlingParams;
use crate::engine::Engine;
use crate::experiment::Progress;
use crate::fleet::{bucket, exponential, Policy, Seconds, Series, Slots};
use crate::rng::derive;
use crate::units::{elapsed, to_units, SECOND};

/// What one run counted, raw; [`report`](super::report) turns it into a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Counts {
    /// Per second: operations started, attempts reaching the server, and
    /// operations that succeeded.
    pub series: Series,
    /// Operations started.
    pub operations: u64,
    /// Attempts that reached the server, first ones included.
    pub attempts: u64,
    /// Attempts the server throttled.
    pub throttled: u64,
    /// Attempts that reached the server in the last half of the run.
    pub late_attempts: u64,
    /// Operations that succeeded within the caller's timeout.
    pub succeeded: u64,
    /// Operations that succeeded after the caller's timeout: too late to count.
    pub late: u64,
    /// Operations shed while waiting for a token: the wait would have
    /// passed `max_token_wait` or the caller's timeout.
    pub shed: u64,
    /// Retries the retry quota refused (each ends its operation).
    pub refused: u64,
    /// Operations not finished at the end: waiting for a token or a retry,
    /// or with an attempt in flight.
    pub unfinished: u64,
    /// Per operation, the time it waited on the client side (limiter and
    /// backoff), in time units; shed ones up to when they were shed,
    /// unfinished ones up to the end.
    pub waits: Vec<f64>,
}

/// An event on the engine.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A client's next operation starts.
    Arrival(u32),
    /// A client's limiter may have a token for the attempt at the head of its queue.
    Wake(u32),
    /// An operation's backoff is over: its retry joins its client's queue.
    Retry(u32),
    /// An attempt's response reaches its client: admitted (`ok`) or throttled.
    Response { op: u32, ok: bool },
}

/// The server's rate limit: a token bucket refilled at `rate` per time unit
/// that holds `burst` seconds of tokens (at least one), full at the start.
struct Server {
    rate: f64,
    capacity: f64,
    level: f64,
    last: f64,
}

impl Server {
    fn new(per_second: f64, burst: f64) -> Self {
        let capacity = (per_second * burst).max(1.0);
        Server { rate: per_second / SECOND, capacity, level: capacity, last: 0.0 }
    }

    /// Whether a request reaching the server at `now` is admitted.
    #[inline]
    fn admit(&mut self, now: f64) -> bool {
        self.level = (self.level + (now - self.last) * self.rate).min(self.capacity);
        self.last = now;
        if self.level >= 1.0 {
            self.level -= 1.0;
            true
        } else {
            false
        }
    }

    /// The `RateLimit` field it answers with after [`admit`](Server::admit):
    /// the whole tokens left, and the whole seconds, rounded up, until the
    /// bucket is full.
    fn ratelimit_field(&self) -> String {
        let to_full = (self.capacity - self.level) / self.rate / SECOND;
        format!("\"default\";r={};t={}", self.level.floor(), to_full.ceil())
    }
}

/// One operation: its retry decision, its client, when it started, and the
/// time it has waited on the client side.
struct Operation<'b> {
    decision: Decision<Backoff, &'b Option<TokenBucket>>,
    client: u32,
    start: f64,
    /// When the caller's timeout ends it.
    expires: f64,
    /// When the attempt waiting in the client's queue joined it, if one does.
    queued: Option<f64>,
    /// Waited so far, in time units, not counting the wait under way.
    waited: f64,
    /// When the wait under way began (for a token or a retry), if waiting.
    waiting_since: Option<f64>,
    /// Whether it has not finished.
    live: bool,
    /// The quota the server announced on the response to its last attempt.
    quota: Option<Quota>,
}

/// One client: its arrivals, its limiter and the attempts waiting for it.
struct Client<L> {
    arrivals: FastRng,
    /// Operations started so far: the index of the next one's jitter generator.
    started: u64,
    limiter: Option<L>,
    /// Attempts waiting for a token, first come first served.
    queue: VecDeque<u32>,
    /// Whether a [`Event::Wake`] is pending.
    waking: bool,
}

/// Keys that separate the generators of a run.
const ARRIVALS: u64 = 0;
const JITTER: u64 = 1;

/// The model's parameters in time units (milliseconds).
#[derive(Debug, Clone, Copy)]
struct Params {
    end: f64,
    half: f64,
    arrival_gap: f64,
    hop: f64,
    timeout: f64,
    /// The longest an attempt waits for its token.
    max_token_wait: f64,
    /// Whether the server announces its quota and the limiters read it.
    announce: bool,
}

/// One run, with its state.
struct Run<'b, K: staggered::sleep::Clock> {
    params: Params,
    engine: Engine<Event>,
    server: Server,
    clients: Vec<Client<AdaptiveLimiter<K>>>,
    operations: Slots<Operation<'b>>,
    counts: Counts,
}

impl<K: staggered::sleep::Clock> Run<'_, K> {
    /// Schedules `event` at `at` if that is before the end of the run.
    #[inline]
    fn schedule(&mut self, at: f64, event: Event) -> bool {
        let inside = at < self.params.end;
        if inside {
            self.engine.schedule_at(at, event);
        }
        inside
    }

    /// An attempt of `op` is ready at `now`: sent at once without a
    /// limiter, else queued behind the client's other waiting attempts.
    fn ready(&mut self, op: u32, now: f64) {
        let client = self.operations[op].client;
        if self.clients[client as usize].limiter.is_none() {
            self.send(op, now);
            return;
        }
        self.operations[op].queued = Some(now);
        let c = &mut self.clients[client as usize];
        c.queue.push_back(op);
        if !c.waking {
            self.drain(client, now);
        }
    }

    /// Sends the client's queued attempts while its limiter gives tokens;
    /// when it says to wait, wakes up after that wait to ask again.
    ///
    /// An attempt gives up its place as the library's drivers do
    /// ([`Decision::on_token_wait`]): when the limiter's wait would take it
    /// past its bound (`max_token_wait` since it joined the queue, or the
    /// caller's timeout). One behind the head learns its wait only at the
    /// head: if its bound has passed by then, it gave up at that bound.
    fn drain(&mut self, client: u32, now: f64) {
        loop {
            let Some(&op) = self.clients[client as usize].queue.front() else { return };
            let bound = self.bound(op);
            if bound <= now {
                self.clients[client as usize].queue.pop_front();
                self.shed(op, bound);
                continue;
            }
            let c = &mut self.clients[client as usize];
            let limiter = c.limiter.as_ref().expect("only a limited client queues");
            match limiter.try_acquire() {
                Ok(()) => {
                    c.queue.pop_front();
                    self.send(op, now);
                }
                Err(wait) if now + to_units(wait) >= bound => {
                    c.queue.pop_front();
                    self.shed(op, now);
                }
                Err(wait) => {
                    c.waking = true;
                    self.schedule(now + to_units(wait), Event::Wake(client));
                    return;
                }
            }
        }
    }

    /// When the queued attempt of `op` gives up waiting for its token.
    fn bound(&self, op: u32) -> f64 {
        let operation = &self.operations[op];
        let queued = operation.queued.expect("a queued attempt knows when it joined");
        operation.expires.min(queued + self.params.max_token_wait)
    }

    /// `op` stops waiting for its token at `at`: shed.
    fn shed(&mut self, op: u32, at: f64) {
        let operation = &mut self.operations[op];
        if let Some(since) = operation.waiting_since.take() {
            operation.waited += at - since;
        }
        // The retry it waited to send is not sent: the quota gets it back.
        operation.decision.retry_not_sent();
        self.counts.shed += 1;
        self.finish(op);
    }

    /// `op`'s attempt leaves at `now` and reaches the server one hop later.
    fn send(&mut self, op: u32, now: f64) {
        let operation = &mut self.operations[op];
        if let Some(since) = operation.waiting_since.take() {
            operation.waited += now - since;
        }
        operation.queued = None;
        operation.decision.on_send();
        let at = now + self.params.hop;
        if at >= self.params.end {
            return; // in flight at the end
        }
        let ok = self.server.admit(at);
        if self.params.announce {
            // The server writes the field; the client reads it as any would.
            operation.quota = ratelimit(&self.server.ratelimit_field());
        }
        let c = &mut self.counts;
        c.attempts += 1;
        c.series.arrivals[bucket(at)] += 1;
        if at >= self.params.half {
            c.late_attempts += 1;
        }
        if !ok {
            c.throttled += 1;
        }
        self.schedule(at + self.params.hop, Event::Response { op, ok });
    }

    /// `op`'s response arrives at `now`.
    fn respond(&mut self, op: u32, ok: bool, now: f64) {
        let operation = &mut self.operations[op];
        if let Some(limiter) = &self.clients[operation.client as usize].limiter {
            if let Some(quota) = operation.quota.take() {
                limiter.announce(quota);
            }
            limiter.record_response(!ok);
        }
        if ok {
            operation.decision.on_success();
            if now <= operation.expires {
                self.counts.succeeded += 1;
                self.counts.series.goodput[bucket(now)] += 1;
            } else {
                self.counts.late += 1;
            }
            self.finish(op);
            return;
        }
        match operation.decision.on_failure(&Failure::THROTTLED, elapsed(now - operation.start)) {
            Action::Retry(delay) => {
                operation.waiting_since = Some(now);
                self.schedule(now + to_units(delay), Event::Retry(op));
            }
            Action::Stop(reason) => {
                if reason == StopReason::BudgetExhausted {
                    self.counts.refused += 1;
                }
                self.finish(op);
            }
        }
    }

    fn finish(&mut self, op: u32) {
        let operation = &mut self.operations[op];
        operation.live = false;
        self.counts.waits.push(operation.waited);
        self.operations.free(op);
    }
}

/// Simulates one run of `policy` on `backoff`. `clock` is the virtual time
/// the limiters read; the run sets it before every event. Each simulated
/// second is added to `progress` as the clock passes it.
pub(crate) fn simulate(
    config: &ThrottlingParams,
    policy: Policy,
    backoff: &Backoff,
    clock: &Cell<Duration>,
    progress: &Progress,
) -> Counts {
    let end = to_units(config.duration.0);
    let clients = config.clients;
    let params = Params {
        end,
        half: end / 2.0,
        arrival_gap: SECOND * f64::from(clients) / config.arrival_rate.0,
        hop: to_units(config.hop.0),
        timeout: to_units(config.timeout.0),
        max_token_wait: to_units(config.max_token_wait.0),
        announce: config.announce && policy.reads_headers(),
    };
    let seed = config.seed;
    let buckets = config.buckets();
    // The caller's timeout is the decision's deadline too: no retry waits
    // past it.
    let limits = policy.limits(backoff);
    let deadline = limits.deadline.map_or(config.timeout.0, |deadline| deadline.min(config.timeout.0));
    let limits = limits.with_deadline(Some(deadline));
    // One retry quota per client, as each SDK client has its own.
    let quotas: Vec<Option<TokenBucket>> =
        (0..clients).map(|_| policy.has_budget().then(|| config.quota().build())).collect();
    let read = || clock.get();
    let clients: Vec<Client<_>> = (0..clients)
        .map(|client| Client {
            // Seeded without the policy: every policy meets the same
            // arrivals, and an operation draws the same jitter under each.
            arrivals: FastRng::seed(derive(&[seed, ARRIVALS, client.into()])),
            started: 0,
            limiter: policy.limiter_mode().map(|mode| {
                let limiter = config.limiter().with_mode(mode);
                limiter.build_with_clock(read).expect("the parameters checked the limiter")
            }),
            queue: VecDeque::new(),
            waking: false,
        })
        .collect();
    let mut run = Run {
        params,
        engine: Engine::with_capacity(1024),
        server: Server::new(config.rate_limit.0, config.rate_limit_burst.0.as_secs_f64()),
        clients,
        operations: Slots::new(),
        counts: Counts {
            series: Series::new(buckets),
            operations: 0,
            attempts: 0,
            throttled: 0,
            late_attempts: 0,
            succeeded: 0,
            late: 0,
            shed: 0,
            refused: 0,
            unfinished: 0,
            waits: Vec::new(),
        },
    };
    for client in 0..run.clients.len() {
        let first = exponential(&mut run.clients[client].arrivals, params.arrival_gap);
        run.schedule(first, Event::Arrival(client as u32));
    }

    let mut seconds = Seconds::new(buckets, progress);
    while let Some(event) = run.engine.pop() {
        let now = run.engine.now();
        clock.set(elapsed(now));
        seconds.at(now);
        match event {
            Event::Arrival(client) => {
                let c = &mut run.clients[client as usize];
                let jitter = FastRng::seed(derive(&[seed, JITTER, client.into(), c.started]));
                c.started += 1;
                let next = now + exponential(&mut c.arrivals, params.arrival_gap);
                run.counts.operations += 1;
                run.counts.series.offered[bucket(now)] += 1;
                let quota = &quotas[client as usize];
                if let Some(quota) = quota {
                    staggered::Budget::record_request(quota);
                }
                let operation = Operation {
                    decision: Decision::with_delays(backoff.delays_with_rng(jitter), limits, quota),
                    client,
                    start: now,
                    expires: now + params.timeout,
                    queued: None,
                    waited: 0.0,
                    waiting_since: Some(now),
                    live: true,
                    quota: None,
                };
                let op = run.operations.insert(operation);
                run.ready(op, now);
                run.schedule(next, Event::Arrival(client));
            }
            Event::Wake(client) => {
                run.clients[client as usize].waking = false;
                run.drain(client, now);
            }
            Event::Retry(op) => run.ready(op, now),
            Event::Response { op, ok } => run.respond(op, ok, now),
        }
    }
    seconds.finish();
    // What is still under way at the end: waiting (up to the end) or in
    // flight; or shed already, for a queued attempt whose bound has passed.
    for operation in run.operations.all().iter().filter(|o| o.live) {
        let bound = operation.queued.map(|queued| operation.expires.min(queued + params.max_token_wait));
        let stopped = match bound {
            Some(bound) if bound <= end => {
                run.counts.shed += 1;
                bound
            }
            _ => {
                run.counts.unfinished += 1;
                end
            }
        };
        let waiting = operation.waiting_since.map_or(0.0, |since| stopped - since);
        run.counts.waits.push(operation.waited + waiting);
    }
    run.counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_admits_a_second_of_tokens_then_its_rate() {
        let mut server = Server::new(10.0, 1.0);
        assert_eq!((0..12).filter(|_| server.admit(0.0)).count(), 10);
        // One token every 100 ms from then on.
        assert!(!server.admit(99.0));
        assert!(server.admit(100.0));
        assert!(!server.admit(100.0));
        // Idle for a minute: the bucket holds a second's worth, no more.
        assert_eq!((0..20).filter(|_| server.admit(60_000.0)).count(), 10);
        // Below one a second it still holds one token.
        let mut slow = Server::new(0.5, 1.0);
        assert!(slow.admit(0.0) && !slow.admit(1_999.0) && slow.admit(2_000.0));
        // A bucket of 2.5 s holds two and a half seconds of tokens.
        let mut deep = Server::new(10.0, 2.5);
        assert_eq!((0..30).filter(|_| deep.admit(0.0)).count(), 25);
    }

    #[test]
    fn every_operation_ends_or_is_counted_unfinished_with_its_wait() {
        let config = ThrottlingParams {
            clients: 3,
            arrival_rate: crate::values::Rate(90.0),
            rate_limit: crate::values::Rate(30.0),
            duration: crate::values::Span(Duration::from_secs(10)),
            ..ThrottlingParams::default()
        };
        let backoff = config.backoff().unwrap();
        for policy in super::super::POLICIES {
            let c = simulate(&config, policy, &backoff, &Cell::new(Duration::ZERO), &Progress::default());
            assert_eq!(c.waits.len() as u64, c.operations, "{policy}");
            assert_eq!(c.series.offered.iter().map(|&n| u64::from(n)).sum::<u64>(), c.operations);
            assert_eq!(c.series.arrivals.iter().map(|&n| u64::from(n)).sum::<u64>(), c.attempts);
            assert!(c.succeeded + c.late + c.shed + c.unfinished <= c.operations);
            let longest = c.waits.iter().copied().fold(0.0, f64::max);
            assert!(longest <= 5_000.0, "{policy}: no wait outlasts the caller's timeout");
            if policy == Policy::NoRetry {
                assert!(c.waits.iter().all(|&w| w == 0.0));
            }
            if policy.has_limiter() {
                // Two thirds of the load cannot be sent: it queues, and
                // what would wait for a token past a second is shed.
                assert!(c.shed * 2 > c.operations, "{policy}: {c:?}");
                assert_eq!(c.late, 0, "{policy}: what is sent is sent in time");
            } else {
                assert_eq!(c.shed, 0);
            }
        }
    }
}
