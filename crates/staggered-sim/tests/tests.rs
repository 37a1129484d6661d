//! Integration tests of the simulator: one binary, one module per concern.

/// A change to a scenario's parameters that its validation refuses: the
/// field it names first, and how its message starts.
type Case<P> = (fn(&mut P), &'static str, &'static str);

mod reproduction {
    //! The 2015 experiment: the simulation reproduces the published means at
    //! N = 100, and the published conclusions.
    //!
    //! # Tolerance
    //! Each published figure is itself the mean of 100 runs of a different
    //! random stream, so ours and theirs differ by the sampling error of two
    //! means: a standard deviation of `sqrt(2) * SE`, with `SE` our standard
    //! error over 100 runs. Measured over 40 seeds (release build), our means
    //! scatter exactly that much (sd of the 40 means ~ per-run sd / 10):
    //!
    //! | strategy | calls: mean of means, sd of means | time: mean of means, sd of means | published |
    //! |---|---|---|---|
    //! | none | 2423.0, 3.5 | 2028, 5.3 | 2421 / 2027 |
    //! | exponential | 1855.9, 5.9 | 63561, 350 | 1853 / 62862 |
    //! | equal | 812.4, 0.72 | 6604, 57 | 812 / 6658 |
    //! | full | 796.0, 0.72 | 4909, 56 | 797 / 4879 |
    //! | decorrelated | 1002.0, 3.5 | 4604, 94 | 1002 / 4530 |
    //!
    //! Every published figure lies within 1.5 of those standard deviations of
    //! our mean of means, except exponential's time at 2.0 (700 units, 1.1%,
    //! low): a published figure is one draw of a mean, each is that far out
    //! with probability 0.05, so one of ten is unsurprising, and no other
    //! figure hints at a model difference. The
    //! test allows [`Z`] times `sqrt(2) * SE` plus [`MARGIN`] of the
    //! published value, for its truncation to whole numbers (the Python code
    //! prints `%d`) and for float-level differences of reading (ties, the
    //! order of additions). That is 1% to 4% of each figure, while an
    //! off-by-one in the retry numbering (first ceiling 5 or 20 instead of
    //! 10) moves the jittered strategies' calls by 10% to 16% (measured).

    use std::sync::OnceLock;

    use staggered::Strategy;
    use staggered_sim::{ContentionParams, ContentionReport, ContentionStrategy, Experiment};

    /// Standard deviations of the difference allowed: a correct model fails
    /// one comparison with probability about 6e-5, and the seed is fixed.
    const Z: f64 = 4.0;
    /// Relative margin for the published figures' rounding and reading.
    const MARGIN: f64 = 0.005;

    /// The 2015 figures at N = 100: (strategy, calls, time).
    const PUBLISHED: [(&str, f64, f64); 5] = [
        ("none", 2421.0, 2027.0),
        ("exponential", 1853.0, 62862.0),
        ("equal", 812.0, 6658.0),
        ("full", 797.0, 4879.0),
        ("decorrelated", 1002.0, 4530.0),
    ];

