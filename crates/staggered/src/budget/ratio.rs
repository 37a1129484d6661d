//! Finagle's and tower's ratio budget: retries may be a fraction of recent
//! requests, plus a small steady allowance, over a sliding window.

use core::time::Duration;

use crate::sync::{Arc, AtomicI64, AtomicU64, Ordering};

use super::{Budget, BudgetMetrics, Tally};
use crate::classify::Failure;
use crate::error::{ConfigError, Field, Rule};
use crate::sleep::{Clock, StdClock};

/// Retries are counted in thousandths, so a 20% deposit is exact.
const WITHDRAW: i64 = 1000;
/// The window is kept as this many slots, each `ttl / SLOTS` long.
const SLOTS: usize = 10;
/// A slot word holds the low bits of its slot number (its tag) above its net
/// amount. The tag only has to tell slots of the last few windows apart (a
/// longer gap is caught by [`Inner::last_epoch`]); the amount gets the rest,
/// 2^47 thousandths either way, so that no traffic a process can generate
/// fills a slot (140 billion retries' worth in one tenth of the ttl).
const TAG_BITS: u32 = 16;
const AMOUNT_BITS: u32 = 64 - TAG_BITS;
const AMOUNT_MAX: i64 = (1 << (AMOUNT_BITS - 1)) - 1;
const AMOUNT_MIN: i64 = -(1 << (AMOUNT_BITS - 1));
/// A gap between operations this long (in slots) could make an old tag look
/// current; past it every slot is expired outright (see [`Inner::epoch`]).
const ALIASING_GAP: u64 = (1 << (TAG_BITS - 1)) - 2 * SLOTS as u64;

/// Finagle's `RetryBudget` and tower's `TpsBudget`: every request deposits
/// `retry_percent` of a retry, every retry withdraws one, and a reserve of
/// `min_per_sec * ttl` retries is always there, so a quiet client can still
/// retry. Deposits and withdrawals expire after `ttl`.
///
/// # Default
/// | parameter | default |
/// |---|---|
/// | `ttl` | 10 s |
/// | `min_per_sec` | 10 |
/// | `retry_percent` | 0.2 (20%) |
///
/// The window is ten slots, each one atomic word holding its slot number and
/// its net deposits; the running balance is a second atomic. A withdrawal
/// is a compare-and-swap on the balance, so concurrent retries can never
/// overdraw it; no lock anywhere. Clones share the budget. Whatever the
/// traffic and however far the clock jumps, once `ttl` has passed with no
/// operation only the reserve is left.
///
/// # Rounding
/// `retry_percent` is kept in thousandths of a retry per request: 0.3 allows
/// exactly 3 retries per 10 requests, and 0.0004 rounds to nothing. tower's
/// `TpsBudget` rounds differently: below 1 it charges a retry
/// `floor(1 / retry_percent)` requests (0.3 becomes 1 retry per 3
/// requests, 33%), above 1 it charges `floor(1000 / retry_percent)`
/// thousandths. The two agree whenever that division is exact in
/// thousandths (0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 4, 5, ...). To mirror tower's
/// 33% for 0.3, pass its effective ratio, 1/3 (kept as 0.333).
///
/// # Coming from tower
/// tower's `Budget::deposit` counts a request: here that is
/// [`Budget::record_request`]. This crate's [`Budget::deposit`] records a
/// *success* (the token buckets refill on it; this budget ignores it).
/// `withdraw` means the same in both: ask for one retry.
pub struct RatioBudget<K: Clock = StdClock> {
    inner: Arc<Inner<K>>,
}

impl<K: Clock> core::fmt::Debug for RatioBudget<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RatioBudget").field("available", &self.available()).finish_non_exhaustive()
    }
}

impl<K: Clock> Clone for RatioBudget<K> {
    fn clone(&self) -> Self {
        RatioBudget { inner: Arc::clone(&self.inner) }
    }
}

struct Inner<K: Clock> {
    clock: K,
    origin: K::Instant,
    slot_nanos: u64,
    deposit: i64,
    reserve: i64,
    /// Each slot: its tag in the high [`TAG_BITS`], its net amount below.
    slots: [AtomicU64; SLOTS],
    /// The sum of the slots' amounts: every change to a slot's amount is
    /// mirrored here, by exactly what the slot took, so nothing outlives the
    /// window.
    balance: AtomicI64,
    /// The latest slot number any operation has seen, in full (slot tags
    /// keep only its low bits).
    last_epoch: AtomicU64,
    tally: Tally,
}

/// The parameters of a [`RatioBudget`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct RatioBudgetBuilder {
    ttl: Duration,
    min_per_sec: u32,
    retry_percent: f64,
}

