//! The async loop, one body for every async driver (`.retry(op)`, the
//! tower layer, the reqwest middleware, tonic calls): it asks the machine
//! ([`Operation`]) what to do, races each attempt against its time limit
//! and the caller's cancel signal, and sleeps. Dropping the future cancels
//! too: it owns nothing but the attempt's future and a timer, and a retry
//! the budget paid for but never sent is given back.

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;
use core::time::Duration;

use crate::retry::event::Notify;
use crate::retry::judge::Judge;
use crate::retry::operation::{After, Attempted, Before, CallParts, Operation, Stopped};
use crate::retry::timeout::Timeout;
use crate::sleep::{Clock, Sleeper};
use crate::{Limits, Retried, RetryPolicy, Schedule, TimedOut};

/// An attempt as the driver sends it: its future, and whether the request
/// could be sent again if it fails.
pub(crate) struct Sending<Fut> {
    pub(crate) future: Fut,
    pub(crate) repeatable: bool,
}

/// Sends attempts with `send` (given the attempt's number, 1 for the first
/// call, and its time limit, which a gRPC request carries) until one
/// succeeds or the policy gives up, or `cancel` completes; `judge` classifies each outcome and `hooks` hear
/// the retries, besides the policy's own.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) async fn drive<S, C, T, F, Fut, V, E, J, H, Z, K, X>(
    policy: &RetryPolicy<S, C, T>,
    limits: &Limits,
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
    let mut cancel = pin!(cancel);
    let cx = CallParts { policy, limits, hooks, clock };
    let mut operation = Operation::start(&cx);
    loop {
        let wait = match operation.before(&cx) {
            Before::Send { attempt, limit } => {
                let sending = send(attempt, limit);
                operation.set_repeatable(&cx, sending.repeatable);
                let attempt = async {
                    match limit {
                        None => Attempted::Ended(sending.future.await),
                        Some(limit) => match race(sending.future, sleeper.cut_after(limit)).await {
                            Ok(outcome) => Attempted::Ended(outcome),
                            Err(()) => Attempted::Cut(E::from(TimedOut { after: limit })),
                        },
                    }
                };
                let Ok(attempted) = race(attempt, cancel.as_mut()).await else {
                    return Err(operation.cancel(&cx));
                };
                match operation.after(&cx, judge, attempted) {
                    After::Done(done) => return Ok(done),
                    After::Stop(stopped) => return Err(stopped),
                    After::Wait(delay) => delay,
                }
            }
            Before::Wait(wait) => wait,
            Before::Stop(stopped) => return Err(stopped),
        };
        // Even a zero wait goes to the sleeper: on a runtime it yields.
        if race(sleeper.sleep(wait), cancel.as_mut()).await.is_err() {
            return Err(operation.cancel(&cx));
        }
    }
}

/// Polls `work` and `stop` together: `Ok` with `work`'s output if it
/// finishes first, `Err` with `stop`'s if that does. Both are dropped on
/// return.
pub(crate) async fn race<W: Future, D: Future>(work: W, stop: D) -> Result<W::Output, D::Output> {
    let mut work = pin!(work);
    let mut stop = pin!(stop);
    poll_fn(|cx| {
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        stop.as_mut().poll(cx).map(Err)
    })
    .await
}
