//! The presets against the documents they copy: the table of
//! google-http-java-client's `ExponentialBackOff` Javadoc, the worked table
//! of additive jitter (base 1 s, cap 30 s, factor 0.3) and each preset's
//! published values, exactly.

use std::time::Duration;

use staggered::{Backoff, CapMode, FastRng, Preset, Rng, Strategy};

use super::nanos;

/// `d` truncated to as many decimals of a second as `printed` has, in units
/// of that last decimal, next to `printed` read the same way: "0.8435" is
/// 8435 tenths of a millisecond, and so must `d` be once truncated.
fn as_printed(d: Duration, printed: &str) -> (u128, u128) {
    let decimals = printed.split_once('.').map_or(0, |(_, fraction)| fraction.len()) as u32;
    let unit_ns = 10u128.pow(9 - decimals);
    (nanos(d) / unit_ns, printed.replace('.', "").parse().unwrap())
}

/// google-http-java-client's `ExponentialBackOff` Javadoc table, as printed:
/// request #, retry_interval, randomized_interval (or `BackOff.STOP`).
const GOOGLE_TABLE: [(u32, &str, Option<[&str; 2]>); 10] = [
    (1, "0.5", Some(["0.25", "0.75"])),
    (2, "0.75", Some(["0.375", "1.125"])),
    (3, "1.125", Some(["0.562", "1.687"])),
    (4, "1.687", Some(["0.8435", "2.53"])),
    (5, "2.53", Some(["1.265", "3.795"])),
    (6, "3.795", Some(["1.897", "5.692"])),
    (7, "5.692", Some(["2.846", "8.538"])),
    (8, "8.538", Some(["4.269", "12.807"])),
    (9, "12.807", Some(["6.403", "19.210"])),
    (10, "19.210", None),
];

#[test]
fn google_preset_reproduces_the_java_clients_table() {
    let google = Preset::Google.backoff();
    // Every interval is truncated to whole milliseconds, as Google's `int`
    // arithmetic does (1687.5 -> 1687), and each range comes from that
    // truncated interval: 1687 +- 843.5 gives [0.8435, 2.5305].
    for ((request, interval, range), bounds) in GOOGLE_TABLE.into_iter().zip(google.bounds()) {
        assert_eq!(bounds.retry, request);
        let (ours, printed) = as_printed(bounds.interval, interval);
        assert_eq!(ours, printed, "request {request}: retry_interval {:?} vs {interval}", bounds.interval);
        match range {
            Some([min, max]) => {
                let (ours, printed) = as_printed(bounds.min, min);
                assert_eq!(ours, printed, "request {request}: min {:?} vs {min}", bounds.min);
                let (ours, printed) = as_printed(bounds.max, max);
                assert_eq!(ours, printed, "request {request}: max {:?} vs {max}", bounds.max);
            }
            // Row 10 is STOP because the example assumes max_elapsed_time ran
            // out then, not because of an attempt count: the schedule itself
            // goes on, and the 15 min deadline (checked by the retry decision)
            // is what stops it.
            None => {
                assert_eq!(google.max_attempts(), None);
                assert_eq!(google.deadline(), Some(Duration::from_secs(15 * 60)));
                assert_eq!(bounds.interval, Duration::from_millis(19_210));
            }
        }
    }
}

#[test]
fn google_caps_the_interval_and_not_the_randomized_interval() {
    // The Javadoc: "max_interval caps the retry_interval and not the randomized_interval".
    let google = Preset::Google.backoff();
    let capped = google.bounds().find(|b| b.interval == Duration::from_secs(60)).unwrap();
    assert_eq!(capped.retry, 13, "19.210 s -> 28.815 -> 43.222 -> capped at 60");
    assert_eq!((capped.min, capped.max), (Duration::from_secs(30), Duration::from_secs(90)));
    assert_eq!(google.delay_ceiling(), Duration::from_secs(90));
    let mut seeds = FastRng::seed(2);
    let above = (0..1000)
        .filter_map(|_| google.delays_seeded(seeds.next_u64()).nth(20))
        .filter(|d| *d > Duration::from_secs(60))
        .count();
    assert!(above > 400, "about half of the capped delays pass max_delay, got {above} of 1000");
}

/// The worked table of additive jitter (base 1000 ms, max 30000 ms, jitter factor 0.3), in ms.
const ADDITIVE_TABLE: [(u64, u64); 6] =
    [(1000, 1300), (2000, 2600), (4000, 5200), (8000, 10400), (16000, 20800), (30000, 39000)];

#[test]
fn standard_with_interval_cap_reproduces_the_additive_jitter_table() {
    let table =
        Preset::Standard.builder().with_cap_mode(CapMode::Interval).with_max_attempts(7).build().unwrap();
    let bounds: Vec<_> = table.bounds().collect();
    assert_eq!(bounds.len(), ADDITIVE_TABLE.len());
    for (b, (min, max)) in bounds.iter().zip(ADDITIVE_TABLE) {
        assert_eq!(
            (b.min, b.max),
            (Duration::from_millis(min), Duration::from_millis(max)),
            "retry {}",
            b.retry
        );
    }
    // "総最大待機時間: 約80秒": the largest total wait is 79.3 s.
    let total: Duration = bounds.iter().map(|b| b.max).sum();
    assert_eq!(total, Duration::from_millis(79_300));
    // Every draw lies in its row, and the last row does pass max_delay.
    let mut seeds = FastRng::seed(4);
    let mut above = 0;
    for _ in 0..2000 {
        for (delay, (min, max)) in table.delays_seeded(seeds.next_u64()).zip(ADDITIVE_TABLE) {
            assert!((Duration::from_millis(min)..=Duration::from_millis(max)).contains(&delay));
            above += usize::from(delay > table.max_delay());
        }
    }
    assert!(above > 1500, "{above} of 2000 last delays above 30 s");
}

