//! The engine's queue while few events are pending: a binary heap ordered
//! by (time bits, sequence number).
//!
//! With up to a few thousand events the whole heap sits in the first- or
//! second-level cache, and its `log n` comparisons cost less than the
//! bookkeeping of buckets; past that, every level of a sift is a cache
//! miss, and the engine moves the events to the radix queue.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A min-heap of events by (key, push order).
#[derive(Debug, Clone)]
pub(crate) struct Heap<E> {
    entries: BinaryHeap<Entry<E>>,
    /// The push order of the next event.
    sequence: u64,
}

/// One scheduled event with its ordering key.
#[derive(Debug, Clone)]
struct Entry<E> {
    /// The bits of the event's time (which order as the times do).
    key: u64,
    sequence: u64,
    event: E,
}

impl<E> Entry<E> {
    /// `(key, sequence)` as one integer: one comparison orders by both.
    #[inline]
    fn order(&self) -> u128 {
        (u128::from(self.key) << 64) | u128::from(self.sequence)
    }
}

// `BinaryHeap` is a max-heap: the earliest (key, sequence) must compare greatest.
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

impl<E> Heap<E> {
    /// An empty heap, without allocating.
    pub(crate) const fn new() -> Self {
        Heap { entries: BinaryHeap::new(), sequence: 0 }
    }

    /// Room for `capacity` events before the heap grows.
    pub(crate) fn reserve(&mut self, capacity: usize) {
        self.entries.reserve(capacity);
    }

    /// Empties the heap, keeping its allocation.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.sequence = 0;
    }

    /// How many events are pending.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Queues `event` under `key`, after every event already queued under it.
    #[inline]
    pub(crate) fn push(&mut self, key: u64, event: E) {
        let entry = self.entry(key, event);
        self.entries.push(entry);
    }

    #[inline]
    fn entry(&mut self, key: u64, event: E) -> Entry<E> {
        let entry = Entry { key, sequence: self.sequence, event };
        self.sequence += 1;
        entry
    }

    /// The first event with the smallest key.
    #[inline]
    pub(crate) fn peek(&self) -> Option<&E> {
        self.entries.peek().map(|entry| &entry.event)
    }

    /// The smallest key, if any.
    #[inline]
    pub(crate) fn peek_key(&self) -> Option<u64> {
        self.entries.peek().map(|entry| entry.key)
    }

    /// Removes the first event with the smallest key.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(u64, E)> {
        self.entries.pop().map(|entry| (entry.key, entry.event))
    }

    /// Replaces the first event with the smallest key by `event` under
    /// `key` (queued after every event already under it), in one sift
    /// instead of a pop and a push; returns the replaced event.
    ///
    /// # Panics
    /// If the heap is empty.
    #[inline]
    pub(crate) fn replace_first(&mut self, key: u64, event: E) -> E {
        let entry = self.entry(key, event);
        // Dropping the `PeekMut` sifts the new entry down to its place.
        let mut first = self.entries.peek_mut().expect("the heap is not empty");
        std::mem::replace(&mut *first, entry).event
    }
}
