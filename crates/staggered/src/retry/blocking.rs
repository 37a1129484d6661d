//! The blocking driver: a loop around the machine ([`Operation`]) that
//! calls and sleeps.
//!
//! A blocking call cannot be cut: the loop never starts an attempt once the
//! wait before it would reach the deadline, but an attempt that runs past
//! the deadline runs to its end. So a policy with a per-attempt timeout has
//! no blocking driver ([`CanBlock`](crate::CanBlock)).

use crate::retry::event::Notify;
use crate::retry::judge::Judge;
use crate::retry::operation::{After, Attempted, Before, CallParts, Operation, Stopped};
use crate::retry::retrying::BlockingCancel;
use crate::retry::timeout::Timeout;
use crate::sleep::{BlockingSleeper, Clock};
use crate::{Limits, Retried, RetryPolicy, Schedule};

/// Calls `op` until it succeeds or the policy gives up; `judge` classifies
/// each outcome and `hooks` hear the retries, besides the policy's own.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn drive<S, C, T, F, V, E, J, H, Z, K, X>(
    policy: &RetryPolicy<S, C, T>,
    limits: &Limits,
    mut op: F,
    judge: &J,
    hooks: &H,
    sleeper: &Z,
    clock: &K,
    cancel: X,
) -> Result<Retried<J::Success>, Stopped<J::Failed>>
where
    S: Schedule,
    T: Timeout,
    F: FnMut(u32) -> Result<V, E>,
    J: Judge<V, E>,
    H: Notify<J::Failed>,
    Z: BlockingSleeper + ?Sized,
    K: Clock + ?Sized,
    X: BlockingCancel,
{
    let cx = CallParts { policy, limits, hooks, clock };
    let mut operation = Operation::start(&cx);
    loop {
        let wait = match operation.before(&cx, cancel.is_cancelled()) {
            Before::Send { attempt, .. } => {
                let outcome = op(attempt);
                match operation.after(&cx, judge, Attempted::Ended(outcome), || cancel.is_cancelled()) {
                    After::Done(done) => return Ok(done),
                    After::Stop(stopped) => return Err(stopped),
                    After::Wait(delay) => delay,
                }
            }
            Before::Wait(wait) => wait,
            Before::Stop(stopped) => return Err(stopped),
        };
        // A zero wait is no wait: no sleeper call, no system call.
        if !wait.is_zero() && cancel.sleep(sleeper, wait) {
            return Err(operation.cancel(&cx));
        }
    }
}
