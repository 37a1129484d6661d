//! A hedged call (see [`Hedging`]): copies of one request in flight at
//! once, the first success wins. The same machine as every other call
//! ([`Operation`]) decides each copy (budget, limiter, deadline, hooks)
//! and judges each answer; the loop here only sends, polls and times.
//!
//! The rules, as gRPC's retry design (A6) gives them for hedging:
//! - copy 1 goes at once, each next one after the [`Hedging`] delay while
//!   none has answered, up to its `max_attempts`;
//! - a success wins: the other copies are dropped;
//! - a failure the classifier calls permanent ends the call at once, the
//!   other copies dropped;
//! - any other failure sends the next copy at once, or after the server's
//!   hint if it gave one (the copies after it resume the delay from
//!   there); a hint of "never" sends no more;
//! - a copy the budget refuses is not sent;
//! - once no more copies may be sent, the call waits for those running,
//!   and fails with the last failure if none succeeds.

use core::fmt;
use core::future::{poll_fn, Future};
use core::pin::{pin, Pin};
use core::task::{Context, Poll};
use core::time::Duration;
use std::boxed::Box;
use std::vec::Vec;

use crate::budget::Budget;
use crate::classify::ErrorKind;
use crate::retry::event::{HedgeEvent, Notify, RetryEvent};
use crate::retry::future::{fired, race, Sending};
use crate::retry::hedging::Hedging;
use crate::retry::judge::Judge;
use crate::retry::operation::{Attempted, Before, CallParts, Operation, Stopped};
use crate::retry::timeout::Timeout;
use crate::sleep::{Clock, Sleeper};
use crate::{Action, Limits, Retried, RetryPolicy, Schedule, StopReason, TimedOut};

/// How a hedged call ended: a success, or the stop.
type Ended<V, X> = Result<Retried<V>, Stopped<X>>;

/// Sends copies of a request with `send` (given the copy's number, 1 for
/// the first, and its time limit) by the rules above, until one succeeds,
/// the call fails, or `cancel` completes. Every copy is dropped on return.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn drive<S, C, T, F, Fut, V, E, J, H, Z, K, X>(
    policy: &RetryPolicy<S, C, T>,
    limits: &Limits,
    hedging: &Hedging,
    mut send: F,
    judge: &J,
    hooks: &H,
    sleeper: &Z,
    clock: &K,
    cancel: X,
) -> Result<Retried<J::Success>, Stopped<J::Failed>>
where
    S: Schedule,
    T: Timeout,
    F: FnMut(u32, Option<Duration>) -> Sending<Fut>,
    Fut: Future<Output = Result<V, E>>,
    E: From<TimedOut>,
    J: Judge<V, E>,
    H: Notify<J::Failed>,
    Z: Sleeper + ?Sized,
    K: Clock + ?Sized,
    X: Future<Output = ()>,
{
    let limits = hedging.limits(*limits);
    let cx = CallParts { policy, limits: &limits, hooks, clock };
    let mut cancel = pin!(cancel);
    let mut operation = Operation::start(&cx);
    // Copy 1 is any call's attempt 1, after the limiter's token.
    let (first, limit) = loop {
        match operation.before(&cx, fired(cancel.as_mut())) {
            Before::Send { attempt, limit } => break (send(attempt, limit), limit),
            Before::Wait(wait) => {
                if race(pin!(sleeper.sleep(wait)), cancel.as_mut()).await.is_err() {
                    return Err(operation.cancel(&cx));
                }
            }
            Before::Stop(stopped) => return Err(stopped),
        }
    };
    let mut copies = Copies::start(&mut operation, &cx, hedging, first, limit, sleeper);
    poll_fn(move |task| {
        let fired = cancel.as_mut().poll(task).is_ready();
        copies.poll(task, &mut operation, &cx, judge, hedging, sleeper, &mut send, fired)
    })
    .await
}

/// The copies of a hedged call in flight, and when the next may go: the
/// loop every hedging driver polls (the async one above, and the tower
/// layer's future), after it has sent copy 1.
pub(crate) struct Copies<Fut, Sl, I> {
    flights: Vec<InFlight<Fut, Sl>>,
    /// When the next copy may go: `None` once no more may, or while a
    /// learned delay has not seen enough latencies.
    next: Option<Pin<Box<Sl>>>,
    /// Why no more copies may go, once none may.
    no_more: Option<StopReason>,
    /// When copy 1 was sent, for a learned delay's latencies.
    began: I,
}

