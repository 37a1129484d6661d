//! A minimal discrete-event engine: a virtual clock and a queue of future
//! events.
//!
//! Time is an `f64` count of abstract *time units* (the 2015 contention
//! experiment's unit; the scenarios read one unit as one millisecond when
//! they talk to the library's `Duration`s). Events come out in order of time,
//! and events scheduled for the same instant come out in the order they were
//! scheduled, so a run never depends on how the queue happens to break ties.
//!
//! # The queue
//! While at most a few thousand events are pending, they wait in a binary
//! heap ([`heap`]): it fits in the processor's fast caches, and its `log n`
//! comparisons are cheaper than any bucket bookkeeping. Past
//! [`TO_RADIX`] events every level of a heap's sift is a cache miss (at
//! 10^5 clients the contention model spent 535 ns per call), so the events
//! move to a radix queue over time ticks ([`radix`]), whose cost per event
//! stays flat however many are pending; they move back below
//! [`TO_HEAP`]. Both pop in exactly the same order, (time, scheduling
//! order), so the switch never shows in a result.

mod heap;
mod prefetch;
mod radix;

pub(crate) use prefetch::prefetch;

use heap::Heap;
use radix::RadixQueue;

/// Pending events above which they move from the heap to the radix queue.
const TO_RADIX: usize = 2048;
/// Pending events below which they move back to the heap (well below
/// [`TO_RADIX`], so a count hovering around it does not move them back and
/// forth).
const TO_HEAP: usize = 512;

/// A virtual clock and the events scheduled on it.
///
/// [`reset`](Engine::reset) empties it and keeps its allocations, so one
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
    /// The bits of the current time (those of the last event popped).
    now: u64,
    /// Whether the events are in `radix` (else in `heap`).
    radix_mode: bool,
    heap: Heap<E>,
    radix: RadixQueue<E>,
}

impl<E> Engine<E> {
    /// An empty engine at time 0.
    pub const fn new() -> Self {
        Engine { now: 0, radix_mode: false, heap: Heap::new(), radix: RadixQueue::new() }
    }

