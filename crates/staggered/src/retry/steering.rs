//! How a [`Decision`](crate::Decision) walks its delays: in order, or as the
//! schedule says (by the kind of failure; starting over after a gRPC
//! pushback). The decision holds bare delays of any iterator type, so what
//! the schedule knows about them travels with them as two function pointers.

use core::fmt;
use core::time::Duration;

use crate::classify::Failure;
use crate::Schedule;

/// The steering of delays of type `D`.
pub(crate) struct Steering<D> {
    /// The wait after a failure (returning `None` to end the retrying);
    /// `None` takes the delays in order, with no call through a pointer
    /// (the simulator decides millions of times).
    pub(crate) next: Option<fn(&mut D, &Failure) -> Option<Duration>>,
    /// Starts the delays over from retry 1, when the schedule can.
    pub(crate) restart: Option<fn(&mut D)>,
}

impl<D: Iterator<Item = Duration>> Steering<D> {
    /// Bare delays: taken in order whatever failed, and never started over.
    pub(crate) fn in_order() -> Self {
        Steering { next: None, restart: None }
    }
}

impl<D: Iterator<Item = Duration>> Steering<D> {
    /// The wait after `failure`, taken from `delays`.
    #[inline(always)]
    pub(crate) fn next_delay(&self, delays: &mut D, failure: &Failure) -> Option<Duration> {
        match self.next {
            None => delays.next(),
            Some(next) => next(delays, failure),
        }
    }
}

/// Takes the wait after a failure from a decision's delays: a [`Steering`]
/// through its pointers, or [`Static`], a schedule's own function known at
/// compile time.
pub(crate) trait Steer<D> {
    /// The wait after `failure`, taken from `delays`; `None` ends the retrying.
    fn take(&self, delays: &mut D, failure: &Failure) -> Option<Duration>;
}

impl<D: Iterator<Item = Duration>> Steer<D> for Steering<D> {
    #[inline(always)]
    fn take(&self, delays: &mut D, failure: &Failure) -> Option<Duration> {
        self.next_delay(delays, failure)
    }
}

/// The steering of the schedule type `S` as a direct call, for the drivers
/// of a policy, whose decisions are made for `S` and steered as `S` says
/// ([`Steering::of`] points to the same function): inlined into the retry
/// loop, a constant delay costs a compare and a copy.
pub(crate) struct Static<S>(core::marker::PhantomData<fn() -> S>);

impl<S> Static<S> {
    /// The steering of `S`.
    pub(crate) const fn of() -> Self {
        Static(core::marker::PhantomData)
    }
}

impl<S: Schedule> Steer<S::Delays> for Static<S> {
    #[inline(always)]
    fn take(&self, delays: &mut S::Delays, failure: &Failure) -> Option<Duration> {
        S::next_delay(delays, failure)
    }
}

impl<D> Steering<D> {
    /// Delays of the schedule type `S`, steered as it says.
    pub(crate) fn of<S: Schedule<Delays = D>>() -> Self {
        Steering {
            next: Some(S::next_delay),
            restart: if S::restartable() { Some(S::restart) } else { None },
        }
    }
}

impl<D> Clone for Steering<D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for Steering<D> {}

impl<D> fmt::Debug for Steering<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Steering").field("restartable", &self.restart.is_some()).finish_non_exhaustive()
    }
}

/// A schedule's delays behind one box, with their steering (the tower
/// layer's future keeps its delays type-erased).
#[cfg(feature = "tower")]
pub(crate) trait SteeredDelays: Iterator<Item = Duration> + Send {
    /// The schedule's [`next_delay`](Schedule::next_delay).
    fn next_after(&mut self, failure: &Failure) -> Option<Duration>;
    /// The schedule's [`restart`](Schedule::restart), if it is restartable.
    fn restart_if_possible(&mut self);
}

/// A boxed schedule's delays.
#[cfg(feature = "tower")]
pub(crate) type BoxedDelays = Box<dyn SteeredDelays>;

/// Delays with their steering.
#[cfg(feature = "tower")]
struct Steered<D> {
    delays: D,
    steering: Steering<D>,
}

#[cfg(feature = "tower")]
impl<D: Iterator<Item = Duration>> Iterator for Steered<D> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        self.delays.next()
    }
}

#[cfg(feature = "tower")]
impl<D: Iterator<Item = Duration> + Send> SteeredDelays for Steered<D> {
    fn next_after(&mut self, failure: &Failure) -> Option<Duration> {
        self.steering.next_delay(&mut self.delays, failure)
    }

    fn restart_if_possible(&mut self) {
        if let Some(restart) = self.steering.restart {
            restart(&mut self.delays);
        }
    }
}

/// Fresh delays of `schedule`, boxed with their steering.
#[cfg(feature = "tower")]
pub(crate) fn boxed<S: Schedule>(schedule: &S) -> (BoxedDelays, Steering<BoxedDelays>)
where
    S::Delays: Send + 'static,
{
    let delays: BoxedDelays = Box::new(Steered { delays: schedule.delays(), steering: Steering::of::<S>() });
    let steering = Steering {
        next: Some(|delays: &mut BoxedDelays, failure| delays.next_after(failure)),
        restart: Some(|delays: &mut BoxedDelays| delays.restart_if_possible()),
    };
    (delays, steering)
}