impl<Fut, Sl: Future<Output = ()>, I: Copy> Copies<Fut, Sl, I> {
    /// Copy 1, just sent with `limit`, the first in flight.
    pub(crate) fn start<S, C, T, H, K, X, Z>(
        operation: &mut Operation<S, I, X>,
        cx: &CallParts<'_, S, C, T, H, K>,
        hedging: &Hedging,
        first: Sending<Fut>,
        limit: Option<Duration>,
        sleeper: &Z,
    ) -> Self
    where
        S: Schedule,
        X: fmt::Display,
        K: Clock<Instant = I> + ?Sized,
        Z: Sleeper<Sleep = Sl> + ?Sized,
    {
        // A hedge's time counts from copy 1, whatever else reads the clock.
        operation.started(cx.clock);
        // A request that cannot be sent again has no copies.
        let no_more = (!first.repeatable).then_some(StopReason::NotRepeatable);
        let next = hedging.delay().filter(|_| no_more.is_none()).map(|delay| Box::pin(sleeper.sleep(delay)));
        let mut flights = Vec::with_capacity(hedging.max_attempts() as usize);
        flights.push(InFlight::new(1, first.future, limit, sleeper));
        Copies { flights, next, no_more, began: cx.clock.now() }
    }

    /// Polls every copy and the timer of the next: ready with the first
    /// success, or with the stop once no copy runs and no more may go.
    /// `send` sends copy `n` with its time limit. Once `fired` (the
    /// caller's cancel signal has fired), an answer that has arrived is
    /// still judged, as a plain attempt's is (a success wins), no copy is
    /// sent, and the call stops as cancelled.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn poll<S, C, T, H, K, J, Z, V, E>(
        &mut self,
        task: &mut Context<'_>,
        operation: &mut Operation<S, I, J::Failed>,
        cx: &CallParts<'_, S, C, T, H, K>,
        judge: &J,
        hedging: &Hedging,
        sleeper: &Z,
        send: &mut impl FnMut(u32, Option<Duration>) -> Sending<Fut>,
        fired: bool,
    ) -> Poll<Ended<J::Success, J::Failed>>
    where
        S: Schedule,
        T: Timeout,
        H: Notify<J::Failed>,
        K: Clock<Instant = I> + ?Sized,
        J: Judge<V, E>,
        Z: Sleeper<Sleep = Sl> + ?Sized,
        Fut: Future<Output = Result<V, E>>,
        E: From<TimedOut>,
    {
        loop {
            let mut i = 0;
            while i < self.flights.len() {
                let Poll::Ready(attempted) = self.flights[i].poll(task) else {
                    i += 1;
                    continue;
                };
                let copy = self.flights.remove(i).copy;
                let running = self.flights.len() as u32;
                match operation.after_copy(cx, judge, copy, running, attempted, fired) {
                    Answer::Won(done) => {
                        hedging.record(cx.clock.since(self.began));
                        return Poll::Ready(Ok(done));
                    }
                    Answer::Fatal(stopped) => return Poll::Ready(Err(stopped)),
                    // Once no more copies may go, a failure sends none.
                    Answer::SendAfter(wait) if self.no_more.is_none() => {
                        self.next = Some(Box::pin(sleeper.sleep(wait)));
                    }
                    Answer::SendAfter(_) => {}
                    Answer::NoMore(reason) => self.stop_sending(reason),
                }
            }
            if fired {
                return Poll::Ready(Err(operation.cancel(cx)));
            }
            let due = self.next.as_mut().is_some_and(|timer| timer.as_mut().poll(task).is_ready());
            if !due {
                break;
            }
            match operation.hedge(cx, self.flights.len() as u32) {
                Hedge::Send { copy, limit } => {
                    let sending = send(copy, limit);
                    self.flights.push(InFlight::new(copy, sending.future, limit, sleeper));
                    self.next = hedging.delay().map(|delay| Box::pin(sleeper.sleep(delay)));
                    if !sending.repeatable {
                        self.stop_sending(StopReason::NotRepeatable);
                    }
                }
                Hedge::Later(wait) => self.next = Some(Box::pin(sleeper.sleep(wait))),
                Hedge::NoMore(reason) => self.stop_sending(reason),
            }
            // Poll what changed: the new copy, or the new timer.
        }
        match self.no_more {
            Some(reason) if self.flights.is_empty() => Poll::Ready(Err(operation.give_up_hedged(cx, reason))),
            _ => Poll::Pending,
        }
    }

    fn stop_sending(&mut self, reason: StopReason) {
        self.no_more = Some(reason);
        self.next = None;
    }
}

/// One copy in flight: its number, its future and the timer that cuts it.
struct InFlight<Fut, Cut> {
    copy: u32,
    future: Pin<Box<Fut>>,
    cut: Option<(Pin<Box<Cut>>, Duration)>,
}

impl<Fut, Cut> InFlight<Fut, Cut> {
    fn new<Z: Sleeper<Sleep = Cut> + ?Sized>(
        copy: u32,
        future: Fut,
        limit: Option<Duration>,
        sleeper: &Z,
    ) -> Self {
        let cut = limit.map(|limit| (Box::pin(sleeper.cut_after(limit)), limit));
        InFlight { copy, future: Box::pin(future), cut }
    }

