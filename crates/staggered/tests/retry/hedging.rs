//! Hedging with `.retry(op).hedge(..)`, on paused tokio time: each copy of
//! the request answers as a script says, and a record of the copies shows
//! when each was sent and dropped, and how many were in flight at once.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::{
    Budget, ErrorKind, Failure, HedgeEvent, Hedging, Hint, Notify, Preset, RetryPolicy, RetryThrottle,
    StopReason, TimedOut, TokenBucket,
};
use tokio::time::Instant;

use super::ms;

/// How a copy answers, after its latency.
#[derive(Debug, Clone, Copy)]
enum Reply {
    Ok,
    /// A failure that lets the other copies go on (gRPC's non-fatal codes).
    Unavailable,
    /// A failure that ends the call.
    Fatal,
    /// A non-fatal failure whose server asks to wait this long first.
    Pushback(u64),
    /// A non-fatal failure whose server asks for no more copies.
    Never,
    /// No answer at all.
    Hang,
}

/// A copy's failure.
#[derive(Debug, Clone, PartialEq)]
enum Failed {
    Answered(u32, &'static str),
    TimedOut(Duration),
}

impl From<TimedOut> for Failed {
    fn from(cut: TimedOut) -> Self {
        Failed::TimedOut(cut.after)
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

fn classify(failed: &Failed) -> Failure {
    match failed {
        Failed::Answered(_, "fatal") => Failure::PERMANENT,
        Failed::Answered(_, pushback) if pushback.starts_with("pushback") => {
            let ms: u64 = pushback["pushback ".len()..].parse().unwrap();
            Failure::TRANSIENT.with_hint(Hint::After(Duration::from_millis(ms)))
        }
        Failed::Answered(_, "never") => Failure::TRANSIENT.with_hint(Hint::Never),
        _ => Failure::TRANSIENT,
    }
}

/// The copies of one call: when each was sent and dropped (since the
/// record began), and the most in flight at once.
#[derive(Debug, Clone)]
struct Copies(Arc<Mutex<Record>>);

#[derive(Debug)]
struct Record {
    start: Instant,
    sent: Vec<(u32, Duration)>,
    dropped: Vec<(u32, Duration)>,
    in_flight: u32,
    most_in_flight: u32,
}

/// Held by a copy's future: its drop is the copy's.
struct InFlight {
    copy: u32,
    copies: Copies,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut record = self.copies.0.lock().unwrap();
        let at = record.start.elapsed();
        record.dropped.push((self.copy, at));
        record.in_flight -= 1;
    }
}

impl Copies {
    fn new() -> Self {
        let record =
            Record { start: Instant::now(), sent: vec![], dropped: vec![], in_flight: 0, most_in_flight: 0 };
        Copies(Arc::new(Mutex::new(record)))
    }

    /// Copy `copy`'s future, answering as `script` says (a copy past its
    /// end hangs).
    fn send(
        &self,
        script: &[(u64, Reply)],
        copy: u32,
    ) -> impl std::future::Future<Output = Result<u32, Failed>> + Send + 'static {
        let (latency, reply) = script.get(copy as usize - 1).copied().unwrap_or((0, Reply::Hang));
        {
            let mut record = self.0.lock().unwrap();
            let at = record.start.elapsed();
            record.sent.push((copy, at));
            record.in_flight += 1;
            record.most_in_flight = record.most_in_flight.max(record.in_flight);
        }
        let guard = InFlight { copy, copies: self.clone() };
        async move {
            let _guard = guard;
            tokio::time::sleep(ms(latency)).await;
            match reply {
                Reply::Ok => Ok(copy),
                Reply::Unavailable => Err(Failed::Answered(copy, "unavailable")),
                Reply::Fatal => Err(Failed::Answered(copy, "fatal")),
                Reply::Pushback(50) => Err(Failed::Answered(copy, "pushback 50")),
                Reply::Pushback(other) => panic!("no script pushes back {other} ms"),
                Reply::Never => Err(Failed::Answered(copy, "never")),
                Reply::Hang => std::future::pending().await,
            }
        }
    }

    fn sent(&self) -> Vec<(u32, Duration)> {
        self.0.lock().unwrap().sent.clone()
    }

    /// The copies dropped, in order of copy.
    fn dropped(&self) -> Vec<(u32, Duration)> {
        let mut dropped = self.0.lock().unwrap().dropped.clone();
        dropped.sort();
        dropped
    }

