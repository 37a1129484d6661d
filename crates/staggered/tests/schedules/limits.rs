//! Extreme parameters: nothing panics, overflows or passes the cap, and bad
//! parameters are rejected with the field named.

use std::time::Duration;

use staggered::{Backoff, BackoffBuilder, CapMode, Field, Strategy};

const CAP_MODES: [CapMode; 2] = [CapMode::Delay, CapMode::Interval];

/// Every strategy in both cap modes, from one set of parameters.
fn every(builder: BackoffBuilder) -> impl Iterator<Item = Backoff> {
    Strategy::ALL.into_iter().flat_map(move |strategy| {
        CAP_MODES.into_iter().map(move |cap_mode| {
            builder.with_strategy(strategy).with_cap_mode(cap_mode).build().unwrap_or_else(|e| {
                panic!("{strategy}/{cap_mode}: {e}");
            })
        })
    })
}

/// Checks the cap on `delay` and returns it: `max_delay` in `CapMode::Delay`
/// (and for every strategy that reads no factor), else `delay_ceiling()`.
#[track_caller]
fn capped(backoff: &Backoff, delay: Duration) -> Duration {
    let (strategy, cap_mode) = (backoff.strategy(), backoff.cap_mode());
    let ceiling = backoff.delay_ceiling();
    assert!(delay <= ceiling, "{strategy}/{cap_mode}: {delay:?} > {ceiling:?}");
    if cap_mode == CapMode::Delay || !strategy.uses_factor() {
        let max_delay = backoff.max_delay();
        assert!(delay <= max_delay, "{strategy}/{cap_mode}: {delay:?} > {max_delay:?}");
    }
    delay
}

#[test]
fn u32_max_attempts_reports_its_length_without_walking_it() {
    for backoff in every(Backoff::builder(Strategy::Full).with_max_attempts(u32::MAX)) {
        let mut delays = backoff.delays_seeded(1);
        let retries = (u32::MAX - 1) as usize;
        assert_eq!(delays.size_hint(), (retries, Some(retries)));
        for delay in delays.by_ref().take(100) {
            capped(&backoff, delay);
        }
        assert_eq!(delays.retry(), 100);
        assert_eq!(delays.size_hint(), (retries - 100, Some(retries - 100)));
        assert_eq!(backoff.bounds().take(100).count(), 100);
    }
}

#[test]
fn max_attempts_one_means_no_retry() {
    for backoff in every(Backoff::builder(Strategy::Full).with_max_attempts(1)) {
        assert_eq!(backoff.delays_seeded(1).size_hint(), (0, Some(0)));
        assert_eq!(backoff.delays_seeded(1).next(), None);
        assert_eq!(backoff.bounds().next(), None);
    }
}

#[test]
fn unlimited_schedules_run_on_saturated_after_10_000_retries() {
    let builder = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(30))
        .without_max_attempts();
    for backoff in every(builder) {
        let what = format!("{}/{}", backoff.strategy(), backoff.cap_mode());
        let mut delays = backoff.delays_seeded(7);
        assert_eq!(delays.size_hint(), (usize::MAX, None), "{what}");
        for delay in delays.by_ref().take(10_000) {
            capped(&backoff, delay);
        }
        assert_eq!(delays.retry(), 10_000, "{what}");
        let next: Vec<Duration> = delays.take(100).map(|d| capped(&backoff, d)).collect();
        assert_eq!(next.len(), 100, "{what}: the schedule ended");
        let bound = backoff.bounds().nth(10_000).unwrap();
        assert_eq!(bound.retry, 10_001, "{what}");
        assert!(bound.max <= backoff.delay_ceiling(), "{what}: {bound:?}");
        match backoff.strategy() {
            Strategy::Constant => assert!(next.iter().all(|d| *d == backoff.base()), "{what}"),
            // Saturated: exponential sits on the cap.
            Strategy::Exponential => assert!(next.iter().all(|d| *d == backoff.max_delay()), "{what}"),
            // So, in fact, does smooth: a few retries after its median passes
            // max_delay its formula is far above the cap every time, and every
            // delay is exactly max_delay. Not asserted: smooth fixes the clamp
            // pile-up below the cap, not past it; not a contract.
            Strategy::Smooth => {}
            // The other jittered ones still spread.
            _ => assert!(next.windows(2).any(|w| w[0] != w[1]), "{what}: {next:?}"),
        }
    }
}