    fn poll<V, E>(&mut self, task: &mut Context<'_>) -> Poll<Attempted<V, E>>
    where
        Fut: Future<Output = Result<V, E>>,
        Cut: Future<Output = ()>,
        E: From<TimedOut>,
    {
        if let Poll::Ready(outcome) = self.future.as_mut().poll(task) {
            return Poll::Ready(Attempted::Ended(outcome));
        }
        let Some((timer, limit)) = &mut self.cut else { return Poll::Pending };
        let cut = timer.as_mut().poll(task);
        cut.map(|()| Attempted::Cut(E::from(TimedOut { after: *limit })))
    }
}

/// Whether to send one more copy now.
enum Hedge {
    /// Send copy `copy`, cut after `limit` if there is one.
    Send { copy: u32, limit: Option<Duration> },
    /// Ask again after this long: the rate limiter has no token yet.
    Later(Duration),
    /// No more copies, for this reason.
    NoMore(StopReason),
}

/// What a copy's answer means for the call.
enum Answer<V, X> {
    /// It succeeded: the call is done.
    Won(Retried<V>),
    /// It failed for good: the call stops.
    Fatal(Stopped<X>),
    /// It failed: send the next copy after this long (zero: at once).
    SendAfter(Duration),
    /// It failed, and no more copies may be sent, for this reason.
    NoMore(StopReason),
}

impl<S: Schedule, I: Copy, X: fmt::Display> Operation<S, I, X> {
    /// May one more copy go now, with `running` in flight?
    fn hedge<C, T, H, K>(&mut self, cx: &CallParts<'_, S, C, T, H, K>, running: u32) -> Hedge
    where
        T: Timeout,
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.started(cx.clock);
        let policy = cx.policy;
        let retrying = self.retrying(cx);
        if let Action::Stop(reason) = retrying.decision.on_hedge(elapsed) {
            return Hedge::NoMore(reason);
        }
        if let Err(wait) = policy.limiter.try_acquire() {
            // The copy waits for its token by the rule every attempt
            // waits by: never to the deadline, nor past `max_token_wait`.
            retrying.decision.hedge_not_sent();
            return match retrying.decision.on_token_wait(wait, elapsed) {
                Action::Retry(wait) => Hedge::Later(wait),
                Action::Stop(reason) => Hedge::NoMore(reason),
            };
        }
        retrying.sent(policy);
        let budget = retrying.decision.budget().metrics();
        self.attempt = self.attempt.saturating_add(1);
        self.sent = self.attempt;
        let event = HedgeEvent { attempt: self.attempt, in_flight: running + 1, elapsed, budget };
        cx.hooks.on_hedge(&event);
        crate::retry::trace::hedge(&event);
        policy.instruments.hedge();
        let limit = cx.limits.attempt_limit(policy.timeout.limit(), elapsed);
        Hedge::Send { copy: self.attempt, limit }
    }

    /// Copy `copy` answered, with `running` still in flight.
    fn after_copy<V, E, C, T, H, K, J>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        judge: &J,
        copy: u32,
        running: u32,
        attempted: Attempted<V, E>,
        fired: bool,
    ) -> Answer<J::Success, X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
        J: Judge<V, E, Failed = X>,
    {
        let (failed, failure) = match attempted.judged(judge, &cx.policy.limiter) {
            Ok(success) => {
                cx.policy.instruments.hedge_won(copy);
                return Answer::Won(self.succeed(cx.policy, success, copy));
            }
            Err(failed) => failed,
        };
        cx.policy.limiter.record(failure.kind == ErrorKind::Throttled);
        let elapsed = self.started(cx.clock);
        let error_type = J::type_name(&failed);
        let retrying = self.retrying(cx);
        if fired {
            retrying.decision.cancel();
        }
        match retrying.decision.on_hedged_failure(&failure, elapsed) {
            Action::Retry(delay) => {
                let budget = retrying.decision.budget().metrics();
                let max_attempts = cx.limits.max_attempts;
                let event = RetryEvent {
                    attempt: copy,
                    max_attempts,
                    delay,
                    error: &failed,
                    failure,
                    elapsed,
                    budget,
                };
                cx.tell_retry(&event, error_type);
                retrying.last = Some(failed);
                Answer::SendAfter(delay)
            }
            Action::Stop(reason) => {
                retrying.last = Some(failed);
                let fatal = matches!(reason, StopReason::Permanent | StopReason::Cancelled);
                if fatal || running == 0 {
                    Answer::Fatal(self.give_up(cx, reason, Some(error_type), elapsed))
                } else {
                    Answer::NoMore(reason)
                }
            }
        }
    }

    /// No copy is running and no more may be sent: the call fails, with
    /// the last failure.
    fn give_up_hedged<C, T, H, K>(
        &mut self,
        cx: &CallParts<'_, S, C, T, H, K>,
        reason: StopReason,
    ) -> Stopped<X>
    where
        H: Notify<X>,
        K: Clock<Instant = I> + ?Sized,
    {
        let elapsed = self.started(cx.clock);
        self.give_up(cx, reason, None, elapsed)
    }
}
