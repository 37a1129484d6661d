//! The async loop, one body for every async driver (`.retry(op)`, the
//! tower layer, the reqwest middleware, tonic calls): it asks the machine
//! ([`Operation`]) what to do, races each attempt against its time limit
//! and the caller's cancel signal, and sleeps. Dropping the future cancels
//! too: it owns nothing but the attempt's future and a timer, and a retry
//! the budget paid for but never sent is given back.

use core::future::{poll_fn, Future};
use core::pin::{pin, Pin};
use core::task::{Context, Poll, Waker};
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
        let wait = match operation.before(&cx, fired(cancel.as_mut())) {
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
                match operation.after(&cx, judge, attempted, || fired(cancel.as_mut())) {
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

/// Whether the cancel signal has fired, asked between polls (no task is
/// woken by it: the next poll of the signal, in a race, registers the
/// task). Every async driver asks it before each attempt and of each
/// failed one; the machine decides what it means.
pub(crate) fn fired<X: Future>(signal: Pin<&mut X>) -> bool {
    signal.poll(&mut Context::from_waker(Waker::noop())).is_ready()
}

/// Polls an attempt's `future` until it ends, its timer `cut` fires (the
/// attempt is cut after `limit`), or `cancel` completes (`None`). An
/// attempt that has ended is kept, whatever the signal did meanwhile: the
/// machine judges it.
fn until_ended<'a, Fut, V, E, Cut, X>(
    mut future: Pin<&'a mut Fut>,
    mut timer: Pin<&'a mut Option<Cut>>,
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
        if let Some(after) = cut(timer.as_mut(), limit, task) {
            return Poll::Ready(Some(Attempted::Cut(E::from(TimedOut { after }))));
        }
        cancel.as_mut().poll(task).map(|()| None)
    })
}

/// Whether an attempt's `timer` has fired, polled with `task`: then the
/// attempt is cut, after `limit`.
pub(crate) fn cut<Sl: Future<Output = ()>>(
    timer: Pin<&mut Option<Sl>>,
    limit: Option<Duration>,
    task: &mut Context<'_>,
) -> Option<Duration> {
    let timer = timer.as_pin_mut()?;
    limit.filter(|_| timer.poll(task).is_ready())
}

/// Polls a wait, `work`, and the cancel signal `stop` together: `Ok` with
/// `work`'s output if it finishes first, `Err` with `stop`'s if that does
/// or already has (a cancelled call waits for nothing).
pub(crate) fn race<'a, W: Future, D: Future>(
    mut work: Pin<&'a mut W>,
    mut stop: Pin<&'a mut D>,
) -> impl Future<Output = Result<W::Output, D::Output>> + 'a {
    poll_fn(move |task| {
        if let Poll::Ready(stopped) = stop.as_mut().poll(task) {
            return Poll::Ready(Err(stopped));
        }
        work.as_mut().poll(task).map(Ok)
    })
}