impl RatioBudgetBuilder {
    /// Finagle's defaults.
    pub const fn new() -> Self {
        RatioBudgetBuilder { ttl: Duration::from_secs(10), min_per_sec: 10, retry_percent: 0.2 }
    }
    /// Sets how long deposits and withdrawals count; 1 s to 60 s, as tower checks.
    pub const fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }
    /// Sets the retries per second allowed with no traffic at all.
    pub const fn with_min_per_sec(mut self, min_per_sec: u32) -> Self {
        self.min_per_sec = min_per_sec;
        self
    }
    /// Sets the retries allowed per request, as a fraction (0.2 is 20%); 0 to 1000.
    pub const fn with_retry_percent(mut self, retry_percent: f64) -> Self {
        self.retry_percent = retry_percent;
        self
    }

    /// Builds the budget on the system clock.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the parameter out of range.
    pub fn build(self) -> Result<RatioBudget, ConfigError> {
        self.build_with_clock(StdClock)
    }

    /// Builds the budget on `clock` (a mock clock in tests, virtual time in
    /// the simulator).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the parameter out of range.
    pub fn build_with_clock<K: Clock>(self, clock: K) -> Result<RatioBudget<K>, ConfigError> {
        if self.ttl < Duration::from_secs(1) || self.ttl > Duration::from_secs(60) {
            return Err(ConfigError::duration(Field::Ttl, Rule::Within(1.0, 60.0), self.ttl));
        }
        if !self.retry_percent.is_finite() {
            return Err(ConfigError::float(Field::RetryPercent, Rule::Finite, self.retry_percent));
        }
        if !(0.0..=1000.0).contains(&self.retry_percent) {
            return Err(ConfigError::float(
                Field::RetryPercent,
                Rule::Within(0.0, 1000.0),
                self.retry_percent,
            ));
        }
        let ttl_nanos = u64::try_from(self.ttl.as_nanos()).unwrap_or(u64::MAX);
        let reserve =
            i64::from(self.min_per_sec).saturating_mul(WITHDRAW).saturating_mul(self.ttl.as_secs() as i64);
        let origin = clock.now();
        Ok(RatioBudget {
            inner: Arc::new(Inner {
                clock,
                origin,
                slot_nanos: (ttl_nanos / SLOTS as u64).max(1),
                deposit: (self.retry_percent * WITHDRAW as f64).round() as i64,
                reserve,
                slots: Default::default(),
                balance: AtomicI64::new(0),
                last_epoch: AtomicU64::new(0),
                tally: Tally::default(),
            }),
        })
    }
}

impl Default for RatioBudgetBuilder {
    fn default() -> Self {
        RatioBudgetBuilder::new()
    }
}

/// The tag of slot number `epoch`: its low [`TAG_BITS`].
fn tag(epoch: u64) -> u16 {
    epoch as u16
}

fn pack(tag: u16, amount: i64) -> u64 {
    debug_assert!((AMOUNT_MIN..=AMOUNT_MAX).contains(&amount));
    (u64::from(tag) << AMOUNT_BITS) | (amount as u64 & ((1 << AMOUNT_BITS) - 1))
}

fn unpack(word: u64) -> (u16, i64) {
    ((word >> AMOUNT_BITS) as u16, ((word << TAG_BITS) as i64) >> TAG_BITS)
}

/// How many slots `tag` lies behind `now` (negative: ahead, written by an
/// operation that read the clock after this one). Exact while the two are
/// less than half the tag range apart, which [`Inner::epoch`] ensures for
/// every slot that still holds an amount.
fn age(now: u16, tag: u16) -> i16 {
    now.wrapping_sub(tag) as i16
}

impl RatioBudget {
    /// A budget with Finagle's defaults on the system clock.
    pub fn new() -> Self {
        RatioBudgetBuilder::new().build().unwrap_or_else(|_| unreachable!("the defaults are valid"))
    }

    /// A builder, to change the defaults.
    pub const fn builder() -> RatioBudgetBuilder {
        RatioBudgetBuilder::new()
    }
}

impl Default for RatioBudget {
    fn default() -> Self {
        RatioBudget::new()
    }
}

impl<K: Clock> RatioBudget<K> {
    /// The retries allowed right now (the live balance plus the reserve).
    pub fn available(&self) -> f64 {
        let inner = &self.inner;
        inner.expire(inner.epoch());
        (inner.balance.load(Ordering::Acquire) + inner.reserve).max(0) as f64 / WITHDRAW as f64
    }
}

impl<K: Clock> Inner<K> {
    /// The current slot number, in full. After a gap long enough for an old
    /// tag to pass for a current one, every slot is expired here, whatever
    /// its tag says: nothing written before the gap can still be in the window.
    fn epoch(&self) -> u64 {
        let nanos = u64::try_from(self.clock.since(self.origin).as_nanos()).unwrap_or(u64::MAX);
        let now = nanos / self.slot_nanos;
        let last = self.last_epoch.load(Ordering::Acquire);
        if now > last {
            let last = self.last_epoch.fetch_max(now, Ordering::AcqRel);
            if now.saturating_sub(last) >= ALIASING_GAP {
                for slot in &self.slots {
                    self.clear(slot, |_| true);
                }
            }
        }
        now
    }

