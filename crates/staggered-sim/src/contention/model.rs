//! One run of the 2015 contention model, on the engine.
//!
//! The reading of the model is documented on the [scenario](super).

use std::time::Duration;

use staggered::{Action, Backoff, Decision, Failure, FastRng, Limits, NoBudget};

use crate::engine::Engine;
use crate::experiment::Progress;
use crate::rng::{derive, Normal};
use crate::units::{elapsed, to_units};

/// What one run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RunOutcome {
    /// Writes that reached the server, successful or not.
    pub calls: u64,
    /// The time of the last event, in time units.
    pub time: f64,
    /// Clients whose retry decision stopped them before their write succeeded
    /// (always 0 with the published model, which retries until success).
    pub gave_up: u32,
}

/// A message arriving at the server: a client's read, or, with the
/// [`WRITE`] bit set, its write. The version the write carries is kept with
/// the client ([`Client::seen`]), so that a queued event is 4 bytes and its
/// entry in the engine's heap 16.
type Message = u32;

/// The bit of a [`Message`] that marks a write.
const WRITE: u32 = 1 << 31;
const _: () = assert!(super::MAX_CLIENTS < WRITE, "a client index leaves the write bit free");

/// How many finished clients a run counts before it adds them to the
/// shared [`Progress`]: one atomic add per client, from two threads, moved
/// its cache line between the cores about a million times in the published
/// grid.
const PROGRESS_BATCH: u32 = 1024;

/// One client's state.
#[derive(Debug)]
struct Client {
    /// Its retry state: the library's sans-IO decision over the client's
    /// own delays, with no limit besides the schedule's end (the published
    /// clients retry until their write succeeds).
    decision: Decision<Backoff, NoBudget>,
    /// The row's version its last read saw, which its write carries.
    seen: u32,
}

/// The one place a client decides what follows a failed write: the library's
/// [`Decision`], told that the write failed transiently (no server hint)
/// `since_start` after the client's first read left. The simulator holds no
/// retry rule of its own. Without a hint the decision draws nothing itself,
/// so the delays are exactly the schedule's: `Retry(delay)` is its next delay.
#[inline]
fn after_failure(client: &mut Client, since_start: Duration) -> Action {
    client.decision.on_failure(&Failure::TRANSIENT, since_start)
}

/// The network: every hop is an independent `abs(Normal(mean, sd))` draw.
struct Network {
    normal: Normal,
    rng: FastRng,
}

impl Network {
    #[inline]
    fn hop(&mut self) -> f64 {
        self.normal.sample(&mut self.rng).abs()
    }
}

/// The allocations a thread reuses from run to run: the event queue and the
/// clients' retry decisions.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    engine: Engine<Message>,
    clients: Vec<Client>,
}

/// Keys that separate the network's generator from the clients'.
const NETWORK: u64 = 0;
const CLIENTS: u64 = 1;

