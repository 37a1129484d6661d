//! The token bucket in front of an adaptive limiter's attempts: it fills at
//! the rate the CUBIC curve sets and holds at most one second of it.

/// Tokens that fill at `rate` per second up to `capacity`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FillBucket {
    /// Tokens added per second, never below `min_rate`.
    rate: f64,
    /// The most tokens held: the rate, at least 1.
    capacity: f64,
    /// Tokens held at `last_refill`.
    level: f64,
    /// When the level was last brought up to date, in seconds.
    last_refill: f64,
    /// The lowest fill rate.
    min_rate: f64,
}

impl FillBucket {
    /// An empty bucket filling at `rate` from time `now`.
    pub(crate) fn new(rate: f64, min_rate: f64, now: f64) -> Self {
        let mut bucket = FillBucket { rate: 0.0, capacity: 0.0, level: 0.0, last_refill: now, min_rate };
        bucket.set_rate(rate, now);
        bucket
    }

    /// Brings the level up to time `now` at the current rate.
    fn refill(&mut self, now: f64) {
        let elapsed = now - self.last_refill;
        if elapsed > 0.0 {
            self.level = (self.level + elapsed * self.rate).min(self.capacity);
            self.last_refill = now;
        }
    }

    /// Sets the fill rate at time `now`: what was earned at the old rate is
    /// kept, up to the new capacity.
    pub(crate) fn set_rate(&mut self, rate: f64, now: f64) {
        self.refill(now);
        self.rate = if rate.is_nan() { self.min_rate } else { rate.max(self.min_rate) };
        self.capacity = if rate >= 1.0 { rate } else { 1.0 };
        self.level = self.level.min(self.capacity);
    }

    /// Takes one token at time `now`, or says how many seconds until one is
    /// there (at the current rate). A level a hair under one token counts as
    /// one: after a wait of exactly the time given, float rounding can leave
    /// `0.999...`, and a second wait of a nanosecond helps nobody.
    pub(crate) fn take(&mut self, now: f64) -> Result<(), f64> {
        const HAIR: f64 = 1e-9;
        self.refill(now);
        if self.level >= 1.0 - HAIR {
            self.level = (self.level - 1.0).max(0.0);
            Ok(())
        } else {
            Err((1.0 - self.level) / self.rate)
        }
    }

    /// The fill rate, per second.
    pub(crate) const fn rate(&self) -> f64 {
        self.rate
    }

    /// The most tokens the bucket holds.
    pub(crate) const fn capacity(&self) -> f64 {
        self.capacity
    }

    /// The tokens held at time `now`.
    pub(crate) fn level(&self, now: f64) -> f64 {
        let mut copy = *self;
        copy.refill(now);
        copy.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_at_its_rate_up_to_its_capacity() {
        let mut b = FillBucket::new(4.0, 0.5, 0.0);
        assert_eq!(b.capacity(), 4.0);
        assert_eq!(b.take(0.0), Err(0.25));
        assert_eq!(b.level(0.5), 2.0);
        assert_eq!(b.level(10.0), 4.0);
        assert_eq!(b.take(0.5), Ok(()));
        assert_eq!(b.level(0.5), 1.0);
    }

    #[test]
    fn a_new_rate_keeps_what_was_earned_and_clips_to_the_new_capacity() {
        let mut b = FillBucket::new(10.0, 0.5, 0.0);
        b.set_rate(2.0, 1.0); // earned 10 at the old rate, clipped to 2
        assert_eq!((b.rate(), b.capacity(), b.level(1.0)), (2.0, 2.0, 2.0));
        b.set_rate(0.1, 1.0); // below the floor: 0.5 per second, capacity 1
        assert_eq!((b.rate(), b.capacity(), b.level(1.0)), (0.5, 1.0, 1.0));
        b.set_rate(f64::NAN, 1.0);
        assert_eq!(b.rate(), 0.5);
    }

    #[test]
    fn the_wait_for_a_token_is_the_shortfall_over_the_rate() {
        let mut b = FillBucket::new(2.0, 0.5, 0.0);
        assert_eq!(b.take(0.25), Err(0.25));
        assert_eq!(b.take(0.5), Ok(()));
        assert_eq!(b.level(0.5), 0.0);
        // A hair short of a token is a token.
        assert_eq!(b.take(0.5 + 0.4999999999), Ok(()));
        assert!(b.level(1.0) < 1e-9);
    }
}