#[test]
fn the_general_presets_keep_the_hard_cap() {
    for preset in [Preset::Interactive, Preset::Standard, Preset::Batch] {
        // Past max_attempts too, to reach the capped retries of every preset.
        let backoff = preset.builder().with_max_attempts(20).build().unwrap();
        let max_delay = backoff.max_delay();
        assert_eq!(backoff.delay_ceiling(), max_delay, "{preset}");
        for b in backoff.bounds() {
            assert!(b.max <= max_delay, "{preset}: {b:?}");
        }
        // The last retry is fully capped: x = max_delay / (1 + f), the range reaches max_delay.
        let last = backoff.bounds().last().unwrap();
        assert_eq!(last.max, max_delay, "{preset}");
        let mut seeds = FastRng::seed(4);
        for _ in 0..2000 {
            for delay in backoff.delays_seeded(seeds.next_u64()) {
                assert!(delay <= max_delay, "{preset}: {delay:?} > {max_delay:?}");
            }
        }
    }
    // The additive jitter table under the hard cap: the last row shrinks to [30/1.3, 30] s.
    let standard = Preset::Standard.builder().with_max_attempts(7).build().unwrap();
    let last = standard.bounds().last().unwrap();
    assert_eq!(last.max, Duration::from_secs(30));
    assert_eq!(last.min.as_millis(), 23_076);
}

/// One row of the presets table (`Preset`'s docs).
struct Row {
    preset: Preset,
    strategy: Strategy,
    base: Duration,
    multiplier: f64,
    /// `None` where the strategy reads no factor.
    factor: Option<f64>,
    max_delay: Duration,
    max_attempts: Option<u32>,
    deadline: Option<Duration>,
    cap_mode: CapMode,
}

#[test]
fn every_preset_has_spec_section_4_values() {
    let ms = Duration::from_millis;
    let s = Duration::from_secs;
    let rows = [
        Row {
            preset: Preset::Interactive,
            strategy: Strategy::Additive,
            base: ms(100),
            multiplier: 2.0,
            factor: Some(0.2),
            max_delay: s(3),
            max_attempts: Some(3),
            deadline: None,
            cap_mode: CapMode::Delay,
        },
        Row {
            preset: Preset::Standard,
            strategy: Strategy::Additive,
            base: s(1),
            multiplier: 2.0,
            factor: Some(0.3),
            max_delay: s(30),
            max_attempts: Some(5),
            deadline: None,
            cap_mode: CapMode::Delay,
        },
        Row {
            preset: Preset::Batch,
            strategy: Strategy::Additive,
            base: s(5),
            multiplier: 2.0,
            factor: Some(0.5),
            max_delay: s(300),
            max_attempts: Some(10),
            deadline: None,
            cap_mode: CapMode::Delay,
        },
        Row {
            preset: Preset::Aws,
            strategy: Strategy::Full,
            base: s(1),
            multiplier: 2.0,
            factor: None,
            max_delay: s(20),
            max_attempts: Some(3),
            deadline: None,
            cap_mode: CapMode::Delay,
        },
        Row {
            preset: Preset::Grpc,
            strategy: Strategy::Proportional,
            base: s(1),
            multiplier: 1.6,
            factor: Some(0.2),
            max_delay: s(120),
            max_attempts: Some(5),
            deadline: None,
            cap_mode: CapMode::Delay,
        },
        Row {
            preset: Preset::Google,
            strategy: Strategy::Proportional,
            base: ms(500),
            multiplier: 1.5,
            factor: Some(0.5),
            max_delay: s(60),
            max_attempts: None,
            deadline: Some(s(15 * 60)),
            cap_mode: CapMode::Interval,
        },
    ];
    assert_eq!(rows.len(), Preset::ALL.len());
    for (row, preset) in rows.iter().zip(Preset::ALL) {
        assert_eq!(row.preset, preset, "the order of Preset::ALL");
        let b: Backoff = preset.backoff();
        assert_eq!(b.strategy(), row.strategy, "{preset}");
        assert_eq!(b.base(), row.base, "{preset}");
        assert_eq!(b.multiplier(), row.multiplier, "{preset}");
        if let Some(factor) = row.factor {
            assert_eq!(b.factor(), factor, "{preset}");
        }
        assert_eq!(b.max_delay(), row.max_delay, "{preset}");
        assert_eq!(b.max_attempts(), row.max_attempts, "{preset}");
        assert_eq!(b.deadline(), row.deadline, "{preset}");
        assert_eq!(b.cap_mode(), row.cap_mode, "{preset}");
        assert_eq!(b.seed(), None, "{preset}: a preset must not share a seed across clients");
        let granularity = (preset == Preset::Google).then_some(ms(1));
        assert_eq!(b.granularity(), granularity, "{preset}: only google truncates to whole ms");
        assert_eq!(preset.builder().build(), Ok(b), "{preset}: builder and backoff agree");
    }
}
