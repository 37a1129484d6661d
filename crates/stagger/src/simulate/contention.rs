//! The `contention` scenario (SPEC section 8): its options, its run, and its
//! report in the shape the exporters read.

use anyhow::{anyhow, Context};
use staggered_sim::{
    run_contention_with_progress, ContentionConfig, ContentionError, ContentionReport, ContentionStrategy,
};

use super::args::{Opt, SimulateArgs};
use super::config::{parse_clients, show, time_units, MAX_TOTAL_RUNS};
use super::report::{Measure, Point, SimulationReport};
use crate::exit::UsageError;

/// The client count SPEC section 8 publishes figures for, and so the one the
/// reading is about when the list has it.
pub const PUBLISHED_CLIENTS: u32 = 100;

/// Calls per run, then completion time, the two measures of the experiment.
const MEASURES: [Measure; 2] = [
    Measure { key: "calls", label: "calls per run", title: "Calls vs clients", log_scale: false },
    Measure {
        key: "time",
        label: "completion time in time units",
        title: "Completion time vs clients",
        // Plain exponential finishes about 30 times later than the rest.
        log_scale: true,
    },
];

/// Builds the experiment from the options; what is not given keeps the
/// published value.
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<ContentionConfig> {
    let mut builder = ContentionConfig::builder();
    if let Some(list) = &args.clients {
        let clients = parse_clients(list).context(UsageError::option(Opt::Clients.flag()))?;
        builder = builder.with_clients(clients);
    }
    if let Some(runs) = args.runs {
        builder = builder.with_runs(runs);
    }
    if let Some(names) = &args.strategies {
        let strategies = names
            .iter()
            .map(|name| name.trim().parse::<ContentionStrategy>())
            .collect::<Result<Vec<_>, _>>()
            .context(UsageError::option(Opt::Strategies.flag()))?;
        builder = builder.with_strategies(strategies);
    }
    if let Some(seed) = args.seed {
        builder = builder.with_seed(seed);
    }
    let base = args.base.as_deref().map(|base| time_units(base, Opt::Base)).transpose()?;
    let cap = args.cap.as_deref().map(|cap| time_units(cap, Opt::Cap)).transpose()?;
    let defaults = ContentionConfig::published();
    let (base, cap) = (base.unwrap_or(defaults.base()), cap.unwrap_or(defaults.cap()));
    if cap < base {
        let blame = if args.cap.is_some() { Opt::Cap } else { Opt::Base };
        return Err(anyhow!(
            "cap {} is below base {}: the cap must be at least the base",
            show(cap),
            show(base)
        ))
        .context(UsageError::option(blame.flag()));
    }
    let config = builder.with_base(base).with_cap(cap).build().map_err(|err| usage_error(err, base, cap))?;
    if config.total_runs() > MAX_TOTAL_RUNS {
        return Err(anyhow!(
            "{} client counts x {} strategies x {} runs are {} runs, more than the limit of {MAX_TOTAL_RUNS}",
            config.clients().len(),
            config.strategies().len(),
            config.runs(),
            config.total_runs()
        ))
        .context(UsageError::option(Opt::Runs.flag()));
    }
    Ok(config)
}

/// The simulator's error, blamed on the option that set the parameter.
fn usage_error(err: ContentionError, base: f64, cap: f64) -> anyhow::Error {
    let opt = match &err {
        ContentionError::NoClients | ContentionError::Clients(_) | ContentionError::DuplicateClients(_) => {
            Opt::Clients
        }
        ContentionError::ZeroRuns => Opt::Runs,
        ContentionError::Base(_) => Opt::Base,
        ContentionError::Schedule { strategy, .. } => {
            // Base <= cap was checked: the cap is below the first delay of
            // the exponential family, 2 x base.
            let hint = format!(
                "cap {} is below {strategy}'s first delay (2 x base {}); raise --cap",
                show(cap),
                show(base)
            );
            return anyhow::Error::new(err).context(hint).context(UsageError::option(Opt::Cap.flag()));
        }
        ContentionError::Cap(_) => Opt::Cap,
        ContentionError::NoStrategies
        | ContentionError::DuplicateStrategy(_)
        | ContentionError::UnknownStrategy(_) => Opt::Strategies,
        // The hop parameters have no option; a future error may not either.
        _ => return anyhow::Error::new(err).context(UsageError::options()),
    };
    anyhow::Error::new(err).context(UsageError::option(opt.flag()))
}