    /// The published experiment at N = 100 (500 runs: under a second in a
    /// debug build), simulated once for all the tests of this module.
    fn published_point() -> &'static ContentionReport {
        static REPORT: OnceLock<ContentionReport> = OnceLock::new();
        REPORT.get_or_init(|| {
            let params = ContentionParams { clients: "100".parse().unwrap(), ..ContentionParams::default() };
            assert_eq!(params.runs, 100);
            params.run().unwrap()
        })
    }

    fn strategy(name: &str) -> ContentionStrategy {
        name.parse().unwrap()
    }

    #[test]
    fn reproduces_the_published_means_at_100_clients() {
        let report = published_point();
        let mut failures = Vec::new();
        for (name, calls, time) in PUBLISHED {
            let row = report.row(100, strategy(name)).unwrap();
            for (measure, summary, published) in [("calls", row.calls, calls), ("time", row.time, time)] {
                let tolerance = Z * 2f64.sqrt() * summary.std_error() + MARGIN * published;
                let gap = summary.mean - published;
                if gap.abs() > tolerance {
                    failures.push(format!(
                        "{name} {measure}: {:.1} vs published {published} (gap {gap:.1}, tolerance {tolerance:.1})",
                        summary.mean
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn reproduces_the_published_conclusions_at_100_clients() {
        let report = published_point();
        let row = |name| report.row(100, strategy(name)).unwrap();
        let (none, exponential, equal, full, decorrelated) =
            (row("none"), row("exponential"), row("equal"), row("full"), row("decorrelated"));

        // Jitter roughly halves the work of plain exponential backoff
        // (published ratios: 0.44, 0.43, 0.54).
        for jittered in [equal, full, decorrelated] {
            let ratio = jittered.mean_calls() / exponential.mean_calls();
            assert!((0.35..0.65).contains(&ratio), "{}: {ratio}", jittered.strategy);
        }

        let reading = report.reading(100).unwrap();
        // Full jitter does the least work, and not by noise.
        assert_eq!(reading.work.best.strategy, strategy("full"));
        assert_eq!(reading.work.runner_up.unwrap().strategy, strategy("equal"));
        assert!(reading.work.best.differs_from(&reading.work.runner_up.unwrap()));

        // Exponential is the clear loser on time, and on work among the
        // strategies that back off (none, which does not, makes more calls).
        assert_eq!(reading.time.worst.strategy, strategy("exponential"));
        for other in [equal, full, decorrelated] {
            assert!(exponential.mean_calls() > 1.5 * other.mean_calls(), "{}", other.strategy);
            assert!(exponential.mean_time() > 9.0 * other.mean_time(), "{}", other.strategy);
        }

        // Decorrelated finishes soonest among the strategies that back off.
        // "none" finishes sooner still, in the published figures too (2027
        // against 4530), at three times the calls.
        assert!(decorrelated.mean_time() < full.mean_time());
        assert!(full.mean_time() < equal.mean_time());
        assert_eq!(reading.time.best.strategy, strategy("none"));
        assert!(none.mean_calls() > 3.0 * full.mean_calls());
        assert_eq!(reading.time.runner_up.unwrap().strategy, strategy("decorrelated"));
        let backing_off = report.reading_if(100, |s| s != ContentionStrategy::NoBackoff).unwrap();
        assert_eq!(backing_off.time.best.strategy, strategy("decorrelated"));
        assert!(backing_off.time.best.differs_from(&backing_off.time.runner_up.unwrap()));
        assert_eq!(backing_off.work.worst.strategy, strategy("exponential"));
    }

    #[test]
    fn the_published_mapping_is_the_library_schedule() {
        // What the clients walk at the published parameters, in 2015 terms.
        let params = ContentionParams::default();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        for (strategy, backoff) in params.strategies.iter().zip(params.schedules().unwrap()) {
            let expected_base = match strategy {
                ContentionStrategy::NoBackoff => 0.0,
                ContentionStrategy::Backoff(Strategy::Decorrelated) => 5.0,
                _ => 10.0,
            };
            assert_eq!(ms(backoff.base()), expected_base, "{strategy}");
            assert_eq!(ms(backoff.max_delay()), 2000.0, "{strategy}");
            assert_eq!(backoff.max_attempts(), None, "{strategy}");
        }
    }
}

mod determinism {
    use std::num::NonZeroUsize;

    use staggered_sim::{ContentionParams, ContentionStrategy, Experiment, Progress};

    fn small() -> ContentionParams {
        ContentionParams {
            clients: "10,40".parse().unwrap(),
            runs: 12,
            seed: 99,
            ..ContentionParams::default()
        }
    }

    #[test]
    fn same_seed_same_report_on_any_number_of_threads() {
        let reports: Vec<_> = [1, 2, 3, 7]
            .into_iter()
            .map(|threads| {
                small().run_with_progress(&Progress::on_threads(NonZeroUsize::new(threads).unwrap())).unwrap()
            })
            .collect();
        for report in &reports[1..] {
            // Bit-identical rows; the runs differ only in threads.
            assert_eq!(report.rows(), reports[0].rows());
        }
        assert_eq!(small().run().unwrap(), small().run().unwrap());
    }

    #[test]
    fn different_seeds_give_different_reports() {
        let a = small().run().unwrap();
        let b = ContentionParams { seed: 100, ..small() }.run().unwrap();
        assert_ne!(a.rows(), b.rows());
        // Every point differs, not just one.
        for (x, y) in a.rows().iter().zip(b.rows()) {
            assert_ne!(x.time.mean, y.time.mean, "{} at {}", x.strategy, x.clients);
        }
    }

    #[test]
    fn a_point_does_not_depend_on_the_rest_of_the_experiment() {
        let full: ContentionStrategy = "full".parse().unwrap();
        let alone = ContentionParams {
            clients: "40".parse().unwrap(),
            strategies: "full".parse().unwrap(),
            ..small()
        };
        let alone = alone.run().unwrap();
        let among_others = small().run().unwrap();
        assert_eq!(alone.row(40, full), among_others.row(40, full));
        // Runs are independent draws: their outcomes differ.
        let config = small();
        let runs: Vec<_> = (0..4).map(|run| config.simulate(40, full, run).unwrap()).collect();
        assert!(runs.windows(2).all(|w| w[0] != w[1]), "{runs:?}");
    }
}

mod strategies {
    use staggered_sim::values::{List, Units};
    use staggered_sim::{ContentionParams, ContentionStrategy, Experiment};

    fn at_30(change: impl FnOnce(&mut ContentionParams)) -> ContentionParams {
        let mut params =
            ContentionParams { clients: "30".parse().unwrap(), runs: 10, ..ContentionParams::default() };
        change(&mut params);
        params
    }

    #[test]
    fn every_spec_strategy_can_be_simulated() {
        let all = "none,constant,exponential,full,equal,decorrelated,proportional,additive,smooth";
        let params = ContentionParams {
            clients: "20".parse().unwrap(),
            runs: 5,
            strategies: all.parse().unwrap(),
            ..Default::default()
        };
        let report = params.run().unwrap();
        assert_eq!(report.rows().len(), 9);
        for row in report.rows() {
            // Every client succeeds exactly once, so at least N calls.
            assert!(row.calls.min >= 20.0, "{}: {:?}", row.strategy, row.calls);
            assert!(row.time.max.is_finite() && row.time.min > 0.0, "{}: {:?}", row.strategy, row.time);
        }
    }

    #[test]
    fn base_and_cap_reach_the_schedules() {
        // A larger base slows every backoff strategy down but leaves none alone.
        let config = |base| at_30(|p| p.base = Units(base)).run().unwrap();
        let (small, large) = (config(5.0), config(50.0));
        for (a, b) in small.rows().iter().zip(large.rows()) {
            if a.strategy == ContentionStrategy::NoBackoff {
                assert_eq!(a, b);
            } else {
                assert!(b.time.mean > a.time.mean, "{}", a.strategy);
            }
        }
        let capped = at_30(|p| p.cap = Units(40.0));
        let exponential = capped.schedules().unwrap()[1];
        let _: &List<ContentionStrategy> = &capped.strategies;
        assert_eq!(exponential.max_delay(), std::time::Duration::from_millis(40));
    }
}

mod engine {
    //! The event queue's order, as a property: against sorting, and against
    //! a plain binary heap of (time, scheduling order) on random workloads
    //! that grow and shrink, with exact ties, handled by `pop` and by `step`.

    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use proptest::prelude::*;
    use staggered_sim::Engine;

    /// A small deterministic generator for the workloads (wyrand).
    struct Draws(u64);

    impl Draws {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
            let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
            (t as u64) ^ ((t >> 64) as u64)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1_u64 << 53) as f64
        }
    }

    /// The reference: events by (time bits, scheduling order), popped smallest first.
    #[derive(Default)]
    struct Reference {
        heap: BinaryHeap<Reverse<(u64, u64, u64)>>,
        scheduled: u64,
    }

    impl Reference {
        fn schedule(&mut self, at: f64, id: u64) {
            self.heap.push(Reverse(((at + 0.0).to_bits(), self.scheduled, id)));
            self.scheduled += 1;
        }
        fn pop(&mut self) -> Option<(f64, u64)> {
            self.heap.pop().map(|Reverse((at, _, id))| (f64::from_bits(at), id))
        }
    }

    /// A delay from `now`: none at all (a tie with the event just handled),
    /// a whole number of units (ties between events), a spread of
    /// `spread` units, a rare far one, or infinity.
    fn delay(draws: &mut Draws, spread: f64, ties: u64) -> f64 {
        match draws.below(100) {
            0 => f64::INFINITY,
            1..=2 => 1e9 * draws.unit(),
            n if n < 3 + ties * 10 => draws.below(4) as f64,
            n if n < 8 + ties * 10 => 0.0,
            _ => spread * draws.unit(),
        }
    }

    /// Drives `engine` and the reference through the same workload: grow
    /// to `peak` pending events, shrink to none, grow to a third of it and
    /// drain, handling events by `pop` and by `step` in turn; checks every
    /// event handled, and the clock.
    fn same_order(seed: u64, peak: usize, spread: f64, ties: u64) -> Result<usize, TestCaseError> {
        let mut draws = Draws(seed);
        let mut engine = Engine::new();
        let mut reference = Reference::default();
        let mut id = 0;
        let mut handled = 0;
        for (target, grow) in [(peak, true), (0, false), (peak / 3, true), (0, false)] {
            while if grow { engine.len() < target } else { !engine.is_empty() } {
                // While growing, two of three actions schedule; while
                // shrinking, one of five (a step schedules one too).
                let schedule = if grow { draws.below(3) < 2 } else { draws.below(5) == 0 };
                if schedule {
                    let at = engine.now() + delay(&mut draws, spread, ties);
                    engine.schedule_at(at, id);
                    reference.schedule(at, id);
                    id += 1;
                    continue;
                }
                let expected = reference.pop();
                let got = if draws.below(2) == 0 {
                    engine.pop().map(|e| (engine.now(), e))
                } else {
                    // The handled event schedules one at the same time, in
                    // the heap's in-place path, and so must the reference.
                    let mut got = None;
                    let follow = delay(&mut draws, spread, ties);
                    let follow_id = id;
                    engine.step(|now, e| {
                        got = Some((now, e));
                        Some((now + follow, follow_id))
                    });
                    if let Some((now, _)) = got {
                        reference.schedule(now + follow, follow_id);
                        id += 1;
                    }
                    got
                };
                prop_assert_eq!(got.map(|(t, e)| (t.to_bits(), e)), expected.map(|(t, e)| (t.to_bits(), e)));
                prop_assert_eq!(engine.len(), reference.heap.len());
                handled += 1;
            }
        }
        prop_assert_eq!(engine.pop(), None);
        Ok(handled)
    }

    #[test]
    fn events_scheduled_while_running_are_relative_to_now_and_reset_starts_over() {
        let mut engine = Engine::new();
        engine.schedule_in(2.0, 'a');
        assert_eq!(engine.pop(), Some('a'));
        engine.schedule_in(0.0, 'b');
        engine.schedule_in(0.5, 'c');
        assert_eq!(engine.len(), 2);
        assert_eq!((engine.pop(), engine.now()), (Some('b'), 2.0));
        assert_eq!((engine.pop(), engine.now()), (Some('c'), 2.5));
        assert!(engine.is_empty());
        engine.schedule_in(1.0, 'd');
        engine.reset();
        assert!(engine.is_empty());
        assert_eq!(engine.now(), 0.0);
        engine.schedule_at(0.5, 'e');
        assert_eq!(engine.pop(), Some('e'));
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
    fn refuses_the_past() {
        let mut engine = Engine::new();
        engine.schedule_in(2.0, ());
        engine.pop();
        engine.schedule_at(1.0, ());
    }

    #[test]
    #[should_panic(expected = "before the current time")]
    fn refuses_nan() {
        Engine::new().schedule_at(f64::NAN, ());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn pops_like_a_reference_heap(
            seed in any::<u64>(),
            peak in 1_usize..5000,
            spread in prop::sample::select(vec![1e-9, 0.5, 20.0, 2000.0, 1e7]),
            ties in 0_u64..4,
        ) {
            same_order(seed, peak, spread, ties)?;
        }
    }

    proptest! {
        #[test]
        fn pops_by_time_then_schedule_order(times in prop::collection::vec(0u8..6, 0..64)) {
            let mut engine = Engine::new();
            for (id, &at) in times.iter().enumerate() {
                engine.schedule_at(f64::from(at), id);
            }
            let mut expected: Vec<(f64, usize)> =
                times.iter().enumerate().map(|(id, &at)| (f64::from(at), id)).collect();
            expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut popped = Vec::new();
            while let Some(id) = engine.pop() {
                popped.push((engine.now(), id));
            }
            prop_assert_eq!(popped, expected);
        }

        #[test]
        fn step_never_goes_back_in_time(delays in prop::collection::vec(0.0f64..50.0, 1..64)) {
            let mut engine = Engine::new();
            for (i, &d) in delays.iter().enumerate() {
                engine.schedule_at(d, i);
            }
            let mut last = 0.0;
            let mut handled = 0;
            while engine.step(|now, i| {
                assert!(now >= last);
                last = now;
                handled += 1;
                (i < 200).then(|| (now + delays[i % delays.len()], i + delays.len()))
            }) {}
            prop_assert!(handled >= delays.len());
        }
    }
}

/// Each scenario's parameters: their defaults, the types their values read
/// and write as, and a validation that names the field at fault.
mod parameters {
    use std::fmt::{Debug, Display};
    use std::num::NonZeroUsize;
    use std::str::FromStr;
    use std::time::Duration;

    use staggered_sim::frontier::{Candidate, Entry, FrontierParams, FrontierReport};
    use staggered_sim::values::{
        self, Capacity, Clients, Fraction, List, Rate, Share, Span, Units, Values, Window,
    };
    use staggered_sim::{
        ContentionParams, ContentionStrategy, Experiment, Progress, ThrottlingParams, Work, MAX_CLIENTS,
        MAX_TOTAL_RUNS,
    };

    /// `text` parsed, written back, and parsed again to the same value.
    fn round_trip<T: FromStr<Err = String> + Display + PartialEq + Debug>(text: &str) -> T {
        let value: T = text.parse().unwrap();
        assert_eq!(value.to_string().parse::<T>().unwrap(), value, "{text}");
        value
    }

    #[test]
    fn each_value_type_reads_its_forms_and_writes_what_reads_back() {
        assert_eq!(round_trip::<Rate>(" 2.5e3/s ").0, 2500.0);
        assert_eq!(round_trip::<Rate>("700").to_string(), "700/s");
        assert_eq!(round_trip::<Fraction>("1%").0, 0.01);
        assert_eq!(round_trip::<Share>("3").0, 3.0);
        assert_eq!(round_trip::<Units>("2.5").0, 2.5);
        assert_eq!(round_trip::<Span>("1.5s").0, Duration::from_millis(1500));
        let window = Window::Between(Duration::from_secs(10), Duration::from_secs(15));
        assert_eq!((round_trip::<Window>("10s..15s"), round_trip::<Window>("None")), (window, Window::None));
        assert_eq!(round_trip::<Capacity>("50%"), Capacity::Share(0.5));
        assert_eq!(round_trip::<Capacity>("500/s"), Capacity::Rate(500.0));
        assert_eq!(Capacity::Rate(250.0).share_of(1000.0), 0.25);
        assert_eq!(round_trip::<Values>("1..2/0.5, 7").0, [1.0, 1.5, 2.0, 7.0]);
        assert_eq!(
            round_trip::<Values>("0.1..0.3/0.1").0,
            [0.1, 0.2, 0.3],
            "as written, not 0.30000000000000004"
        );
        assert_eq!(round_trip::<Values>("1..1.9/0.5").0, [1.0, 1.5], "TO is a bound, not a value");
        assert_eq!(round_trip::<Clients>("10..190/10").to_string(), "10..190/10");
        assert_eq!(round_trip::<Clients>("5,1..3,20..40/10,7").to_string(), "5,1..3/1,20..40/10,7");
        assert_eq!(round_trip::<Clients>("1,2,4,8").to_string(), "1,2,4,8");
        assert_eq!("10,50,100".parse::<Clients>().unwrap().0, [10, 50, 100]);
        assert_eq!(" 5 , 1..3 , 20..45/10".parse::<Clients>().unwrap().0, [5, 1, 2, 3, 20, 30, 40]);
        assert_eq!("1..10/99999999999".parse::<Clients>().unwrap().0, [1]);
        assert_eq!("1..1000/1".parse::<Clients>().unwrap().0.len(), Clients::MAX_POINTS);
        assert_eq!(round_trip::<List<ContentionStrategy>>("NONE, full").to_string(), "none,full");
    }

    #[test]
    fn each_value_type_says_what_is_wrong() {
        fn err<T: FromStr<Err = String> + Debug>(text: &str) -> String {
            text.parse::<T>().unwrap_err()
        }
        assert_eq!(err::<Rate>("0"), "the rate must be above 0 requests per second");
        for bad in ["-1", "abc", "700/min", "inf", "NaN", "", "/s"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
        assert_eq!(err::<Fraction>("2"), "must be between 0 and 1 (0% and 100%)");
        for bad in ["-0.1", "101%", "x", "NaN", "%"] {
            assert!(bad.parse::<Fraction>().is_err(), "{bad}");
        }
        assert_eq!(err::<Share>("-1"), "must be at least 0");
        assert!(err::<Units>("5ms").starts_with("\"5ms\" is not a number: contention counts"));
        assert_eq!(err::<Units>("1e300"), "1e300 is not a positive number of time units up to 1e12");
        assert_eq!(err::<Window>("15s..10s"), "the trigger must start before it ends: 15s is not before 10s");
        assert!(err::<Window>("10..15s").starts_with("the start: missing unit"));
        assert_eq!(err::<Capacity>("0x"), "the capacity must be above 0");
        for bad in ["0", "-5", "x", "half", "NaNx"] {
            assert!(bad.parse::<Capacity>().is_err(), "{bad}");
        }
        for (bad, message) in [
            ("3..1/1", "range 3..1/1 counts down: FROM must not exceed TO"),
            ("1..3", "range 1..3 needs a positive step, such as 1..3/0.5"),
            ("1..3/0", "range 1..3/0 needs a positive step, such as 1..3/0.5"),
            ("0..1e300/1e-300", "more than 1000 values"),
            ("1,,2", "empty list item: expected numbers and ranges such as 2, 1,1.5,2 or 1..3/0.5"),
        ] {
            assert_eq!(err::<Values>(bad), message);
        }
        for garbage in ["x", "1..", "..3/1", "1..3/x", "NaN", "inf", "1..2..3/1"] {
            assert!(err::<Values>(garbage).contains("is not a number or a range"), "{garbage}");
        }
        for (bad, message) in [
            ("0..10/5", "client count 0 is not between 1 and 100000"),
            ("100001", "client count 100001 is not between 1 and 100000"),
            ("99999999999999999999999", "client count 99999999999999999999999 is not between 1 and 100000"),
            ("10..5/1", "range 10..5/1 counts down: FROM must not exceed TO"),
            ("10..190/0", "range 10..190/0 has step 0: the step must be at least 1"),
            ("1..1000,5", "1001 client counts are more than the limit of 1000"),
            ("10,,20", "empty list item: expected counts and ranges such as 100, 10,50,100 or 10..190/10"),
        ] {
            assert_eq!(err::<Clients>(bad), message, "{bad}");
        }
        for garbage in ["abc", "-5", "+5", "1e3", "10..", "..10", "10..20/x", "1...5", "10-20", "½"] {
            assert!(err::<Clients>(garbage).contains("is not a count or a range"), "{garbage}");
        }
        assert!(err::<List<ContentionStrategy>>("full,fibonacci")
            .starts_with("unknown strategy \"fibonacci\": expected one of none,"));
    }

    #[test]
    fn counts_and_seeds_say_their_range() {
        assert_eq!((values::count("5"), values::count(" 7 "), values::count("0")), (Ok(5), Ok(7), Ok(0)));
        assert_eq!(values::count("4294967295"), Ok(u32::MAX));
        assert_eq!(values::count("-1"), Err("must be at least 1".to_owned()));
        assert_eq!(values::count("4294967296"), Err("must be at most 4294967295".to_owned()));
        assert_eq!(values::count("1.5"), Err("must be a whole number from 1 to 4294967295".to_owned()));
        assert_eq!((values::seed("0"), values::seed("18446744073709551615")), (Ok(0), Ok(u64::MAX)));
        for bad in ["-1", "18446744073709551616", "seed", ""] {
            assert_eq!(
                values::seed(bad),
                Err("a seed is a whole number from 0 to 18446744073709551615".to_owned())
            );
        }
    }

    /// The first field an error names, and its message.
    fn invalid<P: Experiment + Default>(change: impl FnOnce(&mut P)) -> (&'static str, String) {
        let mut params = P::default();
        change(&mut params);
        let err = params.validate().unwrap_err();
        (err.fields()[0], err.to_string())
    }

    #[test]
    fn contention_is_the_published_grid_and_names_the_field_at_fault() {
        let params = ContentionParams::default();
        assert_eq!((params.clients.to_string(), params.runs), ("10..190/10".to_owned(), 100));
        assert_eq!(params.strategies.0, ContentionStrategy::PUBLISHED);
        assert_eq!(params.work(), Work { total: 1900 * 5 * 100, unit: "clients" });
        assert_eq!(params.validate(), Ok(()));
        let full: ContentionStrategy = "full".parse().unwrap();
        let cases: [super::Case<ContentionParams>; 12] = [
            (|p| p.clients.0.clear(), "clients", "invalid clients: give at least one client count"),
            (|p| p.clients.0 = vec![10, 0], "clients", "invalid clients 0: must be between 1 and 100000"),
            (|p| p.clients.0 = vec![10, 20, 10], "clients", "invalid clients: 10 is given twice"),
            (|p| p.runs = 0, "runs", "invalid runs 0: must be at least 1"),
            (|p| p.strategies.0.clear(), "strategies", "invalid strategies: give at least one strategy"),
            (
                |p| p.strategies = "full,full".parse().unwrap(),
                "strategies",
                "invalid strategies: full is given twice",
            ),
            (|p| p.hop_mean = -1.0, "hop_mean", "invalid hop-mean -1: must be a finite number, at least 0"),
            (
                |p| p.hop_sd = f64::INFINITY,
                "hop_sd",
                "invalid hop-sd inf: must be a finite number, at least 0",
            ),
            (|p| p.runs = 1_000_000, "runs", "invalid runs, clients and strategies: 95000000 runs in all"),
            (
                |p| (p.clients.0, p.runs) = (vec![MAX_CLIENTS], 3),
                "runs",
                "invalid runs, clients and strategies: 1.500e11 calls at worst (N^2 for a run of N clients",
            ),
            (|p| p.cap = Units(9.0), "cap", "invalid cap 9: below exponential's first delay, 10 time units"),
            (
                |p| p.base = Units(3000.0),
                "cap",
                "invalid cap 2000: below exponential's first delay, 6000 time units",
            ),
        ];
        for (change, field, message) in cases {
            let (at, err) = invalid(change);
            assert_eq!(at, field, "{err}");
            assert!(err.starts_with(message), "{err}");
        }
        // One run of each published strategy at the largest client count is allowed.
        let largest =
            ContentionParams { clients: Clients(vec![MAX_CLIENTS]), runs: 1, ..ContentionParams::default() };
        assert_eq!(largest.validate(), Ok(()));
        // A list past the limit is refused by its length before any pass over it.
        let counts = (0..=MAX_TOTAL_RUNS).map(|i| 1 + (i % 7) as u32).collect();
        let long = ContentionParams {
            clients: Clients(counts),
            runs: 1,
            strategies: List(vec![full]),
            ..Default::default()
        };
        assert!(long.validate().unwrap_err().to_string().contains("10000001 runs in all"));
    }

    fn frontier() -> FrontierParams {
        FrontierParams {
            families: "full,smooth".parse().unwrap(),
            scales: "1,3".parse().unwrap(),
            multipliers: "1.5".parse().unwrap(),
            clients: "8,16".parse().unwrap(),
            runs: 3,
            ..FrontierParams::default()
        }
    }

    #[test]
    fn a_frontier_s_references_are_the_contention_experiment_s_and_threads_do_not_matter() {
        let params = frontier();
        let mut reports = Vec::new();
        for threads in [1, 2] {
            let progress = Progress::on_threads(NonZeroUsize::new(threads).unwrap());
            reports.push(params.run_with_progress(&progress).unwrap());
            assert_eq!(progress.done(), params.work().total);
            assert_eq!(params.work().total, (8 + 16) * (4 + 4) * 3);
        }
        assert_eq!(reports[0].rows(), reports[1].rows());
        for row in params.contention().run().unwrap().rows() {
            let entry = Entry::Reference(row.strategy);
            let frontier = reports[0].rows().iter().find(|r| r.clients == row.clients && r.entry == entry);
            assert_eq!(frontier.map(|f| (f.calls, f.time)), Some((row.calls, row.time)));
        }
        // A candidate does not depend on the others.
        let alone = FrontierParams {
            families: "smooth".parse().unwrap(),
            scales: "3".parse().unwrap(),
            ..frontier()
        };
        let smooth3 = |report: &FrontierReport| {
            let rows = report.rows().iter().filter(|r| r.entry.name() == "smooth(scale 3)");
            rows.map(|r| (r.calls, r.time)).collect::<Vec<_>>()
        };
        assert_eq!(smooth3(&reports[0]).len(), 2);
        assert_eq!(smooth3(&reports[0]), smooth3(&alone.run().unwrap()));
    }

    #[test]
    fn a_frontier_sweeps_every_family_by_the_values_it_reads_and_names_the_field_at_fault() {
        let params = FrontierParams {
            families: "smooth,floored".parse().unwrap(),
            scales: "1,2".parse().unwrap(),
            multipliers: "1.5".parse().unwrap(),
            floors: "0,0.2".parse().unwrap(),
            ..FrontierParams::default()
        };
        let names: Vec<String> = params.candidates().iter().map(Candidate::name).collect();
        assert_eq!(
            names,
            [
                "smooth(scale 1)",
                "smooth(scale 2)",
                "floored(scale 1, multiplier 1.5, floor 0)",
                "floored(scale 1, multiplier 1.5, floor 0.2)",
                "floored(scale 2, multiplier 1.5, floor 0)",
                "floored(scale 2, multiplier 1.5, floor 0.2)",
            ]
        );
        assert!(params.has_target());
        assert_eq!(FrontierParams::default().candidates().len(), 6 * 3 + 6 * 3 * 3);
        let cases: [super::Case<FrontierParams>; 16] = [
            (|p| p.families.0.clear(), "families", "invalid families: give at least one family"),
            (|p| p.families = "full,full".parse().unwrap(), "families", "invalid families: full is given twice"),
            (|p| p.scales.0.clear(), "scales", "invalid scales: give at least one value"),
            (|p| p.scales = "1,1".parse().unwrap(), "scales", "invalid scales: 1 is given twice"),
            (|p| p.scales = "-1".parse().unwrap(), "scales", "invalid scale -1: must be a positive number"),
            (|p| p.multipliers = "0.9".parse().unwrap(), "multipliers", "invalid multiplier 0.9: must be a finite number, at least 1"),
            (|p| p.floors.0.clear(), "floors", "invalid floors: give at least one value"),
            (|p| p.floors = "1.2".parse().unwrap(), "floors", "invalid floor 1.2: must be between 0 and 1"),
            (|p| p.margin = Share(f64::NAN), "margin", "invalid margin NaN: must be a finite fraction, at least 0"),
            (|p| p.scales = "300".parse().unwrap(), "scales", "invalid scale for full(scale 300, multiplier 1.5): its first interval, 3000 time units, is above the cap, 2000"),
            (|p| p.references = "full,full".parse().unwrap(), "references", "invalid strategies: full is given twice"),
            (|p| p.clients = Clients(vec![0]), "clients", "invalid clients 0: must be between 1 and 100000"),
            (|p| p.runs = 0, "runs", "invalid runs 0: must be at least 1"),
            (|p| p.runs = 1_000_000, "runs", "invalid runs, clients and families: 76000000 runs in all"),
            (
                |p| (p.clients.0, p.runs) = (vec![MAX_CLIENTS], 2),
                "runs",
                "invalid runs, clients and families: 1.520e12 calls at worst",
            ),
            (
                |p| (p.scales, p.multipliers) = ("1..200/1".parse().unwrap(), "1..60/1".parse().unwrap()),
                "families",
                "invalid families, scales, multipliers and floors: 48000 candidates",
            ),
        ];
        for (change, field, message) in cases {
            let (at, err) = invalid(change);
            assert_eq!(at, field, "{err}");
            assert!(err.starts_with(message), "{err}");
        }
        // A family that does not read a list does not need it.
        let smooth = FrontierParams {
            families: "smooth".parse().unwrap(),
            multipliers: Values(vec![]),
            floors: Values(vec![]),
            ..frontier()
        };
        assert_eq!(smooth.validate(), Ok(()));
        let without_target = FrontierParams { references: "full".parse().unwrap(), ..frontier() };
        assert!(!without_target.has_target());
        assert_eq!(without_target.notes()[0].0, "references");
    }

    #[test]
    fn throttling_offers_twice_the_limit_and_names_the_field_at_fault() {
        let params = ThrottlingParams::default();
        assert_eq!((params.clients, params.arrival_rate.0, params.rate_limit.0), (20, 1000.0, 500.0));
        assert_eq!((params.buckets(), params.validate()), (60, Ok(())));
        let cases: [super::Case<ThrottlingParams>; 11] = [
            (|p| p.duration = Span(Duration::from_millis(999)), "duration", "invalid duration 999ms"),
            (|p| p.clients = 0, "clients", "invalid clients 0: must be from 1 to 100000"),
            (|p| p.hop = Span(Duration::from_secs(11)), "hop", "invalid hop 11s: must be at most 10s"),
            (|p| p.policies.0.clear(), "policies", "invalid policies: give at least one policy"),
            (|p| p.policies = "retry+ratio".parse().unwrap(), "policies", "unknown policy \"retry+ratio\": expected one of no-retry, retry, retry+token-bucket, adaptive, adaptive-tracking"),
            (|p| p.timeout = Span(Duration::ZERO), "timeout", "invalid timeout 0s: must be from 1ms to 24h"),
            (|p| p.max_token_wait = Span(Duration::from_secs(90_000)), "max_token_wait", "invalid max_token_wait 25h"),
            (|p| p.limiter_beta = 2.0, "limiter_beta", "invalid limiter for adaptive: invalid beta"),
            (|p| p.attempts = 0, "attempts", "invalid max_attempts 0"),
            (|p| p.base = Span(Duration::from_secs(2)), "cap", "invalid max_delay 1s: must not be below base (2s)"),
            (
                |p| p.duration = Span(Duration::from_secs(20_000)),
                "arrival_rate",
                "invalid arrival-rate and duration: 20000000 operations expected, at most 10000000 (the clients' \
                 queues are held in memory)",
            ),
        ];
        for (change, field, message) in cases {
            let (at, err) = invalid(change);
            assert_eq!(at, field, "{err}");
            assert!(err.starts_with(message), "{err}");
        }
        let quiet = ThrottlingParams { policies: "no-retry".parse().unwrap(), ..ThrottlingParams::default() };
        let notes: Vec<&str> = quiet.notes().iter().map(|(field, _)| *field).collect();
        assert!(notes.contains(&"attempts") && notes.contains(&"limiter_beta"), "{notes:?}");
    }
}

mod overload {
    //! The overload scenario: without a budget, retries turn a 5-second
    //! capacity drop into a failure that outlasts it (metastable); each of
    //! the library's budgets lets the server recover, keeps amplification at
    //! or below 1.25x once drained, and costs nothing when failures are rare.
    //!
    //! Every claim is checked on the default scenario itself (60 s, all five
    //! policies): all five take about 0.4 s in a debug build. Over seeds 0 to
    //! 39 (release), `retry` never recovered, the token bucket and the
    //! throttle recovered in 3 to 4 s, the ratio budget in 12 to 15 s, and
    //! the worst amplification once drained was 1.146 (1.223 over the
    //! ratio budget's worst 10-second window).

    use std::num::NonZeroUsize;
    use std::sync::OnceLock;
    use std::time::Duration;

    use staggered_sim::values::{Capacity, Fraction, Jitter, Rate, Span, Window};
    use staggered_sim::{Experiment, OverloadParams, OverloadReport, Policy, Progress};

    /// The claim: once a budget has drained, attempts per first attempt.
    const DRAINED_AMPLIFICATION: f64 = 1.25;

    /// How much goodput a budget may lose with rare failures: 0.1 percentage
    /// point. With a 1% error rate about 1% of operations need a retry and
    /// the unbudgeted ones fail only when all 3 attempts do (1 in 10^6), so a
    /// budget that refused a tenth of those retries would already lose 0.1
    /// point; the runs share their arrivals and server draws, so there is no
    /// sampling noise to allow for beyond that.
    const RARE_FAILURE_TOLERANCE: f64 = 0.001;

    const BUDGETS: [Policy; 3] = [Policy::TokenBucket, Policy::Ratio, Policy::Throttle];

    /// The default scenario, simulated once for the tests of this module.
    fn scenario() -> &'static OverloadReport {
        static REPORT: OnceLock<OverloadReport> = OnceLock::new();
        REPORT.get_or_init(|| OverloadParams::default().run().unwrap())
    }

    #[test]
    fn without_a_budget_retries_never_recover() {
        let report = scenario();
        let retry = report.row(Policy::Retry).unwrap();
        assert!(!retry.recovered, "{:?}", retry.recovery_time);
        assert_eq!(retry.recovery_time, None);
        // Every attempt times out, so every operation makes all 3: the
        // server gets 2100 requests a second for a capacity of 1000.
        assert!(retry.amplification_after.unwrap() > 2.95, "{:?}", retry.amplification_after);
        let after_trigger = &retry.series.goodput[16..];
        assert!(after_trigger.iter().all(|&n| n == 0), "{after_trigger:?}");
        // The trigger alone is survivable: without retries the backlog drains.
        let no_retry = report.row(Policy::NoRetry).unwrap();
        assert!(no_retry.recovered);
        assert!(no_retry.recovery_time.unwrap() <= Duration::from_secs(6), "{:?}", no_retry.recovery_time);
    }

    #[test]
    fn with_each_budget_the_server_recovers() {
        let report = scenario();
        let retry = report.row(Policy::Retry).unwrap();
        for policy in BUDGETS {
            let row = report.row(policy).unwrap();
            assert!(row.recovered, "{policy}");
            assert!(
                row.recovery_time.unwrap() <= Duration::from_secs(20),
                "{policy}: {:?}",
                row.recovery_time
            );
            assert!(row.goodput > 3.0 * retry.goodput, "{policy}: {} vs {}", row.goodput, retry.goodput);
            assert!(row.refused > 0, "{policy} never refused a retry");
        }
    }

    #[test]
    fn amplification_stays_within_one_and_a_quarter_once_drained() {
        for policy in BUDGETS {
            let row = scenario().row(policy).unwrap();
            let drained = row.amplification_drained.unwrap();
            assert!(drained <= DRAINED_AMPLIFICATION, "{policy}: {drained}");
            // Not only on average: over every 10 s from the first whole
            // second after the drain (the ratio budget's own window).
            let from = row.drained_at.unwrap().as_secs_f64().ceil() as usize;
            let (arrivals, offered) = (&row.series.arrivals, &row.series.offered);
            for start in from..=arrivals.len() - 10 {
                let sum = |v: &[u32]| v[start..start + 10].iter().sum::<u32>();
                let window = f64::from(sum(arrivals)) / f64::from(sum(offered));
                assert!(window <= DRAINED_AMPLIFICATION, "{policy}: {window} from {start} s");
            }
        }
        // The buckets hold every single second under the bound too; the ratio
        // budget does not: when the withdrawals of its first burst leave the
        // window (10 s later) it allows a new burst, over 2x for a second.
        for policy in [Policy::TokenBucket, Policy::Throttle] {
            let peak = scenario().row(policy).unwrap().peak_amplification_drained.unwrap();
            assert!(peak <= DRAINED_AMPLIFICATION, "{policy}: {peak}");
        }
        let ratio = scenario().row(Policy::Ratio).unwrap();
        assert!(ratio.peak_amplification_drained.unwrap() > 2.0, "{ratio:?}");
    }

    #[test]
    fn rare_failures_cost_the_budgets_nothing() {
        let params =
            OverloadParams { trigger: Window::None, error_rate: Fraction(0.01), ..OverloadParams::default() };
        let report = params.run().unwrap();
        let retry = report.row(Policy::Retry).unwrap();
        let no_retry = report.row(Policy::NoRetry).unwrap();
        assert!(retry.goodput > 0.999, "{}", retry.goodput);
        assert!((0.985..0.995).contains(&no_retry.goodput), "{}", no_retry.goodput);
        for policy in BUDGETS {
            let row = report.row(policy).unwrap();
            assert!(
                (row.goodput - retry.goodput).abs() <= RARE_FAILURE_TOLERANCE,
                "{policy}: {} vs {}",
                row.goodput,
                retry.goodput
            );
            assert_eq!(row.refused, 0, "{policy}");
            assert!(row.recovered && row.recovery_time == Some(Duration::ZERO), "{policy}");
        }
    }

    #[test]
    fn same_seed_same_report_on_any_number_of_threads() {
        // 20.5 s: 21 buckets, the last one shorter, each counted as progress.
        let config = OverloadParams {
            duration: Span(Duration::from_millis(20_500)),
            seed: 7,
            ..OverloadParams::default()
        };
        assert_eq!((config.buckets(), config.work().total), (21, 21 * 5));
        let reports: Vec<_> = [1, 2, 3]
            .into_iter()
            .map(|threads| {
                let progress = Progress::on_threads(NonZeroUsize::new(threads).unwrap());
                let report = config.run_with_progress(&progress).unwrap();
                assert_eq!(progress.done(), config.work().total);
                report
            })
            .collect();
        assert_eq!(config.simulate(Policy::Ratio).unwrap(), reports[0].rows()[3]);
        let trigger = (Duration::from_secs(10), Duration::from_secs(15), 0.5);
        assert_eq!(OverloadParams::default().trigger(), Some(trigger));
        for report in &reports[1..] {
            assert_eq!(report.rows(), reports[0].rows());
        }
        // A policy's row does not depend on the others.
        let alone = OverloadParams { policies: "retry+ratio".parse().unwrap(), ..config.clone() };
        assert_eq!(alone.run().unwrap().rows()[0], *reports[0].row(Policy::Ratio).unwrap());
        // Another seed gives other draws for every policy.
        let other = OverloadParams { seed: 8, ..config }.run().unwrap();
        for (a, b) in reports[0].rows().iter().zip(other.rows()) {
            assert_ne!(a.series, b.series, "{}", a.policy);
        }
    }

    #[test]
    fn every_policy_meets_the_same_offered_load() {
        let report = scenario();
        let offered = &report.rows()[0].series.offered;
        assert!(report.rows().iter().all(|row| row.series.offered == *offered));
        assert_eq!(
            report.rows().iter().map(|row| row.policy).collect::<Vec<_>>(),
            OverloadParams::default().policies.0
        );
    }

    #[test]
    fn rejects_each_bad_parameter_by_name() {
        let secs = |s| Span(Duration::from_secs(s));
        let with = |change: fn(&mut OverloadParams)| {
            let mut params = OverloadParams::default();
            change(&mut params);
            params.validate().unwrap_err()
        };
        let cases: [super::Case<OverloadParams>; 16] = [
            (|p| p.duration = Span(Duration::from_millis(999)), "duration", "invalid duration 999ms"),
            (
                |p| p.duration = Span(Duration::from_secs(100_000)),
                "duration",
                "invalid duration 27h46m40s: must be between 1s and 24h",
            ),
            (|p| p.timeout = Span(Duration::ZERO), "timeout", "invalid timeout 0s"),
            (
                |p| p.trigger = Window::Between(Duration::from_secs(15), Duration::from_secs(10)),
                "trigger",
                "invalid trigger 15s..10s: must start before it ends",
            ),
            (
                |p| p.trigger = Window::Between(Duration::from_secs(50), Duration::from_secs(61)),
                "trigger",
                "invalid trigger 50s..1m1s: ends after the run's duration, 1m",
            ),
            (|p| p.trigger_capacity = Capacity::Share(0.0), "trigger_capacity", "invalid trigger-capacity 0"),
            (|p| p.policies.0.clear(), "policies", "invalid policies: give at least one"),
            (
                |p| p.policies = "retry,retry".parse().unwrap(),
                "policies",
                "invalid policies: retry is given twice",
            ),
            (|p| p.attempts = 0, "attempts", "invalid max_attempts 0"),
            (|p| p.ratio_ttl = Span(Duration::ZERO), "ratio_ttl", "invalid budget for retry+ratio"),
            (|p| p.throttle_max_tokens = 0, "throttle_max_tokens", "invalid budget for retry+throttle"),
            (
                |p| p.throttle_token_ratio = 20.0,
                "throttle_token_ratio",
                "invalid budget for retry+throttle: invalid token_ratio 20",
            ),
            (|p| p.recovery_threshold = Fraction(0.0), "recovery_threshold", "invalid recovery-threshold 0"),
            (
                |p| p.recovery_window = Span(Duration::from_millis(5500)),
                "recovery_window",
                "invalid recovery-window 5.5s",
            ),
            (|p| p.arrival_rate = Rate(1e7), "arrival_rate", "invalid arrival-rate and duration"),
            (
                |p| (p.arrival_rate, p.attempts) = (Rate(1e6), 100),
                "attempts",
                "invalid attempts, arrival-rate and duration: 6.000e9 attempts at worst (60000000 operations expected x \
                 max_attempts 100, if every attempt fails), more than the limit of 1e9",
            ),
        ];
        for (change, field, message) in cases {
            let err = with(change);
            assert_eq!(err.fields()[0], field, "{err}");
            assert!(err.to_string().starts_with(message), "{err:?} does not start with {message:?}");
        }
        let _ = (secs(1), Jitter(staggered::Strategy::Full));
        assert_eq!(
            "bogus".parse::<Policy>().unwrap_err(),
            "unknown policy \"bogus\": expected one of no-retry, retry, retry+token-bucket, retry+ratio, \
             retry+throttle, adaptive, adaptive-tracking, adaptive+headers, hedge, hedge+learned, hedge+ratio"
        );
    }
}

/// Every report is plain data: it serializes with its configuration, and
/// presents itself in the common shape whose records match its rows.
mod reports {
    use std::time::Duration;

    use staggered::Preset;
    use staggered_sim::values::Span;
    use staggered_sim::{ContentionParams, Experiment, OverloadParams, Present, ScheduleQuery};

    #[test]
    fn a_contention_report_serializes_its_configuration_and_rows() {
        let params =
            ContentionParams { clients: "5".parse().unwrap(), runs: 2, ..ContentionParams::default() };
        let report = params.run().unwrap();
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["config"]["clients"], "5");
        assert_eq!(json["config"]["strategies"][4], "decorrelated");
        assert_eq!(json["rows"][3]["strategy"], "full");
        assert_eq!(json["rows"][3]["calls"]["mean"], report.rows()[3].calls.mean);
        assert_eq!(report.present().records.rows.len(), report.rows().len());
    }

    #[test]
    fn an_overload_report_serializes_durations_and_budgets_as_people_write_them() {
        let params = OverloadParams {
            duration: Span(Duration::from_secs(20)),
            policies: "retry,retry+ratio".parse().unwrap(),
            ..OverloadParams::default()
        };
        let report = params.run().unwrap();
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["config"]["duration"], "20s");
        assert_eq!(json["config"]["trigger"], "10s..15s");
        assert_eq!(json["backoff"]["max_attempts"], 3);
        assert_eq!(json["config"]["bucket_capacity"], 500);
        assert_eq!(json["config"]["ratio_ttl"], "10s");
        assert_eq!(json["rows"][1]["policy"], "retry+ratio");
        assert_eq!(json["rows"][0]["series"]["offered"].as_array().unwrap().len(), 20);
        let view = report.present();
        assert_eq!(view.records.rows.len(), 2);
        assert_eq!(view.chart.unwrap().panels.len(), 2);
    }

    #[test]
    fn a_schedule_report_presents_its_samples_as_records() {
        let report =
            ScheduleQuery::new(Preset::Standard.backoff()).with_sampling(4, Some(1)).unwrap().report(0);
        let view = report.present();
        assert_eq!(view.records.columns, ["sample", "retry", "delay_ms"]);
        assert_eq!(view.records.rows.len(), 4 * report.rows.len());
        let json = serde_json::to_value(view.json()).unwrap();
        assert_eq!(json["retries_shown"], report.rows.len());
    }
}

mod throttling {
    //! The throttling scenario: against a server that admits half the
    //! offered load, retries add attempts and no goodput, the standard
    //! mode's quota refuses most of them, and the adaptive limiter throttles
    //! at most half as often as retries, at the same goodput, sending near
    //! the limit; with a limit of twice the offered load nothing is
    //! throttled and the adaptive mode gives exactly retry's results.
    //!
    //! Checked on a small fleet (5 clients offering 200/s against 100/s for
    //! 30 s, about 0.2 s in a debug build) with the default run's ratios;
    //! the default run itself (20 clients, 1000/s against 500/s, 60 s) is in
    //! the guide: adaptive throttles 1.64% of its attempts against retry's
    //! 78.72%, at the same goodput (50.95% against 50.96%), sending 508/s.

    use std::num::NonZeroUsize;
    use std::sync::OnceLock;
    use std::time::Duration;

    use staggered_sim::values::{Rate, Span};
    use staggered_sim::{
        Experiment, Policy, Present, Progress, ThrottlingParams, ThrottlingReport, ThrottlingRow,
    };

    /// The claims, as the guide states them: adaptive throttles at most
    /// this share of retry's throttled fraction...
    const THROTTLED_SHARE: f64 = 0.5;
    /// ...with goodput at most this much lower (2 percentage points)...
    const GOODPUT_LOSS: f64 = 0.02;
    /// ...and a send rate over the last half within this share of the limit.
    const SETTLED: f64 = 0.25;

    /// A small fleet with the default's proportions: twice the limit offered.
    fn small() -> ThrottlingParams {
        ThrottlingParams {
            clients: 5,
            arrival_rate: Rate(200.0),
            rate_limit: Rate(100.0),
            duration: Span(Duration::from_secs(30)),
            ..ThrottlingParams::default()
        }
    }

    fn scenario() -> &'static ThrottlingReport {
        static REPORT: OnceLock<ThrottlingReport> = OnceLock::new();
        REPORT.get_or_init(|| small().run().unwrap())
    }

    fn row(report: &ThrottlingReport, policy: Policy) -> &ThrottlingRow {
        report.row(policy).unwrap()
    }

    #[test]
    fn adaptive_throttles_at_most_half_as_often_as_retry_at_the_same_goodput() {
        let report = scenario();
        let retry = row(report, Policy::Retry);
        let adaptive = row(report, Policy::Adaptive);
        assert!(retry.throttled_fraction > 0.5, "{retry:?}");
        assert!(adaptive.throttled_fraction <= THROTTLED_SHARE * retry.throttled_fraction, "{adaptive:?}");
        assert!(adaptive.goodput >= retry.goodput - GOODPUT_LOSS, "{adaptive:?} against {retry:?}");
        let limit = small().rate_limit.0;
        assert!((adaptive.send_rate / limit - 1.0).abs() <= SETTLED, "{}", adaptive.send_rate);
        // What the server could not take waited at the clients, up to the
        // token wait's bound, and was shed there.
        let bound = small().max_token_wait.0.as_secs_f64();
        assert!(adaptive.wait_p99 > retry.wait_p99 && adaptive.wait_p99 <= bound, "{adaptive:?}");
        assert!(adaptive.shed > adaptive.operations / 3 && retry.shed == 0, "{adaptive:?}");
    }

    #[test]
    fn retries_add_attempts_not_goodput_and_the_quota_refuses_most() {
        let report = scenario();
        let no_retry = row(report, Policy::NoRetry);
        let retry = row(report, Policy::Retry);
        let standard = row(report, Policy::TokenBucket);
        assert_eq!(no_retry.attempts_per_operation, no_retry.attempts as f64 / no_retry.operations as f64);
        assert!(no_retry.attempts <= no_retry.operations);
        assert!((0.4..0.6).contains(&no_retry.throttled_fraction), "{no_retry:?}");
        assert!((retry.goodput - no_retry.goodput).abs() < 0.01, "{retry:?} against {no_retry:?}");
        assert!(retry.attempts_per_operation > 2.0, "{retry:?}");
        assert!(standard.refused > standard.operations / 3, "{standard:?}");
        assert!(standard.attempts_per_operation < retry.attempts_per_operation);
        assert!(standard.throttled_fraction < retry.throttled_fraction);
        // The server admits its limit and a second's worth of tokens at most.
        let most = small().rate_limit.0 * 31.0;
        for row in report.rows() {
            assert!((row.succeeded as f64) <= most, "{row:?}");
            // Every admitted attempt succeeded, in time or late, unless its
            // answer was still on its way at the end.
            let admitted = row.attempts - row.throttled;
            let answered = row.succeeded + row.late;
            assert!(answered <= admitted && admitted - answered <= row.unfinished, "{row:?}");
            assert_eq!(row.series.offered, report.rows()[0].series.offered, "one offered load");
        }
    }

    #[test]
    fn with_a_limit_of_twice_the_load_nothing_is_throttled_and_adaptive_is_retry() {
        let report = ThrottlingParams { rate_limit: Rate(400.0), ..small() }.run().unwrap();
        for row in report.rows() {
            assert_eq!((row.throttled, row.refused), (0, 0), "{row:?}");
        }
        let retry = row(&report, Policy::Retry);
        for policy in [Policy::Adaptive, Policy::Tracking] {
            let mut same = row(&report, policy).clone();
            same.policy = Policy::Retry;
            assert_eq!(same, *retry);
        }
        assert!(report.paragraphs()[0].starts_with("Nothing was throttled"));
    }

    /// The most of its attempts a client told the server's quota may see
    /// throttled, from the first second on.
    const ANNOUNCED_THROTTLED: f64 = 0.01;

    #[test]
    fn a_client_told_the_quota_is_not_throttled_from_the_first_second() {
        let policies = "adaptive,adaptive+headers".parse().unwrap();
        let announced = ThrottlingParams { announce: true, policies, ..small() };
        for params in [announced.clone(), ThrottlingParams { clients: 8, ..announced.clone() }] {
            let report = params.run().unwrap();
            let told = row(&report, Policy::AdaptiveHeaders);
            let adaptive = row(&report, Policy::Adaptive);
            assert!(told.throttled_fraction <= ANNOUNCED_THROTTLED, "{told:?}");
            assert!(told.throttled < adaptive.throttled, "{told:?} against {adaptive:?}");
            // Paced to the limit, not below it.
            let limit = params.rate_limit.0;
            assert!((told.send_rate / limit - 1.0).abs() <= SETTLED, "{}", told.send_rate);
            assert!(told.goodput >= adaptive.goodput - GOODPUT_LOSS, "{told:?} against {adaptive:?}");
        }
        // Without the announcement there is nothing to read: the same run as adaptive.
        let silent = ThrottlingParams { announce: false, ..announced }.run().unwrap();
        let mut same = row(&silent, Policy::AdaptiveHeaders).clone();
        same.policy = Policy::Adaptive;
        assert_eq!(same, *row(&silent, Policy::Adaptive));
        assert!(!serde_json::to_string(silent.config()).unwrap().contains("announce"), "off is not written");
    }

    #[test]
    fn threads_seeds_and_single_policies_agree() {
        let report = small().run_with_progress(&Progress::on_threads(NonZeroUsize::MIN)).unwrap();
        assert_eq!(report.rows(), scenario().rows());
        assert_eq!(small().simulate(Policy::Adaptive).unwrap(), report.rows()[3]);
        let other = ThrottlingParams { seed: 7, ..small() }.run().unwrap();
        assert_ne!(other.rows()[0].series.offered, report.rows()[0].series.offered);
    }

    #[test]
    fn the_report_serializes_and_presents_itself() {
        let report = scenario();
        let json = serde_json::to_value(report).unwrap();
        assert_eq!(json["config"]["duration"], "30s");
        assert_eq!(json["config"]["hop"], "10ms");
        assert_eq!(json["config"]["limiter_beta"], 0.7);
        assert_eq!(json["config"]["bucket_throttled_cost"], 5);
        assert_eq!(json["rows"][3]["policy"], "adaptive");
        assert_eq!(json["rows"][0]["series"]["arrivals"].as_array().unwrap().len(), 30);
        assert_eq!(json["config"]["timeout"], "5s");
        assert_eq!(json["rows"][4]["policy"], "adaptive-tracking");
        let view = report.present();
        assert_eq!(view.records.rows.len(), 5);
        assert_eq!(view.chart.unwrap().panels.len(), 5);
        assert_eq!(view.notes.len(), 4, "{:?}", view.notes);
    }

    /// The tracking mode's promise, at the default point and three others
    /// (a few clients each sending a large share of the limit, many
    /// sending a small one): over the last half it sends within a tenth
    /// of the limit, at most 5% of its attempts are throttled, its goodput
    /// is at most a point below retry's, and no operation waits past the
    /// caller's timeout. The AWS SDKs' mode falls short of the limit with
    /// two clients: why it is not the default's replacement everywhere
    /// (it throttles less elsewhere), and why tracking is offered.
    /// The tracking mode over a grid of fleets and limits, each client its
    /// own limiter, offering twice the limit to a server whose bucket holds
    /// 20 requests (nginx's `limit_req ... burst=20`): over the last half of
    /// 30 s the fleet sends within 5% of the limit wherever each client's
    /// share is at least one request a second, and throttles at most 5% of
    /// its attempts wherever that share is at least 4 a second. Below it a
    /// client sees too few responses to learn from (a shared limiter is the
    /// answer there, as the guide says); the fleet still keeps within 10%
    /// of the limit down to a share of 1 a second.
    #[test]
    fn tracking_finds_and_holds_the_limit_over_a_grid_of_fleets_and_limits() {
        let mut misses = vec![];
        for limit in [10.0, 50.0, 200.0, 1000.0, 5000.0] {
            for clients in [1, 4, 16, 64, 100] {
                let share = limit / clients as f64;
                if share < 1.0 {
                    continue;
                }
                let params = ThrottlingParams {
                    clients,
                    arrival_rate: Rate(2.0 * limit),
                    rate_limit: Rate(limit),
                    rate_limit_burst: Span(Duration::from_secs_f64(20.0 / limit)),
                    duration: Span(Duration::from_secs(30)),
                    policies: "adaptive-tracking".parse().unwrap(),
                    ..ThrottlingParams::default()
                };
                let report = params.run().unwrap();
                let tracking = row(&report, Policy::Tracking);
                let off = tracking.send_rate / limit - 1.0;
                if off.abs() > 0.05 || (share >= 4.0 && tracking.throttled_fraction > 0.05) {
                    misses.push(format!(
                        "{clients} clients against {limit}/s: send rate {:.0}/s, {:.2}% throttled",
                        tracking.send_rate,
                        100.0 * tracking.throttled_fraction
                    ));
                }
            }
        }
        assert!(misses.is_empty(), "{misses:#?}");
    }

    #[test]
    fn tracking_holds_the_limit_at_every_tested_point() {
        let point = |clients, offered, limit, seed| ThrottlingParams {
            clients,
            arrival_rate: Rate(offered),
            rate_limit: Rate(limit),
            seed,
            policies: "retry,adaptive,adaptive-tracking".parse().unwrap(),
            ..ThrottlingParams::default()
        };
        let points = [
            point(20, 1000.0, 500.0, 2015),
            point(8, 1200.0, 800.0, 99),
            point(50, 3000.0, 1000.0, 2015),
            point(2, 400.0, 300.0, 2015),
        ];
        for params in points {
            let report = params.run().unwrap();
            let (retry, tracking) = (row(&report, Policy::Retry), row(&report, Policy::Tracking));
            let limit = params.rate_limit.0;
            let at = format!(
                "{} clients, {}/s against {}/s: {tracking:?}",
                params.clients, params.arrival_rate.0, limit
            );
            assert!((tracking.send_rate / limit - 1.0).abs() <= 0.1, "{at}");
            assert!(tracking.throttled_fraction <= 0.05, "{at}");
            assert!(tracking.goodput >= retry.goodput - 0.01, "{at} against {retry:?}");
            assert!(tracking.wait_p99 <= params.timeout.0.as_secs_f64(), "{at}");
            if params.clients == 2 {
                let aws = row(&report, Policy::Adaptive);
                assert!(aws.send_rate < 0.9 * limit && aws.goodput < retry.goodput - 0.05, "{aws:?}");
            }
        }
    }
}

mod hedging {
    //! The hedging scenario: at light load with a 1% stall, hedging at the
    //! learned 95th percentile cuts no-retry's 99.9th percentile at least
    //! 5 times for at most 10% more attempts; near the capacity the
    //! budgeted hedge sends no more copies than its budget's share, and
    //! unbudgeted hedging at a fixed delay does the server harm that the
    //! budget spares it, though not all: the budgeted hedge still lowers
    //! goodput there (in this model any extra work near the capacity
    //! does, as the queue overflows sooner).
    //!
    //! Checked at 10% and 90% of the capacity with 20,000 operations per
    //! load level and policy (about a second in a debug build); the default
    //! run (eight load levels, 100,000 operations each) is in the guide.

    use std::num::NonZeroUsize;
    use std::sync::OnceLock;
    use std::time::Duration;

    use staggered_sim::values::{Fraction, Span};
    use staggered_sim::{Experiment, HedgingParams, HedgingReport, HedgingRow, Policy, Present, Progress};

    /// The claims at light load: the p99.9 at least this many times lower...
    const TAIL_CUT: u32 = 5;
    /// ...for at most this share of extra attempts.
    const EXTRA_ATTEMPTS: f64 = 0.10;

    /// The default scenario at a light load and near the capacity, smaller.
    fn small() -> HedgingParams {
        HedgingParams { loads: "0.1,0.9".parse().unwrap(), operations: 20_000, ..HedgingParams::default() }
    }

    fn scenario() -> &'static HedgingReport {
        static REPORT: OnceLock<HedgingReport> = OnceLock::new();
        REPORT.get_or_init(|| small().run().unwrap())
    }

    fn row(load: f64, policy: Policy) -> &'static HedgingRow {
        scenario().row(load, policy).unwrap()
    }

    #[test]
    fn at_light_load_hedging_at_the_learned_p95_cuts_the_tail_for_few_attempts() {
        let none = row(0.1, Policy::NoRetry);
        let learned = row(0.1, Policy::HedgeLearned);
        // The stalls (1 s) are 1% of requests: no-retry's p99.9 is one.
        assert!(none.p999.unwrap() > Duration::from_secs(1), "{none:?}");
        assert!(learned.p999.unwrap() * TAIL_CUT <= none.p999.unwrap(), "{learned:?}");
        assert!(learned.attempts_per_operation <= 1.0 + EXTRA_ATTEMPTS, "{learned:?}");
        assert!(learned.hedge_wins > 0 && learned.goodput >= none.goodput, "{learned:?}");
        // The fixed delay does as well; a retry after a timeout cuts less,
        // as it gives up the attempt it abandons.
        let fixed = row(0.1, Policy::Hedge);
        assert!(fixed.p999.unwrap() * TAIL_CUT <= none.p999.unwrap(), "{fixed:?}");
        let retry = row(0.1, Policy::Retry);
        assert!(retry.p999.unwrap() > learned.p999.unwrap(), "{retry:?}");
        // Hedging does not slow the median.
        assert_eq!(learned.p50, none.p50);
    }

    #[test]
    fn near_the_capacity_the_budget_bounds_the_copies_and_spares_the_server() {
        let config = small();
        let none = row(0.9, Policy::NoRetry);
        let budgeted = row(0.9, Policy::HedgeRatio);
        let fixed = row(0.9, Policy::Hedge);
        // The budget's steady share, and once its reserve (10/s over 10 s,
        // full from the start), which a run this short spends on top.
        let reserve = f64::from(config.ratio_min_per_sec) * config.ratio_ttl.0.as_secs_f64();
        let allowed = config.budget_share(0.9) + reserve / f64::from(config.operations);
        let extra = budgeted.attempts_per_operation - 1.0;
        assert!(extra <= allowed, "{extra} above {allowed}");
        assert!(budgeted.refused > 0, "{budgeted:?}");
        // Unbudgeted, nearly every request waits past the delay in the
        // queue and is copied: the server does nearly twice the work and
        // rejects much more, and goodput falls far.
        assert!(fixed.attempts_per_operation > 1.5, "{fixed:?}");
        assert!(fixed.goodput < none.goodput - 0.1, "{fixed:?} against {none:?}");
        assert!(fixed.rejected > 10 * none.rejected, "{fixed:?}");
        // The budget spares the server most of that, not all: at 90% of
        // the capacity the copies it allows still cost goodput (as the
        // guide says, with the default run's figures).
        assert!(budgeted.goodput > fixed.goodput + 0.1, "{budgeted:?} against {fixed:?}");
        assert!(budgeted.goodput < none.goodput - 0.01, "{budgeted:?} against {none:?}");
    }

    #[test]
    fn the_counts_add_up() {
        for row in scenario().rows() {
            assert_eq!(row.goodput, row.succeeded as f64 / row.operations as f64, "{row:?}");
            assert_eq!(row.operations, 20_000);
            match row.policy {
                Policy::NoRetry => assert_eq!((row.attempts, row.hedges, row.cut), (row.operations, 0, 0)),
                // A copy is sent for each one hedged or refused: at most one each beyond the first.
                Policy::Hedge | Policy::HedgeLearned | Policy::HedgeRatio => {
                    assert_eq!(row.attempts, row.operations + row.hedges, "{row:?}");
                    assert!(row.hedges + row.refused <= row.operations, "{row:?}");
                    assert!(row.hedge_wins <= row.hedges && row.cut == 0, "{row:?}");
                }
                _ => assert!(row.attempts <= 3 * row.operations && row.hedges == 0, "{row:?}"),
            }
            if row.policy != Policy::HedgeRatio {
                assert_eq!(row.refused, 0, "{row:?}");
            }
            // What the server served and no client waited for was a loser or cut.
            assert!(row.wasted <= row.attempts - row.rejected - row.succeeded, "{row:?}");
        }
    }

    #[test]
    fn a_deadline_cuts_every_copy_and_attempt() {
        let deadline = Duration::from_millis(200);
        let params = HedgingParams {
            loads: "0.1".parse().unwrap(),
            operations: 5_000,
            deadline: Some(Span(deadline)),
            ..HedgingParams::default()
        };
        let report = params.run().unwrap();
        let none = report.row(0.1, Policy::NoRetry).unwrap();
        // The stalled operations fail at the deadline, and are "failed" in the p99.9.
        assert!((0.985..0.995).contains(&none.goodput), "{none:?}");
        assert_eq!(none.p999, None);
        assert_eq!(none.cut, none.operations - none.succeeded);
        for row in report.rows() {
            assert!(row.p99.is_none_or(|p99| p99 < deadline), "{row:?}");
        }
    }

    #[test]
    fn threads_seeds_and_single_points_agree() {
        let config = HedgingParams { operations: 2_000, ..small() };
        let progress = Progress::on_threads(NonZeroUsize::MIN);
        let report = config.run_with_progress(&progress).unwrap();
        assert_eq!(progress.done(), config.work().total);
        assert_eq!(config.run().unwrap().rows(), report.rows());
        assert_eq!(
            config.simulate(0.9, Policy::HedgeLearned).unwrap(),
            *report.row(0.9, Policy::HedgeLearned).unwrap()
        );
        // A load's rows do not depend on the other loads.
        let alone = HedgingParams { loads: "0.9".parse().unwrap(), ..config.clone() }.run().unwrap();
        assert_eq!(alone.rows(), &report.rows()[5..]);
        let other = HedgingParams { seed: 7, ..config }.run().unwrap();
        assert_ne!(other.rows()[0].p99, report.rows()[0].p99);
    }

    #[test]
    fn names_the_field_at_fault() {
        let with = |change: fn(&mut HedgingParams)| {
            let mut params = HedgingParams::default();
            change(&mut params);
            params.validate().unwrap_err()
        };
        let cases: [super::Case<HedgingParams>; 13] = [
            (|p| p.loads = "0".parse().unwrap(), "loads", "invalid load 0"),
            (|p| p.loads = "11".parse().unwrap(), "loads", "invalid load 11"),
            (|p| p.loads = "0.5,0.5".parse().unwrap(), "loads", "invalid loads: 0.5 is given twice"),
            (|p| p.operations = 0, "operations", "invalid operations 0"),
            (|p| p.operations = 10_000_000, "operations", "invalid operations 10000000: 8 load levels"),
            (|p| p.workers = 0, "workers", "invalid workers 0"),
            (|p| p.service_median = Span(Duration::ZERO), "service_median", "invalid service-median 0s"),
            (|p| p.service_sigma = 3.5, "service_sigma", "invalid service-sigma 3.5"),
            (|p| p.percentile = 1.0, "percentile", "invalid percentile for hedge+learned"),
            (|p| p.hedge_attempts = 6, "hedge_attempts", "invalid hedge-attempts 6"),
            (|p| p.policies = "retry+ratio".parse().unwrap(), "policies", "unknown policy \"retry+ratio\""),
            (|p| p.timeout = Span(Duration::ZERO), "timeout", "invalid timeout 0s"),
            (
                |p| (p.attempts, p.timeout) = (u32::MAX, Span(Duration::from_nanos(1))),
                "attempts",
                "invalid attempts and operations: 4.295e14 attempts at worst (100000 operations at one load \
                 level x max_attempts 4294967295, if every attempt fails), more than the limit of 1e9",
            ),
        ];
        for (change, field, message) in cases {
            let err = with(change);
            assert_eq!(err.fields()[0], field, "{err}");
            assert!(err.to_string().starts_with(message), "{err:?} does not start with {message:?}");
        }
        let _ = Fraction(0.0);
    }

    #[test]
    fn the_report_serializes_and_presents_itself() {
        let report = scenario();
        let json = serde_json::to_value(report).unwrap();
        assert_eq!(json["config"]["stall"], "1s");
        assert_eq!(json["config"]["hedge_delay"], "25ms");
        assert_eq!(
            json["config"]["policies"],
            serde_json::json!(["no-retry", "retry", "hedge", "hedge+learned", "hedge+ratio"])
        );
        assert_eq!(json["rows"][3]["policy"], "hedge+learned");
        let view = report.present();
        assert_eq!(view.records.rows.len(), 10);
        assert_eq!(view.chart.unwrap().panels.len(), 4);
        assert_eq!(view.notes.len(), 3, "{:?}", view.notes);
        assert!(view.notes[0].starts_with("At 10% load, no-retry's p99.9 was 1.0"), "{:?}", view.notes);
    }
}
