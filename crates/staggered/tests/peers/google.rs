//! google-http-java-client (at cf8ec81f,
//! `google-http-client/src/test/java/com/google/api/client/util/ExponentialBackOffTest.java`).
//! `ExponentialBackOff`: initial interval 500 ms, randomization factor 0.5,
//! multiplier 1.5, max interval 60 s (the interval is capped, not the
//! randomized delay), max elapsed time 15 min, all in whole milliseconds.
//! Ours: the [`Preset::Google`] (`proportional`, [`CapMode::Interval`], 1 ms
//! granularity, 15 min deadline).

use staggered::{Backoff, CapMode, Preset, Strategy};

use super::ms;

#[test]
fn test_back_off() {
    // initial 500, factor 0.1, multiplier 2, max interval 5000: intervals
    // 500, 1000, 2000, 4000, then 5000 six times; each randomized interval
    // within +-10% of its interval.
    let google = Preset::Google
        .builder()
        .with_base(ms(500))
        .with_factor(0.1)
        .with_multiplier(2.0)
        .with_max_delay(ms(5000))
        .build()
        .unwrap();
    let published = [500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000];
    for (bounds, interval) in google.bounds().zip(published) {
        assert_eq!(bounds.interval, ms(interval));
        assert_eq!((bounds.min, bounds.max), (ms(interval - interval / 10), ms(interval + interval / 10)));
    }
    for seed in 0..100 {
        for (delay, bounds) in google.delays_seeded(seed).zip(google.bounds()).take(10) {
            assert!(bounds.min <= delay && delay <= bounds.max);
        }
    }
}

#[test]
fn defaults() {
    // testConstructor: the defaults, as our preset holds them.
    let google = Preset::Google.backoff();
    assert_eq!((google.base(), google.factor(), google.multiplier()), (ms(500), 0.5, 1.5));
    assert_eq!((google.max_delay(), google.cap_mode()), (ms(60_000), CapMode::Interval));
    assert_eq!((google.deadline(), google.max_attempts()), (Some(ms(900_000)), None));
    assert_eq!(google.granularity(), Some(ms(1)));
}

#[test]
fn test_back_off_overflow() {
    // initial Integer.MAX_VALUE / 2 ms, multiplier 2.1, max Integer.MAX_VALUE
    // ms: after one back-off the interval is the max interval.
    let max = ms(i32::MAX as u64);
    let overflow = Backoff::builder(Strategy::Proportional)
        .with_base(ms(i32::MAX as u64 / 2))
        .with_multiplier(2.1)
        .with_max_delay(max)
        .with_cap_mode(CapMode::Interval)
        .with_granularity(ms(1))
        .build()
        .unwrap();
    assert_eq!(overflow.bounds().nth(1).unwrap().interval, max);
}