/// Runs the experiment, calling `progress(done, total)` after each run, and
/// reads it.
pub fn simulate(config: &ContentionConfig, progress: &dyn Fn(usize, usize)) -> SimulationReport {
    to_report(&run_contention_with_progress(config, progress))
}

/// The simulator's report as points, with the parameters and the reading.
pub fn to_report(report: &ContentionReport) -> SimulationReport {
    let points = report
        .rows()
        .iter()
        .map(|row| Point {
            x: row.clients,
            series: row.strategy.name(),
            runs: row.runs(),
            values: vec![row.calls, row.time],
        })
        .collect();
    SimulationReport {
        parameters: parameters(report.config()),
        x: "clients",
        x_label: "clients (N)",
        series: "strategy",
        measures: MEASURES.to_vec(),
        points,
        reading: reading(report),
    }
}

/// The experiment's parameters, as the header of the table.
fn parameters(config: &ContentionConfig) -> Vec<(&'static str, String)> {
    let strategies: Vec<&str> = config.strategies().iter().map(|s| s.name()).collect();
    vec![
        ("scenario", "contention (SPEC section 8, AWS 2015): N clients race to update one row".to_owned()),
        ("strategies", strategies.join(", ")),
        ("runs", format!("{} per point, seed {}", config.runs(), config.seed())),
        (
            "backoff",
            format!(
                "base {}, cap {} time units (2015 convention: the first exponential ceiling is 2 x base)",
                config.base(),
                config.cap()
            ),
        ),
        (
            "network",
            format!(
                "every hop takes abs(Normal({}, {})) time units; time units are the model's own, not ms",
                config.hop_mean(),
                config.hop_sd()
            ),
        ),
    ]
}