    fn most_in_flight(&self) -> u32 {
        self.0.lock().unwrap().most_in_flight
    }
}

/// A policy without jitter on server hints, so that a pushback's wait is
/// exact.
fn policy() -> RetryPolicy {
    RetryPolicy::new(Preset::Interactive.backoff()).with_hint_jitter(0.0)
}

fn hedging(delay_ms: u64, max_attempts: u32) -> Hedging {
    Hedging::after(ms(delay_ms)).with_max_attempts(max_attempts).unwrap()
}

/// Runs one hedged call of `policy` under `hedging` against `script`.
async fn hedged(
    policy: &RetryPolicy,
    hedging: Hedging,
    script: &[(u64, Reply)],
) -> (Result<staggered::Retried<u32>, staggered::RetryError<Failed>>, Duration, Copies) {
    let copies = Copies::new();
    let start = Instant::now();
    let result = policy.retry(|copy| copies.send(script, copy)).classify(classify).hedge(hedging).run().await;
    (result, start.elapsed(), copies)
}

#[tokio::test(start_paused = true)]
async fn a_slow_first_copy_loses_to_a_fast_hedge_which_answers_at_the_delay_plus_its_latency() {
    let script = [(1_000, Reply::Ok), (5, Reply::Ok)];
    let (result, took, copies) = hedged(&policy(), hedging(10, 2), &script).await;
    let done = result.unwrap();
    assert_eq!((done.value, done.winner, done.attempts), (2, 2, 2));
    assert_eq!(took, ms(15));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(10))]);
    // The loser is dropped the moment the winner answers.
    assert_eq!(copies.dropped(), [(1, ms(15)), (2, ms(15))]);
}

#[tokio::test(start_paused = true)]
async fn a_first_copy_that_answers_before_the_delay_sends_no_hedge() {
    let (result, took, copies) = hedged(&policy(), hedging(10, 3), &[(9, Reply::Ok)]).await;
    let done = result.unwrap();
    assert_eq!((done.value, done.winner, done.attempts, took), (1, 1, 1, ms(9)));
    assert_eq!(copies.sent(), [(1, ms(0))]);
}

#[tokio::test(start_paused = true)]
async fn at_most_max_attempts_copies_are_ever_in_flight() {
    for max_attempts in 2..=5 {
        let script = [(1_000, Reply::Ok)];
        let (result, took, copies) = hedged(&policy(), hedging(10, max_attempts), &script).await;
        let done = result.unwrap();
        assert_eq!((done.winner, done.attempts, took), (1, max_attempts, ms(1_000)));
        let sent: Vec<_> = (1..=max_attempts).map(|copy| (copy, ms(10 * u64::from(copy - 1)))).collect();
        assert_eq!(copies.sent(), sent);
        assert_eq!(copies.most_in_flight(), max_attempts);
    }
}

#[tokio::test(start_paused = true)]
async fn a_zero_delay_sends_every_copy_at_once() {
    let script = [(30, Reply::Ok), (20, Reply::Ok), (10, Reply::Ok)];
    let (result, took, copies) = hedged(&policy(), hedging(0, 3), &script).await;
    assert_eq!((result.unwrap().winner, took), (3, ms(10)));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(0)), (3, ms(0))]);
}

#[tokio::test(start_paused = true)]
async fn a_fatal_failure_stops_every_copy() {
    let script = [(1_000, Reply::Ok), (5, Reply::Fatal)];
    let (result, took, copies) = hedged(&policy(), hedging(10, 3), &script).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), took), (StopReason::Permanent, 2, ms(15)));
    assert_eq!(err.error(), Some(&Failed::Answered(2, "fatal")));
    assert_eq!(copies.sent().len(), 2, "no copy after the fatal failure");
    assert_eq!(copies.dropped(), [(1, ms(15)), (2, ms(15))]);
}

#[tokio::test(start_paused = true)]
async fn a_non_fatal_failure_sends_the_next_copy_at_once_and_the_delay_resumes_from_there() {
    let script = [(20, Reply::Unavailable), (500, Reply::Ok), (10, Reply::Ok)];
    let (result, took, copies) = hedged(&policy(), hedging(100, 3), &script).await;
    let done = result.unwrap();
    assert_eq!((done.winner, done.attempts, took), (3, 3, ms(130)));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(20)), (3, ms(120))]);
}

