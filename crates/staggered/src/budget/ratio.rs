//! Finagle's and tower's ratio budget: retries may be a fraction of recent
//! requests, plus a small steady allowance, over a sliding window.

use core::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use core::time::Duration;
use std::sync::Arc;

use super::{Budget, BudgetMetrics, Tally};
use crate::classify::Failure;
use crate::error::{ConfigError, Field, Rule};
use crate::sleep::{Clock, StdClock};

/// Retries are counted in thousandths, so a 20% deposit is exact.
const WITHDRAW: i64 = 1000;
/// The window is kept as this many slots, each `ttl / SLOTS` long.
const SLOTS: usize = 10;

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
/// overdraw it; no lock anywhere. Clones share the budget.
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
    /// Each slot: its epoch in the high 32 bits, its net amount (i32) below.
    slots: [AtomicU64; SLOTS],
    /// The sum of the live slots' amounts.
    balance: AtomicI64,
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

fn pack(epoch: u32, amount: i32) -> u64 {
    (u64::from(epoch) << 32) | u64::from(amount as u32)
}

fn unpack(word: u64) -> (u32, i32) {
    ((word >> 32) as u32, word as u32 as i32)
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
    fn epoch(&self) -> u32 {
        let nanos = u64::try_from(self.clock.since(self.origin).as_nanos()).unwrap_or(u64::MAX);
        (nanos / self.slot_nanos) as u32
    }

    /// Zeroes every slot older than the window, taking its amount out of the balance.
    fn expire(&self, now: u32) {
        for slot in &self.slots {
            let word = slot.load(Ordering::Acquire);
            let (epoch, amount) = unpack(word);
            if amount != 0 && now.wrapping_sub(epoch) >= SLOTS as u32 && Self::clear(slot, word, epoch) {
                self.balance.fetch_sub(i64::from(amount), Ordering::AcqRel);
            }
        }
    }

    fn clear(slot: &AtomicU64, word: u64, epoch: u32) -> bool {
        slot.compare_exchange(word, pack(epoch, 0), Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// Adds `amount` to the current slot, first recycling it if it belongs
    /// to an older epoch (whose amount then leaves the balance).
    fn record(&self, now: u32, amount: i64) {
        let slot = &self.slots[now as usize % SLOTS];
        let mut word = slot.load(Ordering::Acquire);
        loop {
            let (epoch, held) = unpack(word);
            let (base, dropped) = if epoch == now { (held, 0) } else { (0, held) };
            let next = pack(
                now,
                i64::from(base).saturating_add(amount).clamp(i32::MIN.into(), i32::MAX.into()) as i32,
            );
            match slot.compare_exchange_weak(word, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if dropped != 0 {
                        self.balance.fetch_sub(i64::from(dropped), Ordering::AcqRel);
                    }
                    return;
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
        if taken.is_ok() {
            // The balance already counts this withdrawal; the slot remembers
            // it so that it expires with the window.
            inner.record(now, -WITHDRAW);
        }
        inner.tally.record(taken.is_ok())
    }

    fn deposit(&self, _: u32, _: Option<&Failure>) {}

    fn record_request(&self) {
        let inner = &self.inner;
        if inner.deposit == 0 {
            return;
        }
        let now = inner.epoch();
        inner.expire(now);
        inner.record(now, inner.deposit);
        inner.balance.fetch_add(inner.deposit, Ordering::AcqRel);
    }

    fn metrics(&self) -> Option<BudgetMetrics> {
        let inner = &self.inner;
        Some(inner.tally.metrics(self.available(), f64::NAN))
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
