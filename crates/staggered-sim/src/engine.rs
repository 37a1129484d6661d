//! A minimal discrete-event engine: a virtual clock and a queue of future
//! events.
//!
//! Time is an `f64` count of abstract *time units* (the 2015 contention
//! experiment's unit; the scenarios read one unit as one millisecond when
//! they talk to the library's `Duration`s). Events come out in order of time,
//! and events scheduled for the same instant come out in the order they were
//! scheduled, so a run never depends on how the queue happens to break ties.
//! The queue is the standard library's binary heap, keyed on (time,
//! scheduling order).
//!
//! The scheduling order is a 32-bit count, renumbered in place when it runs
//! out (every 2^32 events), so that an entry with a 4-byte event is 16
//! bytes rather than 24: at 10^5 pending events the bottom of the heap
//! misses the caches, and smaller entries miss less (see the guide's
//! performance chapter).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A virtual clock and the events scheduled on it.
///
/// [`reset`](Engine::reset) empties it and keeps its allocation, so one
/// engine serves every run a thread simulates.
///
/// ```
/// use staggered_sim::Engine;
///
/// let mut engine = Engine::new();
/// engine.schedule_in(5.0, "late");
/// engine.schedule_in(1.0, "early");
/// engine.schedule_in(5.0, "late, scheduled second");
/// assert_eq!(engine.pop(), Some("early"));
/// assert_eq!(engine.now(), 1.0);
/// assert_eq!(engine.pop(), Some("late"));
/// assert_eq!(engine.pop(), Some("late, scheduled second"));
/// assert_eq!(engine.pop(), None);
/// assert_eq!(engine.now(), 5.0); // the time of the last event
/// ```
#[derive(Debug, Clone)]
pub struct Engine<E> {
    /// The current time: that of the last event popped.
    now: f64,
    /// The scheduling order of the next event.
    sequence: u32,
    queue: BinaryHeap<Entry<E>>,
}

/// One scheduled event and its place in the order.
#[derive(Debug, Clone)]
struct Entry<E> {
    /// The bits of the event's time, which order as the times do (every
    /// time here is +0.0, positive or +infinity).
    time: u64,
    /// The scheduling order.
    sequence: u32,
    event: E,
}

impl<E> Entry<E> {
    /// The event's time.
    #[inline]
    fn time(&self) -> f64 {
        f64::from_bits(self.time)
    }

    /// Time and scheduling order as one integer, so one comparison orders by
    /// both.
    #[inline]
    fn order(&self) -> u128 {
        (u128::from(self.time) << 32) | u128::from(self.sequence)
    }
}

// `BinaryHeap` is a max-heap: the earliest entry must compare greatest.
impl<E> Ord for Entry<E> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.order().cmp(&self.order())
    }
}

impl<E> PartialOrd for Entry<E> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.order() == other.order()
    }
}

impl<E> Eq for Entry<E> {}

impl<E> Engine<E> {
    /// An empty engine at time 0.
    pub const fn new() -> Self {
        Engine { now: 0.0, sequence: 0, queue: BinaryHeap::new() }
    }

