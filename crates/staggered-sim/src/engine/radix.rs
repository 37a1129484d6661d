//! The engine's queue while many events are pending: a radix heap over
//! time ticks whose width follows the density of events.
//!
//! A binary heap costs `O(log n)` per event, and past a few thousand
//! pending events each level of its sift is a cache miss. A discrete-event
//! queue only ever pops times at or after the last one it popped, and a
//! radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) is built on exactly
//! that.
//!
//! # How it works
//! Time is cut into *ticks* of a width `w`: an event at time `t` is in tick
//! `floor(t / w)`, which never decreases as `t` grows. An event waits in
//! the bucket named by the highest byte where its tick differs from the
//! `base` tick (that of the last event popped), and by that byte's value,
//! so a bucket of level 0 holds one tick, one of level 1 holds 256, and so
//! on. Pushing is an XOR, a count of leading zeros and an append. Popping
//! takes the lowest non-empty bucket (found in bitmaps): a lone event is
//! the next one; the events of one tick are sorted into the *run*, which
//! pops them in order; a bucket of a higher level is spread into lower
//! ones, relative to its smallest tick. An event moves at most once per
//! level: in practice a push appends to one of a few hundred bucket ends,
//! a bucket is spread by reading it straight through, and a run is a few
//! dozen events sorted in cache, so the memory an event touches does not
//! grow with the number pending.
//!
//! The width adapts: every [`TUNE_EVERY`] pops the queue compares it with
//! the mean gap between the events it popped and, when they are far apart,
//! files every pending event again under a new width. A tick holds about
//! [`1 / TICKS_PER_GAP`](TICKS_PER_GAP) events. A poor width only costs time (too wide: larger runs to sort; too narrow:
//! more spreading), never order.
//!
//! # Order
//! Keys are the bit patterns of times `t >= 0.0` (never NaN, `-0.0` made
//! `+0.0`), which compare as integers exactly as the times compare as
//! numbers, infinity included; ticks are a non-decreasing function of
//! them. Events with the same key come out in the order they were pushed,
//! with no sequence number stored: equal keys have equal ticks, so they
//! always share a bucket (or the run), every push appends, spreading a
//! bucket and filing again move events in order, and the run's sort is
//! stable.

use std::cmp::Reverse;
use std::collections::VecDeque;
use std::mem;

/// Bits per digit of a tick.
const DIGIT_BITS: u32 = 8;
/// Values of a digit, so buckets per level.
const DIGITS: usize = 1 << DIGIT_BITS;
/// Digits of a tick.
const LEVELS: usize = (u64::BITS / DIGIT_BITS) as usize;
/// Bitmap words per level.
const WORDS: usize = DIGITS / 64;
/// Buckets in all.
const BUCKETS: usize = LEVELS * DIGITS;
/// Pops between two looks at the width.
const TUNE_EVERY: u32 = 256;
/// The pending events are filed again when the width is this many times
/// too wide or too narrow for the gap between events.
const RETUNE_FACTOR: f64 = 4.0;
/// Ticks per mean gap between events: about 16 events per tick, few enough
/// to sort in cache, enough to see a few events ahead (measured with the
/// contention model at 10^4 to 10^5 clients).
const TICKS_PER_GAP: f64 = 1.0 / 16.0;

/// One pending event and its key.
#[derive(Debug, Clone)]
struct Slot<E> {
    key: u64,
    event: E,
}

/// A monotone priority queue of events keyed by time bits, first in first
/// out among equal keys.
#[derive(Debug, Clone)]
pub(crate) struct RadixQueue<E> {
    /// The events of tick `run_tick`, smallest key last, equal keys in
    /// reverse push order. A deque: an event pushed into the current tick
    /// usually belongs near its front (it pops after most of the tick).
    run: VecDeque<Slot<E>>,
    run_tick: u64,
    /// The key of the last event popped (0 before any): no key may be below it.
    last: u64,
    /// The tick buckets are relative to: at most the tick of every pending
    /// event (the tick of the last event popped, or of the smallest pending).
    base: u64,
    /// Ticks per time unit: `1 / w`.
    ticks_per_unit: f64,
    len: usize,
    /// Bit `level` set when some bucket of that level is not empty.
    levels: u32,
    /// Per level, bit `digit` set when that bucket is not empty.
    occupied: [[u64; WORDS]; LEVELS],
    /// `buckets[level * DIGITS + digit]`, in push order: the events whose
    /// tick first differs from `base` at digit `level` (0 the lowest),
    /// where it has `digit`; level 0 also holds the tick `base` itself.
    /// Allocated on the first push.
    buckets: Vec<Vec<Slot<E>>>,
    /// Pops left before the next look at the width.
    until_tune: u32,
    /// The time of the last look at the width.
    tuned_at: f64,
    /// Pops since the events were last re-filed.
    since_refile: usize,
}