    /// An empty engine at time 0 with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut engine = Engine::new();
        engine.heap.reserve(capacity.min(TO_RADIX + 1));
        engine
    }

    /// Drops every pending event and winds the clock back to 0, keeping the
    /// allocations.
    pub fn reset(&mut self) {
        self.heap.clear();
        self.radix.clear_at(0);
        self.radix_mode = false;
        self.now = 0;
    }

    /// The current virtual time: the time of the last event popped, 0 before any.
    #[inline]
    pub const fn now(&self) -> f64 {
        f64::from_bits(self.now)
    }

    /// How many events are pending.
    #[inline]
    pub fn len(&self) -> usize {
        if self.radix_mode {
            self.radix.len()
        } else {
            self.heap.len()
        }
    }

    /// Whether no event is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bits of `at`, checked to be at or after now.
    #[inline(always)]
    fn key(&self, at: f64) -> u64 {
        if at.is_nan() || at < self.now() {
            before_now(at, self.now());
        }
        // `+ 0.0` turns -0.0 (which passes the check at time 0) into 0.0; every
        // time here is then +0.0, positive or +infinity, whose bits order as
        // the numbers do.
        (at + 0.0).to_bits()
    }

    /// Schedules `event` at time `at`.
    ///
    /// # Panics
    /// If `at` is before [`now`](Engine::now) or is NaN: time never runs backwards.
    #[inline]
    pub fn schedule_at(&mut self, at: f64, event: E) {
        let key = self.key(at);
        if self.radix_mode {
            self.radix.push(key, event);
        } else {
            self.heap.push(key, event);
            if self.heap.len() > TO_RADIX {
                self.move_to_radix();
            }
        }
    }

    /// Handles the next event: advances the clock to its time and calls
    /// `handle(now, event)`. If `handle` returns `Some((at, next))`, `next` is
    /// scheduled at `at`, exactly as [`schedule_at`](Engine::schedule_at)
    /// would (in the heap, in the handled event's slot: one sift instead of
    /// a pop and a push). Returns `false`, without calling `handle`, when
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
    #[inline(always)]
    pub fn step(&mut self, handle: impl FnOnce(f64, E) -> Option<(f64, E)>) -> bool
    where
        E: Copy,
    {
        // The handler is called from one place, so it is inlined once.
        let popped = self.radix_mode;
        let event = if popped {
            let Some(event) = self.pop() else { return false };
            event
        } else {
            let (Some(key), Some(&event)) = (self.heap.peek_key(), self.heap.peek()) else { return false };
            self.now = key;
            event
        };
        match handle(self.now(), event) {
            Some((at, next)) if popped => self.schedule_at(at, next),
            Some((at, next)) => {
                let key = self.key(at);
                self.heap.replace_first(key, next);
            }
            None if popped => {}
            None => {
                self.heap.pop();
            }
        }
        true
    }

    /// The event that comes `after` events after the next one, when the
    /// queue already knows it without work: only among many pending events
    /// (in the radix queue, within the current tick). A handler that reads
    /// memory chosen by the event (a client's state in a large fleet) can
    /// ask for it early, while the events in between are handled. Only a
    /// forecast: an event scheduled in the meantime may come first.
    ///
    /// ```
    /// use staggered_sim::Engine;
    ///
    /// let mut engine = Engine::new();
    /// for i in 0..10_000_u32 {
    ///     engine.schedule_at(f64::from(i), i);
    /// }
    /// assert_eq!(engine.pop(), Some(0));
    /// assert_eq!(engine.upcoming(2), Some(&3)); // after 1 and 2
    /// assert_eq!(engine.pop(), Some(1));
    /// ```
    #[inline(always)]
    pub fn upcoming(&self, after: usize) -> Option<&E> {
        if self.radix_mode {
            self.radix.upcoming(after)
        } else {
            None
        }
    }

    /// Schedules `event` `delay` time units from now.
    ///
    /// # Panics
    /// If `delay` is negative or NaN.
    #[inline]
    pub fn schedule_in(&mut self, delay: f64, event: E) {
        self.schedule_at(self.now() + delay, event);
    }

    /// The next event, advancing the clock to its time; `None` when nothing is
    /// pending (the clock then stays at the last event's time).
    #[inline]
    pub fn pop(&mut self) -> Option<E> {
        if !self.radix_mode {
            let (key, event) = self.heap.pop()?;
            self.now = key;
            return Some(event);
        }
        let (key, event) = self.radix.pop()?;
        self.now = key;
        if self.radix.len() < TO_HEAP {
            self.move_to_heap();
        }
        Some(event)
    }

    /// Moves every pending event from the heap to the radix queue, in order.
    #[cold]
    fn move_to_radix(&mut self) {
        let mut pending = Vec::with_capacity(self.heap.len());
        while let Some(entry) = self.heap.pop() {
            pending.push(entry);
        }
        self.heap.clear();
        self.radix.clear_at(self.now);
        // A tick width from the spacing of the pending events, until the
        // queue measures the spacing of those it pops.
        if let (Some(&(first, _)), Some(&(last, _))) = (pending.first(), pending.last()) {
            let span = f64::from_bits(last) - f64::from_bits(first);
            self.radix.set_gap(span / pending.len() as f64);
        }
        for (key, event) in pending {
            self.radix.push(key, event);
        }
        self.radix_mode = true;
    }

    /// Moves every pending event from the radix queue to the heap, in order.
    #[cold]
    fn move_to_heap(&mut self) {
        self.heap.clear();
        while let Some((key, event)) = self.radix.pop() {
            self.heap.push(key, event);
        }
        self.radix.clear_at(self.now);
        self.radix_mode = false;
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
    fn pops_in_time_order_and_ties_in_schedule_order() {
        let mut engine = Engine::with_capacity(8);
        for (at, id) in [(3.0, 0), (1.0, 1), (3.0, 2), (0.0, 3), (1.0, 4), (3.0, 5)] {
            engine.schedule_at(at, id);
        }
        let mut order = Vec::new();
        while let Some(id) = engine.pop() {
            order.push((engine.now(), id));
        }
        assert_eq!(order, [(0.0, 3), (1.0, 1), (1.0, 4), (3.0, 0), (3.0, 2), (3.0, 5)]);
    }

    #[test]
    fn events_scheduled_while_running_are_relative_to_now() {
        let mut engine = Engine::new();
        engine.schedule_in(2.0, 'a');
        assert_eq!(engine.pop(), Some('a'));
        engine.schedule_in(0.0, 'b');
        engine.schedule_in(0.5, 'c');
        assert_eq!(engine.len(), 2);
        assert_eq!(engine.pop(), Some('b'));
        assert_eq!(engine.now(), 2.0);
        assert_eq!(engine.pop(), Some('c'));
        assert_eq!(engine.now(), 2.5);
        assert!(engine.is_empty());
    }

    #[test]
    fn step_orders_exactly_like_pop_and_schedule() {
        // Two engines fed the same deterministic workload, one by `pop` and
        // `schedule_at`, one by `step`, must handle the same events in the
        // same order at the same times, ties included.
        let follow_up = |now: f64, id: u32| (id % 5 != 0).then(|| (now + f64::from(id % 3), id + 7));
        let mut by_pop = Engine::new();
        let mut by_step = Engine::new();
        for id in 1..=20 {
            let at = f64::from(id % 4);
            by_pop.schedule_at(at, id);
            by_step.schedule_at(at, id);
        }
        let mut popped = Vec::new();
        while let Some(id) = by_pop.pop() {
            popped.push((by_pop.now(), id));
            if let Some((at, next)) = follow_up(by_pop.now(), id) {
                by_pop.schedule_at(at, next);
            }
        }
        let mut stepped = Vec::new();
        while by_step.step(|now, id| {
            stepped.push((now, id));
            follow_up(now, id)
        }) {}
        assert_eq!(stepped, popped);
        assert!(popped.len() > 40, "{}", popped.len());
        assert_eq!(by_step.now(), by_pop.now());
    }

    #[test]
    fn moves_between_heap_and_radix_queue_without_changing_the_order() {
        // Up past `TO_RADIX` (with ties), down below `TO_HEAP`, up again;
        // the order is (time, scheduling order) throughout, and the engine
        // really changes its queue on the way (the integration tests hold
        // it to a reference heap on random workloads).
        let mut engine = Engine::new();
        let mut expected = Vec::new();
        let time = |i: u32| f64::from(i % 997) * 0.25 + f64::from(i / 3000) * 1000.0;
        for i in 0..3000 {
            engine.schedule_at(time(i), i);
            expected.push((time(i), i));
        }
        assert!(engine.radix_mode);
        expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut expected = expected.into_iter();
        for _ in 0..2700 {
            assert_eq!(engine.pop().map(|i| (engine.now(), i)), expected.next());
        }
        assert!(!engine.radix_mode);
        let rest: Vec<_> = expected.collect();
        let mut more: Vec<_> = (3000..6000).map(|i| (time(i), i)).collect();
        for &(at, i) in &more {
            engine.schedule_at(at, i);
        }
        assert!(engine.radix_mode);
        more.extend(rest);
        more.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let popped: Vec<_> = std::iter::from_fn(|| engine.pop().map(|i| (engine.now(), i))).collect();
        assert_eq!(popped, more);
        assert!(!engine.radix_mode && engine.is_empty());
    }

    #[test]
    fn upcoming_names_the_events_that_pop_next() {
        // Many pending events with ties and uneven gaps: whatever `upcoming`
        // names is exactly what pops that many events later, and among many
        // events it names some.
        let mut engine = Engine::new();
        let time = |i: u32| f64::from(i % 1009) * 0.37 + f64::from(i % 3);
        for i in 0..5000 {
            engine.schedule_at(time(i), i);
        }
        let mut named = 0;
        for step in 0.. {
            if engine.is_empty() {
                break;
            }
            // A clone copies the queue's buckets: one look in 25 pops.
            for after in [0, 1, 4].into_iter().filter(|_| step % 25 == 0) {
                if let Some(&soon) = engine.upcoming(after) {
                    let mut ahead = engine.clone();
                    let popped: Vec<_> = (0..=after).map(|_| ahead.pop()).collect();
                    assert_eq!(popped[after], Some(soon), "{after} after the next");
                    named += 1;
                }
            }
            engine.pop();
        }
        assert!(named > 100, "{named}");
    }

    #[test]
    fn reset_starts_over() {
        let mut engine = Engine::new();
        engine.schedule_in(4.0, ());
        engine.pop();
        engine.schedule_in(1.0, ());
        engine.reset();
        assert!(engine.is_empty());
        assert_eq!(engine.now(), 0.0);
        engine.schedule_at(0.5, ());
        assert_eq!(engine.pop(), Some(()));
    }

    #[test]
    #[should_panic(expected = "before the current time")]
    fn refuses_the_past() {
        let mut engine = Engine::new();
        engine.schedule_in(2.0, ());
        engine.pop();
        engine.schedule_at(1.0, ());
    }

    #[test]
    fn negative_zero_and_infinity_sort_as_numbers() {
        let mut engine = Engine::new();
        engine.schedule_at(f64::INFINITY, 'c');
        engine.schedule_at(1e-300, 'b');
        engine.schedule_at(-0.0, 'a');
        assert_eq!([engine.pop(), engine.pop(), engine.pop()], [Some('a'), Some('b'), Some('c')]);
        assert_eq!(engine.now(), f64::INFINITY);
    }

    #[test]
    #[should_panic(expected = "before the current time")]
    fn refuses_nan() {
        Engine::new().schedule_at(f64::NAN, ());
    }
}