    /// An empty engine at time 0 with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        Engine { now: 0.0, sequence: 0, queue: BinaryHeap::with_capacity(capacity) }
    }

    /// Drops every pending event and winds the clock back to 0, keeping the
    /// allocation.
    pub fn reset(&mut self) {
        self.queue.clear();
        self.sequence = 0;
        self.now = 0.0;
    }

    /// The current virtual time: the time of the last event popped, 0 before any.
    #[inline]
    pub const fn now(&self) -> f64 {
        self.now
    }

    /// How many events are pending.
    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// `event` at `at`, next in the scheduling order.
    ///
    /// # Panics
    /// If `at` is before now or is NaN.
    #[inline]
    fn entry(&mut self, at: f64, event: E) -> Entry<E> {
        if at.is_nan() || at < self.now {
            before_now(at, self.now);
        }
        if self.sequence == u32::MAX {
            self.renumber();
        }
        // `+ 0.0` turns -0.0 (which passes the check at time 0) into 0.0.
        let entry = Entry { time: (at + 0.0).to_bits(), sequence: self.sequence, event };
        self.sequence += 1;
        entry
    }

    /// Gives the pending events the scheduling orders 0, 1, ... in their
    /// order, and the next event the one after them.
    #[cold]
    fn renumber(&mut self) {
        // Sorted by `Ord`, which puts the earliest last.
        let mut pending = std::mem::take(&mut self.queue).into_sorted_vec();
        pending.reverse();
        for (order, entry) in (0..).zip(&mut pending) {
            entry.sequence = order;
        }
        self.sequence = u32::try_from(pending.len()).expect("fewer than 2^32 events pending");
        self.queue = BinaryHeap::from(pending);
    }

    /// Schedules `event` at time `at`.
    ///
    /// # Panics
    /// If `at` is before [`now`](Engine::now) or is NaN: time never runs backwards.
    #[inline]
    pub fn schedule_at(&mut self, at: f64, event: E) {
        let entry = self.entry(at, event);
        self.queue.push(entry);
    }

    /// Schedules `event` `delay` time units from now.
    ///
    /// # Panics
    /// If `delay` is negative or NaN.
    #[inline]
    pub fn schedule_in(&mut self, delay: f64, event: E) {
        self.schedule_at(self.now + delay, event);
    }

    /// The next event, advancing the clock to its time; `None` when nothing is
    /// pending (the clock then stays at the last event's time).
    #[inline]
    pub fn pop(&mut self) -> Option<E> {
        let entry = self.queue.pop()?;
        self.now = entry.time();
        Some(entry.event)
    }

    /// Handles the next event: advances the clock to its time and calls
    /// `handle(now, event)`. If `handle` returns `Some((at, next))`, `next` is
    /// scheduled at `at`, exactly as [`schedule_at`](Engine::schedule_at)
    /// would, in the handled event's place in the heap: one sift instead of
    /// a pop and a push. Returns `false`, without calling `handle`, when
    /// nothing is pending.
    ///
    /// ```
    /// use staggered_sim::Engine;
    ///
    /// // A message bounces back and forth three times, 1.5 units per hop.
    /// let mut engine = Engine::new();
    /// engine.schedule_at(0.0, 3_u32);
    /// while engine.step(|now, left| (left > 0).then(|| (now + 1.5, left - 1))) {}
    /// assert_eq!(engine.now(), 4.5);
    /// ```
    ///
    /// # Panics
    /// If the returned time is before the handled event's time, or NaN.
    #[inline]
    pub fn step(&mut self, handle: impl FnOnce(f64, E) -> Option<(f64, E)>) -> bool
    where
        E: Copy,
    {
        let Some(first) = self.queue.peek() else { return false };
        let event = first.event;
        self.now = first.time();
        match handle(self.now, event) {
            Some((at, next)) => {
                let entry = self.entry(at, next);
                // Dropping the `PeekMut` sifts the new entry down to its place.
                *self.queue.peek_mut().expect("the handled event is pending") = entry;
            }
            None => {
                self.queue.pop();
            }
        }
        true
    }
}

/// The panic of a time in the past, out of the hot path.
#[cold]
#[inline(never)]
fn before_now(at: f64, now: f64) -> ! {
    panic!("event scheduled at {at}, before the current time {now}");
}

impl<E> Default for Engine<E> {
    fn default() -> Self {
        Engine::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_out_of_scheduling_orders_renumbers_in_order() {
        let mut engine = Engine::new();
        engine.sequence = u32::MAX - 3;
        for (at, id) in [(2.0, 0), (1.0, 1), (2.0, 2), (1.0, 3), (2.0, 4), (1.0, 5)] {
            engine.schedule_at(at, id);
        }
        assert_eq!(engine.sequence, 6, "renumbered at the fourth event: 0 to 2, then 3 to 5");
        assert_eq!(engine.pop(), Some(1));
        engine.sequence = u32::MAX;
        // A step's follow-up is renumbered with the rest, after them.
        engine.step(|now, _| Some((now + 1.0, 6)));
        let popped: Vec<_> = std::iter::from_fn(|| engine.pop().map(|id| (engine.now(), id))).collect();
        assert_eq!(popped, [(1.0, 5), (2.0, 0), (2.0, 2), (2.0, 4), (2.0, 6)]);
    }
}