/// The reading at [`PUBLISHED_CLIENTS`] if the experiment has it, else at
/// its largest client count; and again among the strategies that back off
/// when `none` ran with at least two of them, since `none` finishes first
/// at three times the calls.
fn reading(report: &ContentionReport) -> Vec<String> {
    let clients = report.config().clients();
    let at = if clients.contains(&PUBLISHED_CLIENTS) {
        PUBLISHED_CLIENTS
    } else {
        clients.iter().copied().max().unwrap_or(PUBLISHED_CLIENTS)
    };
    let backs_off = |s: ContentionStrategy| s != ContentionStrategy::NoBackoff;
    let strategies = report.config().strategies();
    let mut lines: Vec<String> = report.reading(at).map(|r| r.to_string()).into_iter().collect();
    if strategies.contains(&ContentionStrategy::NoBackoff)
        && strategies.iter().filter(|&&s| backs_off(s)).count() >= 2
    {
        if let Some(reading) = report.reading_if(at, backs_off) {
            lines.push(format!("Among the strategies that back off: {reading}"));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;
    use clap::Parser;

    /// `stagger simulate`'s options alone, to parse them as the CLI does.
    #[derive(Debug, Parser)]
    struct Options {
        #[command(flatten)]
        args: SimulateArgs,
    }

    fn config(options: &[&str]) -> anyhow::Result<ContentionConfig> {
        let options = Options::try_parse_from(["simulate"].iter().chain(options)).expect("clap accepts");
        configure(&options.args)
    }

    fn usage_message(options: &[&str]) -> String {
        let err = config(options).unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn defaults_are_the_published_experiment() {
        assert_eq!(config(&[]).unwrap(), ContentionConfig::published());
    }

    #[test]
    fn options_set_the_experiment() {
        let c = config(&[
            "--clients",
            "10..30/10",
            "--runs",
            "7",
            "--strategies",
            "full,none",
            "--seed",
            "9",
            "--base",
            "2.5",
            "--cap",
            "500",
        ])
        .unwrap();
        assert_eq!(c.clients(), [10, 20, 30]);
        assert_eq!(c.runs(), 7);
        assert_eq!(c.strategies().iter().map(|s| s.name()).collect::<Vec<_>>(), ["full", "none"]);
        assert_eq!((c.seed(), c.base(), c.cap()), (9, 2.5, 500.0));
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 11] = [
            (&["--clients", "0"], "invalid value for --clients: client count 0"),
            (&["--clients", "10,20,10"], "invalid value for --clients: invalid clients: 10 is given twice"),
            (&["--strategies", "nope"], "invalid value for --strategies: unknown strategy \"nope\""),
            (&["--strategies", "full,full"], "invalid value for --strategies: "),
            (&["--base", "-1"], "invalid value for --base: -1 is not a positive number"),
            (&["--base", "0"], "invalid value for --base: "),
            (&["--cap", "NaN"], "invalid value for --cap: NaN is not a positive number"),
            (&["--cap", "1", "--base", "5"], "invalid value for --cap: cap 1 is below base 5"),
            (&["--base", "3000"], "invalid value for --base: cap 2000 is below base 3000"),
            (
                &["--base", "5", "--cap", "8"],
                "invalid value for --cap: cap 8 is below exponential's first delay",
            ),
            (&["--base", "1e300", "--cap", "1e300"], "invalid value for --base: 1e300 is not a positive"),
        ];
        for (options, expected) in cases {
            let message = usage_message(options);
            assert!(message.starts_with(expected), "{options:?}: {message}");
        }
        // Decorrelated alone starts at base, so a cap of 8 is fine for it.
        assert!(config(&["--strategies", "decorrelated", "--base", "5", "--cap", "8"]).is_ok());
        let too_many = usage_message(&["--runs", "1000000"]);
        assert!(
            too_many.starts_with("invalid value for --runs: 19 client counts x 5 strategies"),
            "{too_many}"
        );
    }

    fn small_report(clients: &[u32], strategies: &str) -> SimulationReport {
        let list: Vec<String> = clients.iter().map(u32::to_string).collect();
        let c = config(&["--clients", &list.join(","), "--runs", "5", "--strategies", strategies]).unwrap();
        simulate(&c, &|_, _| {})
    }

    #[test]
    fn points_follow_the_rows() {
        let report = small_report(&[5, 8], "none,full");
        assert_eq!(report.xs(), [5, 8]);
        assert_eq!(report.series_names(), ["none", "full"]);
        assert_eq!(report.points.len(), 4);
        for point in &report.points {
            assert_eq!(point.runs, 5);
            assert_eq!(point.values.len(), MEASURES.len());
            assert!(point.values[0].mean >= f64::from(point.x), "every client writes once: {point:?}");
        }
        assert!(report
            .parameters
            .iter()
            .any(|(name, value)| *name == "runs" && value == "5 per point, seed 2015"));
    }

    #[test]
    fn the_reading_is_at_100_or_the_largest_count() {
        let report = small_report(&[5, 8], "none,full");
        assert_eq!(report.reading.len(), 1, "one strategy backs off: no second reading");
        assert!(report.reading[0].starts_with("N = 8: "), "{:?}", report.reading);
        let report = small_report(&[100, 20], "none,full,equal");
        assert_eq!(report.reading.len(), 2);
        assert!(report.reading[0].starts_with("N = 100: "), "{:?}", report.reading);
        assert!(report.reading[1].starts_with("Among the strategies that back off: N = 100: "));
        assert!(!report.reading[1].contains("none"), "{:?}", report.reading);
    }
}