#[tokio::test(start_paused = true)]
async fn when_every_copy_fails_the_call_fails_with_the_last_failure() {
    let script = [(20, Reply::Unavailable), (30, Reply::Unavailable)];
    let (result, took, _) = hedged(&policy(), hedging(100, 2), &script).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), took), (StopReason::AttemptsExhausted, 2, ms(50)));
    assert_eq!(err.error(), Some(&Failed::Answered(2, "unavailable")));
}

#[tokio::test(start_paused = true)]
async fn a_pushback_delays_the_next_copy_and_the_delay_resumes_after_it() {
    let script = [(10, Reply::Pushback(50)), (1_000, Reply::Ok), (5, Reply::Ok)];
    let (result, took, copies) = hedged(&policy(), hedging(100, 3), &script).await;
    assert_eq!((result.unwrap().winner, took), (3, ms(165)));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(60)), (3, ms(160))]);
}

#[tokio::test(start_paused = true)]
async fn a_pushback_of_never_sends_no_more_copies_but_those_running_may_still_win() {
    let script = [(100, Reply::Ok), (10, Reply::Never)];
    let (result, took, copies) = hedged(&policy(), hedging(10, 5), &script).await;
    let done = result.unwrap();
    assert_eq!((done.winner, done.attempts, took), (1, 2, ms(100)));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(10))]);
}

#[tokio::test(start_paused = true)]
async fn a_budget_with_no_tokens_sends_no_hedge() {
    // One retry's worth of tokens, spent by the first call's hedge.
    let bucket = TokenBucket::builder().with_capacity(5).with_retry_cost(5).with_success_refund(0).build();
    let policy = policy().with_budget(bucket.clone());
    let script = [(100, Reply::Ok)];
    let (first, _, copies) = hedged(&policy, hedging(10, 3), &script).await;
    assert_eq!((first.unwrap().attempts, copies.sent().len()), (2, 2));
    assert_eq!(bucket.tokens(), 0);
    let (second, took, copies) = hedged(&policy, hedging(10, 3), &script).await;
    assert_eq!((second.unwrap().attempts, took), (1, ms(100)));
    assert_eq!(copies.sent(), [(1, ms(0))]);
    assert_eq!(bucket.metrics().unwrap().refused, 2, "one refusal per call, at its first hedge");
}

#[tokio::test(start_paused = true)]
async fn a_throttle_below_its_threshold_sends_no_hedge_and_a_failed_copy_counts_against_it() {
    // gRPC's throttle: 10 tokens, hedges only above 5; each failure costs 1.
    let throttle = RetryThrottle::new();
    let policy = policy().with_budget(throttle.clone());
    for _ in 0..5 {
        let (result, ..) = hedged(&policy, hedging(10, 2), &[(5, Reply::Unavailable), (5, Reply::Ok)]).await;
        assert_eq!(result.unwrap().winner, 2);
    }
    // Five failures took it from 10 to 5 (plus 0.5 from five successes).
    let (result, took, copies) = hedged(&policy, hedging(10, 2), &[(5, Reply::Unavailable)]).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), took), (StopReason::BudgetExhausted, 1, ms(5)));
    assert_eq!(copies.sent(), [(1, ms(0))]);
}

#[tokio::test(start_paused = true)]
async fn cancelling_the_call_drops_every_copy() {
    let copies = Copies::new();
    let result = policy()
        .retry(|copy| copies.send(&[], copy))
        .classify(classify)
        .hedge(hedging(10, 3))
        .cancel_on(tokio::time::sleep(ms(25)))
        .call()
        .await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Cancelled, 3));
    assert_eq!(copies.dropped(), [(1, ms(25)), (2, ms(25)), (3, ms(25))]);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_call_drops_every_copy() {
    let copies = Copies::new();
    let policy = policy();
    let call = policy.retry(|copy| copies.send(&[], copy)).classify(classify).hedge(hedging(10, 3)).call();
    assert!(tokio::time::timeout(ms(25), call).await.is_err());
    assert_eq!(copies.dropped(), [(1, ms(25)), (2, ms(25)), (3, ms(25))]);
}

#[tokio::test(start_paused = true)]
async fn the_deadline_cuts_every_copy() {
    let policy = policy().with_deadline(ms(50)).unwrap();
    let (result, took, copies) = hedged(&policy, hedging(10, 2), &[]).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 2));
    // Each copy is cut at the time left when it was sent.
    assert_eq!(err.error(), Some(&Failed::TimedOut(ms(40))));
    assert_eq!(took, ms(50));
    assert_eq!(copies.dropped(), [(1, ms(50)), (2, ms(50))]);
}