impl<E> RadixQueue<E> {
    /// An empty queue whose last key is 0, without allocating.
    pub(crate) const fn new() -> Self {
        RadixQueue {
            run: VecDeque::new(),
            run_tick: 0,
            last: 0,
            base: 0,
            ticks_per_unit: 1.0,
            len: 0,
            levels: 0,
            occupied: [[0; WORDS]; LEVELS],
            buckets: Vec::new(),
            until_tune: TUNE_EVERY,
            tuned_at: 0.0,
            since_refile: 0,
        }
    }

    /// Empties the queue, keeping the allocations and the tick width, for
    /// keys from `last` on.
    pub(crate) fn clear_at(&mut self, last: u64) {
        self.run.clear();
        for level in 0..LEVELS {
            for word in 0..WORDS {
                let mut occupied = mem::take(&mut self.occupied[level][word]);
                while occupied != 0 {
                    self.buckets[level * DIGITS + word * 64 + occupied.trailing_zeros() as usize].clear();
                    occupied &= occupied - 1;
                }
            }
        }
        self.levels = 0;
        self.last = last;
        self.base = self.tick(f64::from_bits(last));
        self.len = 0;
        self.until_tune = TUNE_EVERY;
        self.tuned_at = f64::from_bits(last);
        self.since_refile = 0;
    }

    /// Sets the tick width for a mean gap of `gap` time units between
    /// events; a gap that is not a positive number leaves it as it is. Only
    /// while the queue is empty: pending events stay filed under the width
    /// they were pushed with.
    pub(crate) fn set_gap(&mut self, gap: f64) {
        debug_assert_eq!(self.len, 0);
        if let Some(ticks_per_unit) = self.ticks_per_unit_for(gap) {
            self.ticks_per_unit = ticks_per_unit;
            self.base = self.tick(f64::from_bits(self.last));
        }
    }

    /// The ticks per time unit for a mean gap of `gap` between events at
    /// about the current time; `None` for a gap that is not a positive number.
    fn ticks_per_unit_for(&self, gap: f64) -> Option<f64> {
        // Capped so that ticks near now keep 53 bits: far from saturating.
        let now = f64::from_bits(self.last);
        let wanted = (TICKS_PER_GAP / gap).min(2f64.powi(53) / now.max(1.0));
        (wanted.is_finite() && wanted > 0.0).then_some(wanted)
    }

    /// How many events are pending.
    #[inline]
    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    /// The tick of `time`, a non-decreasing function of it (`as` rounds
    /// down and saturates, infinity included).
    #[inline(always)]
    fn tick(&self, time: f64) -> u64 {
        const CAP: f64 = (1_u64 << 62) as f64;
        let ticks = time * self.ticks_per_unit;
        (if ticks < CAP { ticks } else { CAP }) as i64 as u64
    }

    /// Queues `event` under `key`, the bits of its time, after every event
    /// already queued under it. `key` must be at least the key last popped
    /// (or given to [`clear_at`](RadixQueue::clear_at)) and below `2^63`;
    /// the engine checks both.
    #[inline(always)]
    pub(crate) fn push(&mut self, key: u64, event: E) {
        debug_assert!(key >= self.last && key >> 63 == 0, "key {key:#x} below {:#x}", self.last);
        self.len += 1;
        let tick = self.tick(f64::from_bits(key));
        if tick == self.run_tick && !self.run.is_empty() {
            self.insert_in_run(Slot { key, event });
        } else {
            if self.buckets.is_empty() {
                self.buckets.resize_with(BUCKETS, Vec::new);
            }
            self.place(tick, Slot { key, event });
        }
    }

    /// Inserts `slot` in the run, below every key at or below its own, so it
    /// pops after them.
    fn insert_in_run(&mut self, slot: Slot<E>) {
        let at = self.run.partition_point(|s| s.key > slot.key);
        self.run.insert(at, slot);
    }

    /// Puts `slot`, of tick `tick`, at the back of the bucket that tick
    /// names relative to `base`.
    #[inline(always)]
    fn place(&mut self, tick: u64, slot: Slot<E>) {
        // `| 1` files the tick `base` itself in level 0, with its neighbours.
        let level = (((tick ^ self.base) | 1).ilog2() / DIGIT_BITS) as usize;
        let digit = (tick >> (level as u32 * DIGIT_BITS)) as usize % DIGITS;
        self.buckets[level * DIGITS + digit].push(slot);
        self.occupied[level][digit / 64] |= 1 << (digit % 64);
        self.levels |= 1 << level;
    }

