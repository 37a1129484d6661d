//! A small timing harness: warm-up, then several rounds timed with
//! [`Instant`], reporting the median (and min) nanoseconds per unit of work.
//!
//! Rounds of all workloads are interleaved (round 1 of each, then round 2 of
//! each, in a rotating order), so a burst of load from another process on a
//! shared machine hits every workload alike instead of one unlucky row.
//! The median is the figure to quote; the min is the least-disturbed round.

use std::time::{Duration, Instant};

/// Something to time: a batch is the smallest repeatable piece of work (for
/// schedules, one sequence of delays), made of [`units_per_batch`] units
/// (delays) that the result is reported per.
///
/// [`units_per_batch`]: Workload::units_per_batch
pub trait Workload {
    /// How many units of work one batch does.
    fn units_per_batch(&self) -> u64;
    /// Runs `batches` batches back to back. Implementations pass their
    /// outputs through [`std::hint::black_box`] so nothing is optimised away.
    fn run(&mut self, batches: u64);
}

impl<W: Workload + ?Sized> Workload for Box<W> {
    fn units_per_batch(&self) -> u64 {
        (**self).units_per_batch()
    }
    fn run(&mut self, batches: u64) {
        (**self).run(batches);
    }
}

/// How long to warm up and how many rounds to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Warm-up per workload, which also calibrates the batches per round.
    pub warmup: Duration,
    /// Timed rounds per workload; the median of these is reported.
    pub rounds: u32,
    /// The target duration of one round.
    pub round_time: Duration,
}

impl Default for Settings {
    /// 200 ms of warm-up and 31 rounds of about 10 ms per workload.
    fn default() -> Self {
        Settings { warmup: Duration::from_millis(200), rounds: 31, round_time: Duration::from_millis(10) }
    }
}

/// The result of timing one workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The median over rounds of nanoseconds per unit.
    pub median_ns: f64,
    /// The fastest round's nanoseconds per unit.
    pub min_ns: f64,
    /// The slowest round's nanoseconds per unit.
    pub max_ns: f64,
    /// Batches in each timed round.
    pub batches_per_round: u64,
    /// Timed rounds.
    pub rounds: u32,
}

/// Warms up each workload, then times `settings.rounds` interleaved rounds
/// of all of them; one [`Timing`] per workload, in order.
pub fn measure<W: Workload>(settings: &Settings, workloads: &mut [W]) -> Vec<Timing> {
    let batches: Vec<u64> = workloads.iter_mut().map(|w| calibrate(w, settings)).collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(settings.rounds as usize); workloads.len()];
    let n = workloads.len();
    for round in 0..settings.rounds as usize {
        for k in 0..n {
            let i = (round + k) % n;
            let elapsed = time(&mut workloads[i], batches[i]);
            let units = batches[i] * workloads[i].units_per_batch();
            samples[i].push(elapsed.as_nanos() as f64 / units as f64);
        }
    }
    samples
        .into_iter()
        .zip(batches)
        .map(|(mut s, batches_per_round)| {
            s.sort_by(f64::total_cmp);
            Timing {
                median_ns: median(&s),
                min_ns: s.first().copied().unwrap_or(f64::NAN),
                max_ns: s.last().copied().unwrap_or(f64::NAN),
                batches_per_round,
                rounds: settings.rounds,
            }
        })
        .collect()
}

/// Runs the workload for at least `settings.warmup`, doubling the batch
/// count, and returns the batches that fill about one `round_time`.
fn calibrate<W: Workload + ?Sized>(workload: &mut W, settings: &Settings) -> u64 {
    let start = Instant::now();
    let mut batches = 1u64;
    loop {
        let elapsed = time(workload, batches);
        if start.elapsed() >= settings.warmup && elapsed >= settings.round_time / 8 {
            let per_batch = elapsed.as_secs_f64() / batches as f64;
            return ((settings.round_time.as_secs_f64() / per_batch) as u64).max(1);
        }
        batches = batches.saturating_mul(2);
    }
}

fn time<W: Workload + ?Sized>(workload: &mut W, batches: u64) -> Duration {
    let start = Instant::now();
    workload.run(batches);
    start.elapsed()
}