    /// Zeroes every slot older than the window, taking its amount out of the balance.
    fn expire(&self, now: u64) {
        let now = tag(now);
        for slot in &self.slots {
            self.clear(slot, |tag| age(now, tag) >= SLOTS as i16);
        }
    }

    /// Zeroes `slot` if it holds an amount and its tag is `expired`, taking
    /// the amount out of the balance.
    fn clear(&self, slot: &AtomicU64, expired: impl Fn(u16) -> bool) {
        let mut word = slot.load(Ordering::Acquire);
        loop {
            let (tag, amount) = unpack(word);
            if amount == 0 || !expired(tag) {
                return;
            }
            match slot.compare_exchange_weak(word, pack(tag, 0), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    self.balance.fetch_sub(amount, Ordering::AcqRel);
                    return;
                }
                Err(actual) => word = actual,
            }
        }
    }

    /// Adds `amount` to the current slot, first recycling it if it belongs
    /// to an older epoch (whose amount then leaves the balance), and returns
    /// what the slot took: all of `amount`, or with `partial` as much as
    /// fits. Without `partial`, an amount that does not fit is not taken
    /// (0). A slot already holding a later epoch (written by an operation
    /// that read the clock after this one) takes the amount as its own.
    fn record(&self, now: u64, amount: i64, partial: bool) -> i64 {
        // An operation that read the clock a whole window ago (its thread
        // was descheduled) has nothing left to record: its amount would
        // already have expired.
        if self.last_epoch.load(Ordering::Acquire).saturating_sub(now) >= SLOTS as u64 {
            return 0;
        }
        let slot = &self.slots[(now % SLOTS as u64) as usize];
        let now = tag(now);
        let mut word = slot.load(Ordering::Acquire);
        loop {
            let (held_tag, held) = unpack(word);
            let older = age(now, held_tag) > 0;
            let (base, dropped) = if older { (0, held) } else { (held, 0) };
            let sum = base.saturating_add(amount);
            let next = sum.clamp(AMOUNT_MIN, AMOUNT_MAX);
            if next != sum && !partial {
                return 0;
            }
            let tag = if older || held == 0 { now } else { held_tag };
            match slot.compare_exchange_weak(word, pack(tag, next), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if dropped != 0 {
                        self.balance.fetch_sub(dropped, Ordering::AcqRel);
                    }
                    return next - base;
                }
                Err(actual) => word = actual,
            }
        }
    }
}

impl<K> Budget for RatioBudget<K>
where
    K: Clock,
{
    fn withdraw(&self, _: &Failure) -> bool {
        let inner = &self.inner;
        let now = inner.epoch();
        inner.expire(now);
        let reserve = inner.reserve;
        let taken = inner.balance.fetch_update(Ordering::AcqRel, Ordering::Acquire, |balance| {
            (balance + reserve >= WITHDRAW).then_some(balance - WITHDRAW)
        });
        let mut allowed = taken.is_ok();
        // The balance already counts this withdrawal; the slot remembers it
        // so that it expires with the window. A slot too full to remember it
        // (out of reach in practice) refuses it rather than lose track.
        if allowed && inner.record(now, -WITHDRAW, false) == 0 {
            inner.balance.fetch_add(WITHDRAW, Ordering::AcqRel);
            allowed = false;
        }
        inner.tally.record(allowed)
    }

    fn deposit(&self, _: u32, _: Option<&Failure>) {}

    /// Puts the withdrawal back in the window's current slot: where it was
    /// taken in the same slot the two cancel out exactly, and a slot later
    /// the refund expires a slot after the withdrawal did.
    fn refund(&self, _: &Failure) {
        let inner = &self.inner;
        let now = inner.epoch();
        inner.expire(now);
        let taken = inner.record(now, WITHDRAW, true);
        inner.balance.fetch_add(taken, Ordering::AcqRel);
        inner.tally.unrecord_allowed();
    }

    fn record_request(&self) {
        let inner = &self.inner;
        if inner.deposit == 0 {
            return;
        }
        let now = inner.epoch();
        inner.expire(now);
        // What a full slot could not take is not counted at all.
        let taken = inner.record(now, inner.deposit, true);
        inner.balance.fetch_add(taken, Ordering::AcqRel);
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        let inner = &self.inner;
        Some(inner.tally.metrics(self.available(), None))
    }
}

/// What a [`RatioBudgetBuilder`] was given, so a caller (a report, a config
/// dump) can show the parameters without keeping a copy of them.
impl RatioBudgetBuilder {
    /// How long deposits and withdrawals count.
    pub const fn ttl(&self) -> Duration {
        self.ttl
    }
    /// The retries per second allowed with no traffic at all.
    pub const fn min_per_sec(&self) -> u32 {
        self.min_per_sec
    }
    /// The retries allowed per request, as a fraction (0.2 is 20%).
    pub const fn retry_percent(&self) -> f64 {
        self.retry_percent
    }
}