/// Simulates one run with `clients` clients walking `backoff`, every generator
/// derived from `seed`, adding the clients that are done to `progress` as it
/// goes (in batches of [`PROGRESS_BATCH`], the rest at the end).
pub(crate) fn simulate(
    scratch: &mut Scratch,
    clients: u32,
    backoff: &Backoff,
    (hop_mean, hop_sd): (f64, f64),
    seed: u64,
    progress: &Progress,
) -> RunOutcome {
    let Scratch { engine, clients: states } = scratch;
    engine.reset();
    states.clear();
    // Each client's schedule owns its generator, so clients never share draws.
    states.extend((0..clients).map(|i| {
        let rng = FastRng::seed(derive(&[seed, CLIENTS, u64::from(i)]));
        Client {
            decision: Decision::with_delays(backoff.delays_with_rng(rng), Limits::NONE, NoBudget),
            seen: 0,
        }
    }));
    let mut network =
        Network { normal: Normal::new(hop_mean, hop_sd), rng: FastRng::seed(derive(&[seed, NETWORK])) };

    for client in 0..clients {
        engine.schedule_at(network.hop(), client);
    }
    let mut row_version = 0_u32;
    let mut calls = 0_u64;
    let mut gave_up = 0_u32;
    let mut last_event = 0.0_f64;
    let mut done = 0_u32;
    while engine.step(|now, message| {
        if message & WRITE == 0 {
            // A read. The answer carries today's version, and the write
            // leaves the moment it arrives.
            states[message as usize].seen = row_version;
            let answer = network.hop();
            return Some((now + (answer + network.hop()), message | WRITE));
        }
        let client = &mut states[(message & !WRITE) as usize];
        calls += 1;
        let reply = now + network.hop();
        last_event = last_event.max(reply);
        if client.seen != row_version {
            // Every client's first read left at time 0.
            match after_failure(client, elapsed(reply)) {
                Action::Retry(delay) => {
                    return Some((reply + network.hop() + to_units(delay), message & !WRITE));
                }
                Action::Stop(_) => gave_up += 1,
            }
        } else {
            row_version += 1;
        }
        // The client is done.
        done += 1;
        if done == PROGRESS_BATCH {
            progress.add(u64::from(done));
            done = 0;
        }
        None
    }) {}
    progress.add(u64::from(done));
    RunOutcome { calls, time: last_event, gave_up }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContentionStrategy;
    use staggered::Strategy;

    fn run(strategy: ContentionStrategy, clients: u32, seed: u64) -> RunOutcome {
        let backoff = strategy.backoff(5.0, 2000.0).unwrap();
        simulate(&mut Scratch::default(), clients, &backoff, (10.0, 2.0), seed, &Progress::default())
    }

    #[test]
    fn a_lone_client_succeeds_at_once() {
        for strategy in ContentionStrategy::PUBLISHED {
            let outcome = run(strategy, 1, 3);
            assert_eq!(outcome.calls, 1);
            // Four hops of about 10 each.
            assert!((20.0..60.0).contains(&outcome.time), "{outcome:?}");
        }
    }

    #[test]
    fn every_client_writes_once_successfully() {
        // N successful writes plus the failures; without backoff the first
        // round alone fails for all but one client.
        let outcome = run(ContentionStrategy::NoBackoff, 10, 1);
        assert!(outcome.calls >= 10 + 9, "{outcome:?}");
        assert_eq!(outcome.gave_up, 0);
    }

    #[test]
    fn fixed_hops_give_the_exact_timeline() {
        // Hops of exactly 10 and no jitter: both clients read version 0 at
        // t=10, both write at t=30 (the first in schedule order wins), the
        // loser's reply arrives at t=40, it waits x(1) = 10, reads at t=60,
        // writes at t=80 and its reply arrives at t=90.
        let backoff = ContentionStrategy::Backoff(Strategy::Exponential).backoff(5.0, 2000.0).unwrap();
        let outcome = simulate(&mut Scratch::default(), 2, &backoff, (10.0, 0.0), 9, &Progress::default());
        assert_eq!(outcome, RunOutcome { calls: 3, time: 90.0, gave_up: 0 });
    }

    #[test]
    fn the_decision_retries_with_exactly_the_schedule() {
        // Without a hint the decision draws nothing itself: its waits are the
        // schedule's delays, which keeps the published grid bit-identical.
        for strategy in ContentionStrategy::PUBLISHED {
            let backoff = strategy.backoff(5.0, 2000.0).unwrap();
            let mut client = Client {
                decision: Decision::with_delays(backoff.delays_seeded(11), Limits::NONE, NoBudget),
                seen: 0,
            };
            for (retry, expected) in backoff.delays_seeded(11).take(40).enumerate() {
                let since_start = elapsed(100.0 * retry as f64);
                assert_eq!(after_failure(&mut client, since_start), Action::Retry(expected), "{strategy}");
            }
        }
    }

    #[test]
    fn scratch_reuse_does_not_leak_between_runs() {
        let backoff = ContentionStrategy::Backoff(Strategy::Full).backoff(5.0, 2000.0).unwrap();
        let mut scratch = Scratch::default();
        let progress = Progress::default();
        let first = simulate(&mut scratch, 30, &backoff, (10.0, 2.0), 5, &progress);
        simulate(&mut scratch, 50, &backoff, (10.0, 2.0), 6, &progress);
        assert_eq!(simulate(&mut scratch, 30, &backoff, (10.0, 2.0), 5, &progress), first);
        assert_eq!(progress.done(), 30 + 50 + 30, "every client is counted once it is done");
    }
}