/// The median of sorted samples (the mean of the middle two for an even count).
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The command line both bench binaries take: the timing [`Settings`],
/// `--list`, `--once NAME` with a count of work per run, and, where the bench
/// offers it, `--filter TEXT`.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// `--rounds`, `--round-ms`, `--warmup-ms`.
    pub settings: Settings,
    /// `--list`: print the rows and stop.
    pub list: bool,
    /// `--once NAME`: run one row for callgrind.
    pub once: Option<String>,
    /// The work `--once` does (`--sequences` or `--calls`).
    pub count: u64,
    /// `--filter TEXT`: only the rows whose name contains it.
    pub filter: Option<String>,
}

impl Args {
    /// Parses `args`. `count_flag` names the work per `--once` run and
    /// `count` is its default; `--filter` is accepted only if `filter`.
    ///
    /// # Errors
    /// The message to print, for an unknown flag or a bad value.
    pub fn parse(
        args: impl Iterator<Item = String>,
        count_flag: &str,
        count: u64,
        filter: bool,
    ) -> Result<Args, String> {
        let mut parsed = Args { settings: Settings::default(), list: false, once: None, count, filter: None };
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            let mut number = |name: &str| -> Result<u64, String> {
                let v = value(name)?;
                v.parse().map_err(|_| format!("{name}: not a whole number: {v}"))
            };
            let settings = &mut parsed.settings;
            match arg.as_str() {
                // Passed by `cargo bench` to every bench target.
                "--bench" => {}
                "--list" => parsed.list = true,
                "--rounds" => settings.rounds = number("--rounds")?.clamp(1, 10_000) as u32,
                "--round-ms" => settings.round_time = Duration::from_millis(number("--round-ms")?.max(1)),
                "--warmup-ms" => settings.warmup = Duration::from_millis(number("--warmup-ms")?),
                "--once" => parsed.once = Some(value("--once")?),
                "--filter" if filter => parsed.filter = Some(value("--filter")?),
                flag if flag == count_flag => parsed.count = number(count_flag)?,
                other => return Err(format!("unknown argument: {other}")),
            }
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod args_tests {
    use super::*;

    fn parse(text: &str, filter: bool) -> Result<Args, String> {
        Args::parse(text.split_whitespace().map(str::to_owned), "--calls", 7, filter)
    }

    #[test]
    fn parses_the_shared_flags() {
        let args =
            parse("--bench --rounds 5 --round-ms 3 --warmup-ms 0 --once bare --calls 9", false).unwrap();
        assert_eq!((args.settings.rounds, args.settings.round_time), (5, Duration::from_millis(3)));
        assert_eq!((args.once.as_deref(), args.count, args.list), (Some("bare"), 9, false));
        assert_eq!(parse("", false).unwrap().count, 7);
        assert_eq!(parse("--filter ok", true).unwrap().filter.as_deref(), Some("ok"));
        assert_eq!(parse("--filter ok", false).unwrap_err(), "unknown argument: --filter");
        assert_eq!(parse("--sequences 3", false).unwrap_err(), "unknown argument: --sequences");
        assert_eq!(parse("--rounds x", false).unwrap_err(), "--rounds: not a whole number: x");
        assert_eq!(parse("--once", false).unwrap_err(), "--once needs a value");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Spin(u64);

    impl Workload for Spin {
        fn units_per_batch(&self) -> u64 {
            10
        }
        fn run(&mut self, batches: u64) {
            for _ in 0..batches * 10 {
                self.0 = std::hint::black_box(self.0.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn measures_every_workload_in_order() {
        let settings =
            Settings { warmup: Duration::from_millis(2), rounds: 3, round_time: Duration::from_millis(1) };
        let timings = measure(&settings, &mut [Spin(1), Spin(2)]);
        assert_eq!(timings.len(), 2);
        for t in timings {
            assert_eq!(t.rounds, 3);
            assert!(t.batches_per_round >= 1);
            assert!(t.min_ns > 0.0 && t.min_ns <= t.median_ns && t.median_ns <= t.max_ns, "{t:?}");
        }
    }
}