#[test]
fn duration_max_base_and_max_delay() {
    for base in [Duration::MAX, Duration::from_nanos(1), Duration::ZERO] {
        let builder = Backoff::builder(Strategy::Full)
            .with_base(base)
            .with_max_delay(Duration::MAX)
            .with_multiplier(2.0)
            .with_max_attempts(200);
        for backoff in every(builder) {
            let what = format!("{}/{} base {base:?}", backoff.strategy(), backoff.cap_mode());
            let delays: Vec<Duration> = backoff.delays_seeded(3).map(|d| capped(&backoff, d)).collect();
            assert_eq!(delays.len(), 199, "{what}");
            assert_eq!(backoff.bounds().count(), 199, "{what}");
            match backoff.strategy() {
                Strategy::Constant => assert!(delays.iter().all(|d| *d == base), "{what}"),
                // 2^198 ns is far past Duration::MAX (about 2^94 ns): saturated.
                Strategy::Exponential if !base.is_zero() => {
                    assert_eq!(*delays.last().unwrap(), Duration::MAX, "{what}")
                }
                _ => {}
            }
        }
    }
}

#[test]
fn huge_multipliers_saturate_at_the_second_retry() {
    for multiplier in [1e300, f64::MAX] {
        for max_delay in [Duration::from_secs(30), Duration::MAX] {
            let builder = Backoff::builder(Strategy::Full)
                .with_multiplier(multiplier)
                .with_max_delay(max_delay)
                .with_max_attempts(50);
            for backoff in every(builder) {
                let delays: Vec<Duration> = backoff.delays_seeded(5).map(|d| capped(&backoff, d)).collect();
                assert_eq!(delays.len(), 49);
                if backoff.strategy() == Strategy::Exponential {
                    assert_eq!(delays[0], Duration::from_secs(1));
                    assert!(delays[1..].iter().all(|d| *d == max_delay), "{multiplier}: {delays:?}");
                }
                for b in backoff.bounds().skip(1) {
                    if backoff.strategy() != Strategy::Constant && backoff.strategy() != Strategy::Smooth {
                        assert!(b.interval <= max_delay && b.interval > Duration::from_secs(1), "{b:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn multiplier_one_keeps_the_interval_at_base() {
    let base = Duration::from_millis(1500);
    let builder =
        Backoff::builder(Strategy::Full).with_base(base).with_multiplier(1.0).with_max_attempts(1000);
    for backoff in every(builder) {
        let strategy = backoff.strategy();
        if matches!(strategy, Strategy::Decorrelated | Strategy::Smooth) {
            continue; // they read no multiplier
        }
        // 1.5 s * 1.3 (additive's default factor) fits under 30 s: no shrinking.
        assert!(backoff.bounds().all(|b| b.interval == base), "{strategy}");
        if strategy == Strategy::Exponential {
            assert!(backoff.delays_seeded(9).all(|d| d == base));
        }
    }
}

#[test]
fn factor_zero_is_no_jitter_and_factor_one_the_widest() {
    let exponential = Backoff::builder(Strategy::Exponential).with_max_attempts(12).build().unwrap();
    let expected: Vec<Duration> = exponential.delays_seeded(0).collect();
    for strategy in [Strategy::Proportional, Strategy::Additive] {
        for cap_mode in CAP_MODES {
            let b = exponential.to_builder().with_strategy(strategy).with_cap_mode(cap_mode);
            let zero = b.with_factor(0.0).build().unwrap();
            assert_eq!(zero.delays_seeded(11).collect::<Vec<_>>(), expected, "{strategy}/{cap_mode}");
            assert!(zero.bounds().all(|b| b.min == b.max), "{strategy}/{cap_mode}");

            let one = b.with_factor(1.0).build().unwrap();
            for (bound, delay) in one.bounds().zip(one.delays_seeded(11)) {
                let x = bound.interval;
                let (min, max) = match strategy {
                    Strategy::Proportional => (Duration::ZERO, 2 * x),
                    _ => (x, 2 * x),
                };
                assert_eq!((bound.min, bound.max), (min, max), "{strategy}/{cap_mode}");
                assert!((min..=max).contains(&delay), "{strategy}/{cap_mode}: {delay:?}");
            }
            // Under the hard cap the interval stops at max_delay / 2; otherwise at max_delay.
            let last = one.bounds().last().unwrap();
            let ceiling = match cap_mode {
                CapMode::Interval => Duration::from_secs(30),
                _ => Duration::from_secs(15),
            };
            assert_eq!(last.interval, ceiling, "{strategy}/{cap_mode}");
        }
    }
}

#[test]
fn zero_base_gives_zero_delays_for_every_strategy() {
    for max_delay in [Duration::ZERO, Duration::from_secs(30), Duration::MAX] {
        let builder = Backoff::builder(Strategy::Full)
            .with_base(Duration::ZERO)
            .with_max_delay(max_delay)
            .without_max_attempts();
        for backoff in every(builder) {
            let what = format!("{}/{} max {max_delay:?}", backoff.strategy(), backoff.cap_mode());
            assert!(backoff.delays_seeded(13).take(2000).all(|d| d.is_zero()), "{what}");
            assert!(
                backoff
                    .bounds()
                    .take(2000)
                    .all(|b| b.min.is_zero() && b.max.is_zero() && b.interval.is_zero()),
                "{what}"
            );
        }
    }
}

#[test]
fn the_hard_cap_holds_where_float_nanoseconds_round() {
    // Past 2^53 ns (104 days) a Duration has no exact f64 nanosecond value;
    // the first of these made `exponential` return 42222533664195840 s.
    let max_delays = [
        Duration::new(42_222_533_664_195_837, 775_169_763),
        Duration::new(13_205_979_314_913_675, 345_421_585),
        Duration::new(10_000_000, 3),
        Duration::new(1 << 40, 999_999_999),
        Duration::new(u64::MAX, 999_999_998),
    ];
    for max_delay in max_delays {
        let builder = Backoff::builder(Strategy::Full)
            .with_base(Duration::from_micros(62))
            .with_multiplier(9.2)
            .with_max_delay(max_delay)
            .with_factor(0.98)
            .with_max_attempts(60);
        for backoff in every(builder) {
            for delay in backoff.delays_seeded(17) {
                capped(&backoff, delay);
            }
            for b in backoff.bounds() {
                capped(&backoff, b.max);
                assert!(b.interval <= max_delay, "{b:?}");
            }
        }
    }
}

#[test]
fn constant_is_exactly_base() {
    for base in
        [Duration::from_millis(250), Duration::new(10_000_000, 3), Duration::new(u64::MAX / 3, 123_456_789)]
    {
        let backoff = Backoff::builder(Strategy::Constant)
            .with_base(base)
            .with_max_delay(Duration::MAX)
            .with_max_attempts(5)
            .build()
            .unwrap();
        assert!(backoff.delays_seeded(1).all(|d| d == base), "{base:?}");
        assert!(
            backoff.bounds().all(|b| b.min == base && b.max == base && b.median == Some(base)),
            "{base:?}"
        );
    }
}

#[test]
fn every_bad_parameter_is_rejected_naming_its_field() {
    type BreakIt = fn(BackoffBuilder) -> BackoffBuilder;
    let cases: [(&str, BreakIt, Field); 14] = [
        ("multiplier NaN", |b| b.with_multiplier(f64::NAN), Field::Multiplier),
        ("multiplier inf", |b| b.with_multiplier(f64::INFINITY), Field::Multiplier),
        ("multiplier -inf", |b| b.with_multiplier(f64::NEG_INFINITY), Field::Multiplier),
        ("multiplier 0", |b| b.with_multiplier(0.0), Field::Multiplier),
        ("multiplier below 1", |b| b.with_multiplier(0.999), Field::Multiplier),
        ("multiplier negative", |b| b.with_multiplier(-2.0), Field::Multiplier),
        ("factor negative", |b| b.with_factor(-0.1), Field::Factor),
        ("factor above 1", |b| b.with_factor(1.0001), Field::Factor),
        ("factor NaN", |b| b.with_factor(f64::NAN), Field::Factor),
        ("factor inf", |b| b.with_factor(f64::INFINITY), Field::Factor),
        ("max_delay below base", |b| b.with_max_delay(Duration::from_millis(999)), Field::MaxDelay),
        ("base above max_delay", |b| b.with_base(Duration::MAX), Field::MaxDelay),
        ("max_attempts 0", |b| b.with_max_attempts(0), Field::MaxAttempts),
        ("granularity 0", |b| b.with_granularity(Duration::ZERO), Field::Granularity),
    ];
    for strategy in Strategy::ALL {
        for (what, break_it, field) in cases {
            let err = break_it(Backoff::builder(strategy)).build().unwrap_err();
            assert_eq!(err.field(), field, "{strategy}: {what}");
            let message = err.to_string();
            assert!(message.contains(field.name()), "{strategy}: {what}: {message}");
        }
    }
    // The edges of each rule are valid.
    for strategy in Strategy::ALL {
        let b = Backoff::builder(strategy);
        for ok in [
            b.with_multiplier(1.0),
            b.with_factor(0.0),
            b.with_factor(1.0),
            b.with_max_delay(Duration::from_secs(1)),
            b.with_max_attempts(1),
            b.with_granularity(Duration::from_nanos(1)),
            b.with_base(Duration::ZERO).with_max_delay(Duration::ZERO),
        ] {
            assert!(ok.build().is_ok(), "{strategy}: {ok:?}");
        }
    }
}