#[tokio::test(start_paused = true)]
async fn a_learned_delay_hedges_only_once_it_has_seen_enough_latencies() {
    let learned = Hedging::at_percentile(0.9).unwrap().with_min_samples(10).with_max_attempts(2).unwrap();
    let policy = policy();
    for _ in 0..10 {
        let (result, took, copies) = hedged(&policy, learned.clone(), &[(1_000, Reply::Ok)]).await;
        assert_eq!((result.unwrap().attempts, took, copies.sent().len()), (1, ms(1_000), 1), "not yet");
    }
    // Ten latencies of 1 s seen: now a copy still out after about 1 s is hedged.
    let (result, took, copies) =
        hedged(&policy, learned.clone(), &[(5_000, Reply::Ok), (10, Reply::Ok)]).await;
    let (hedged_at, winner) = (copies.sent()[1].1, result.unwrap().winner);
    assert!(hedged_at >= ms(1_000) && hedged_at <= ms(1_100), "{hedged_at:?}");
    assert_eq!((winner, took), (2, hedged_at + ms(10)));
}

/// Hears the hedges of a call.
#[derive(Debug, Clone, Default)]
struct HeardHedges(Arc<Mutex<Vec<(u32, u32, Duration)>>>);

impl<E: ?Sized> Notify<E> for HeardHedges {
    fn on_hedge(&self, event: &HedgeEvent) {
        self.0.lock().unwrap().push((event.attempt, event.in_flight, event.elapsed));
    }
}

#[tokio::test(start_paused = true)]
async fn the_hooks_hear_each_hedge_and_each_failed_copy() {
    let heard = HeardHedges::default();
    let retries = Arc::new(Mutex::new(vec![]));
    let copies = Copies::new();
    let script = [(1_000, Reply::Ok), (5, Reply::Unavailable), (50, Reply::Ok)];
    let done = policy()
        .retry(|copy| copies.send(&script, copy))
        .classify(classify)
        .on_retry(|event| retries.lock().unwrap().push((event.attempt, event.failure.kind, event.delay)))
        .notify(heard.clone())
        .hedge(hedging(10, 3))
        .run()
        .await
        .unwrap();
    assert_eq!(done.winner, 3);
    assert_eq!(*heard.0.lock().unwrap(), [(2, 2, ms(10)), (3, 2, ms(15))]);
    assert_eq!(*retries.lock().unwrap(), [(2, ErrorKind::Transient, Duration::ZERO)]);
}

#[tokio::test(start_paused = true)]
async fn a_copy_waits_for_its_token_by_the_rule_every_attempt_does() {
    // Copy 1 gets its token and fails at once; the next token is 600 ms
    // away, past the 100 ms deadline: the call stops at once, as the same
    // call unhedged does, and never sleeps toward a token it cannot use.
    let limiter = super::probes::CountingLimiter::refusing_every(2, ms(600));
    let deadline = policy().with_deadline(ms(100)).unwrap().with_rate_limiter(limiter);
    let script = [(0, Reply::Unavailable), (0, Reply::Ok)];
    let (result, took, copies) = hedged(&deadline, hedging(10, 3), &script).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), took), (StopReason::Deadline, 1, Duration::ZERO));
    assert_eq!(copies.sent(), [(1, ms(0))]);
    let copies = Copies::new();
    let unhedged = deadline.retry(|copy| copies.send(&script, copy)).classify(classify).run().await;
    assert_eq!(unhedged.unwrap_err().reason(), StopReason::Deadline);

    // A bound on the token's wait holds for a copy too: shed at once.
    let limiter = super::probes::CountingLimiter::refusing_every(2, ms(600));
    let bounded = policy().with_max_token_wait(ms(100)).with_rate_limiter(limiter);
    let (result, took, _) = hedged(&bounded, hedging(10, 3), &script).await;
    let err = result.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), took), (StopReason::TokenWaitTooLong, 1, Duration::ZERO));

    // Within both bounds, the copy waits for its token and is sent.
    let limiter = super::probes::CountingLimiter::refusing_every(2, ms(50));
    let within = policy().with_deadline(ms(100)).unwrap().with_rate_limiter(limiter);
    let (result, took, copies) = hedged(&within, hedging(10, 3), &script).await;
    assert_eq!((result.unwrap().value, took), (2, ms(50)));
    assert_eq!(copies.sent(), [(1, ms(0)), (2, ms(50))]);
}