    /// The lowest non-empty bucket: its level and its index in `buckets`.
    #[inline(always)]
    fn lowest(&self) -> Option<(usize, usize)> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize;
        let words = &self.occupied[level];
        let word = words.iter().position(|&w| w != 0).unwrap_or(0);
        Some((level, level * DIGITS + word * 64 + words[word].trailing_zeros() as usize))
    }

    /// Takes the bucket at `index` (of `level`) out, marking it empty; its
    /// allocation goes back with [`put_back`](RadixQueue::put_back).
    #[inline(always)]
    fn take(&mut self, level: usize, index: usize) -> Vec<Slot<E>> {
        let digit = index % DIGITS;
        let words = &mut self.occupied[level];
        words[digit / 64] &= !(1 << (digit % 64));
        if words.iter().all(|&w| w == 0) {
            self.levels &= !(1 << level);
        }
        mem::take(&mut self.buckets[index])
    }

    /// Returns an emptied bucket's allocation to its place.
    #[inline(always)]
    fn put_back(&mut self, index: usize, bucket: Vec<Slot<E>>) {
        debug_assert!(bucket.is_empty() && self.buckets[index].is_empty());
        self.buckets[index] = bucket;
    }

    /// The event `after` events after the next one, if the current tick
    /// holds it (the run pops from its back).
    #[inline(always)]
    pub(crate) fn upcoming(&self, after: usize) -> Option<&E> {
        let index = self.run.len().checked_sub(after + 1)?;
        self.run.get(index).map(|slot| &slot.event)
    }

    /// Removes the first event with the smallest key, making its key the
    /// last one; `None`, with the last key unchanged, when the queue is empty.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<(u64, E)> {
        let slot = match self.run.pop_back() {
            Some(slot) => slot,
            None => self.pop_bucket()?,
        };
        self.last = slot.key;
        self.len -= 1;
        self.until_tune -= 1;
        if self.until_tune == 0 {
            self.tune();
        }
        Some((slot.key, slot.event))
    }

    /// With the run empty: the event of the lowest bucket if it is alone
    /// there, else the first of its tick, its other events of that tick
    /// staying in the run. `None` if every bucket is empty.
    fn pop_bucket(&mut self) -> Option<Slot<E>> {
        loop {
            let (level, index) = self.lowest()?;
            if self.buckets[index].len() == 1 {
                let mut bucket = self.take(level, index);
                let slot = bucket.pop();
                self.put_back(index, bucket);
                if let Some(slot) = &slot {
                    self.base = self.tick(f64::from_bits(slot.key));
                }
                return slot;
            }
            let mut bucket = self.take(level, index);
            if level == 0 {
                // One tick: the run, sorted by key; stable, so equal keys
                // stay in reverse push order and the first pushed pops first.
                self.base = (self.base & !(DIGITS as u64 - 1)) | (index % DIGITS) as u64;
                self.run_tick = self.base;
                self.run.extend(bucket.drain(..).rev());
                sort_run(self.run.make_contiguous());
                self.put_back(index, bucket);
                return self.run.pop_back();
            }
            // Relative to its smallest tick every tick of the bucket first
            // differs at a lower digit, or not at all.
            self.base =
                bucket.iter().map(|slot| self.tick(f64::from_bits(slot.key))).min().unwrap_or(self.base);
            for slot in bucket.drain(..) {
                self.place(self.tick(f64::from_bits(slot.key)), slot);
            }
            self.put_back(index, bucket);
        }
    }

    /// Compares the tick width with the mean gap between the events popped
    /// since the last look, and re-files every pending event when they are
    /// far apart and enough pops have paid for the last re-filing.
    #[cold]
    fn tune(&mut self) {
        self.until_tune = TUNE_EVERY;
        self.since_refile += TUNE_EVERY as usize;
        let now = f64::from_bits(self.last);
        let gap = (now - self.tuned_at) / f64::from(TUNE_EVERY);
        self.tuned_at = now;
        let Some(wanted) = self.ticks_per_unit_for(gap) else { return };
        if (1.0 / RETUNE_FACTOR..=RETUNE_FACTOR).contains(&(wanted / self.ticks_per_unit)) {
            return;
        }
        if self.since_refile < self.len / 4 {
            return;
        }
        self.refile(wanted);
    }

    /// Files every pending event again under `ticks_per_unit`, keeping equal
    /// keys in push order.
    fn refile(&mut self, ticks_per_unit: f64) {
        self.since_refile = 0;
        let mut pending = Vec::with_capacity(self.len);
        // The run in pop order, then every bucket: equal keys are never in
        // two of them.
        pending.extend(self.run.drain(..).rev());
        while let Some((level, index)) = self.lowest() {
            let mut bucket = self.take(level, index);
            pending.append(&mut bucket);
            self.put_back(index, bucket);
        }
        self.ticks_per_unit = ticks_per_unit;
        self.base = self.tick(f64::from_bits(self.last));
        for slot in pending {
            self.place(self.tick(f64::from_bits(slot.key)), slot);
        }
    }
}

/// Sorts `run`, one tick's events in reverse push order, by key from
/// largest to smallest; stable, so equal keys keep that order.
#[inline]
fn sort_run<E>(run: &mut [Slot<E>]) {
    if run.len() <= 24 {
        // Insertion sort: a tick holds about 16 events.
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && run[j - 1].key < run[j].key {
                run.swap(j - 1, j);
                j -= 1;
            }
        }
    } else {
        run.sort_by_key(|slot| Reverse(slot.key));
    }
}

impl<E> Default for RadixQueue<E> {
    fn default() -> Self {
        RadixQueue::new()
    }
}
