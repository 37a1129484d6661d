//! The async loop, one body for every async driver (`.retry(op)`, the
//! tower layer, the reqwest middleware, tonic calls): it asks the machine
//! ([`Operation`]) what to do, races each attempt against its time limit
//! and the caller's cancel signal, and sleeps. Dropping the future cancels
//! too: it owns nothing but the attempt's future and a timer, and a retry
//! the budget paid for but never sent is given back.

use core::future::{poll_fn, Future};
use core::pin::{pin, Pin};
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
                // In a block of its own, so the attempt is dropped before a
                // cancel is reported.
                let attempted = {
                    let future = pin!(sending.future);
                    let cut = pin!(limit.map(|limit| sleeper.cut_after(limit)));
                    until_ended(future, cut, limit, cancel.as_mut()).await
                };
                let Some(attempted) = attempted else {
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
        let sleep = pin!(sleeper.sleep(wait));
        if race(sleep, cancel.as_mut()).await.is_err() {
            return Err(operation.cancel(&cx));
        }
    }
}

/// Polls an attempt's `future` until it ends, its timer `cut` fires (the
/// attempt is cut after `limit`), or `cancel` completes (`None`).
fn until_ended<'a, Fut, V, E, Cut, X>(
    mut future: Pin<&'a mut Fut>,
    mut cut: Pin<&'a mut Option<Cut>>,
    limit: Option<Duration>,
    mut cancel: Pin<&'a mut X>,
) -> impl Future<Output = Option<Attempted<V, E>>> + 'a
where
    Fut: Future<Output = Result<V, E>>,
    E: From<TimedOut>,
    Cut: Future<Output = ()>,
    X: Future<Output = ()>,
{
    poll_fn(move |task| {
        if let Poll::Ready(outcome) = future.as_mut().poll(task) {
            return Poll::Ready(Some(Attempted::Ended(outcome)));
        }
        if let (Some(timer), Some(after)) = (cut.as_mut().as_pin_mut(), limit) {
            if timer.poll(task).is_ready() {
                return Poll::Ready(Some(Attempted::Cut(E::from(TimedOut { after }))));
            }
        }
        cancel.as_mut().poll(task).map(|()| None)
    })
}

/// Polls `work` and `stop` together: `Ok` with `work`'s output if it
/// finishes first, `Err` with `stop`'s if that does.
pub(crate) fn race<'a, W: Future, D: Future>(
    mut work: Pin<&'a mut W>,
    mut stop: Pin<&'a mut D>,
) -> impl Future<Output = Result<W::Output, D::Output>> + 'a {
    poll_fn(move |task| {
        if let Poll::Ready(output) = work.as_mut().poll(task) {
            return Poll::Ready(Ok(output));
        }
        stop.as_mut().poll(task).map(Err)
    })
}
