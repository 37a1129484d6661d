//! `stagger simulate`: run one of the simulator's scenarios and show what it
//! found.
//!
//! The simulator owns every scenario end to end: its validated
//! configuration, the run, the report, its reading, and its presentation in
//! the common report shape. Here are only the flags (the shared ones on
//! [`SimulateArgs`], and one flag group per scenario that builds that
//! scenario's configuration), then one path for every scenario: run with a
//! progress bar, write the chart, export the report.
//!
//! A new scenario is a module beside [`contention`] (its flag group and its
//! `configure`), a variant of [`Scenario`], a field of [`SimulateArgs`], and
//! a line in [`execute`] and in [`check_foreign`].

mod contention;
mod frontier;
mod overload;
mod progress;
mod throttling;

use std::path::PathBuf;

use anyhow::{anyhow, Context};
use staggered_sim::{view, Experiment, Present};

use crate::exit::{Exit, UsageError};
use crate::output::{self, Format};

/// The scenarios `stagger simulate` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// N clients race to update one row with optimistic concurrency (the AWS
    /// Architecture Blog's "Exponential Backoff And Jitter" experiment, 2015).
    Contention,
    /// A server at 70% load loses half its capacity for 5 s while clients
    /// time out and retry, with no budget or under each of the library's
    /// budgets.
    Overload,
    /// Clients offer twice what a rate-limited server admits, with no
    /// retries, retries, the AWS SDKs' standard mode, or their adaptive mode
    /// (the library's adaptive limiter).
    Throttling,
    /// A search in the contention experiment: candidate schedules swept
    /// from families of the library's strategies, their Pareto front of
    /// calls and completion time, and those that do the work of full jitter
    /// in the time of decorrelated jitter.
    Frontier,
}

impl Scenario {
    /// The name, as `--scenario` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Scenario::Contention => "contention",
            Scenario::Overload => "overload",
            Scenario::Throttling => "throttling",
            Scenario::Frontier => "frontier",
        }
    }
}

/// The options of `stagger simulate` (its help text is on
/// [`Command::Simulate`](crate::cli::Command::Simulate)): those every
/// scenario reads, then each scenario's flag group.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The experiment to run.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = Scenario::Contention)]
    pub scenario: Scenario,

    /// Seed of every run's generators: the same seed gives the same output on
    /// every machine, whatever its number of cores [default: 2015].
    #[arg(long, value_name = "S", value_parser = crate::numbers::seed, allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// The backoff base. contention and frontier: a positive number of time
    /// units, in the 2015 convention (the exponential family's first ceiling is 2 x base,
    /// decorrelated's sleep starts at base) [default: 5]. overload and
    /// throttling: a duration, the first retry's ceiling [default: 100ms].
    #[arg(long, value_name = "UNITS|DUR", allow_hyphen_values = true)]
    pub base: Option<String>,

    /// The backoff cap, at least every strategy's first delay. contention and
    /// frontier: a number of time units [default: 2000]. overload and
    /// throttling: a duration, the max_delay [default: 1s].
    #[arg(long, value_name = "UNITS|DUR", allow_hyphen_values = true)]
    pub cap: Option<String>,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Also write a chart to FILE.svg. contention: calls and completion time
    /// against the client count, one line per strategy. overload: offered
    /// load, server arrivals and goodput per second, one panel per policy.
    /// throttling: offered load, attempts sent, the rate limit and goodput
    /// per second, one panel per policy.
    /// frontier: calls against completion time, one panel per client count.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// `--scenario contention`'s options.
    #[command(flatten)]
    pub contention: contention::Flags,

    /// `--scenario overload`'s options.
    #[command(flatten)]
    pub overload: overload::Flags,

    /// `--scenario frontier`'s options.
    #[command(flatten)]
    pub frontier: frontier::Flags,

    /// `--scenario throttling`'s options.
    #[command(flatten)]
    pub throttling: throttling::Flags,
}

/// The flags of a flag group that were given, as typed (`--arrival-rate`):
/// the field name, kebab-cased, as clap derives the flag.
macro_rules! given {
    ($flags:expr; $($field:ident),+ $(,)?) => {
        [$((stringify!($field), $flags.$field.is_some())),+]
            .into_iter()
            .filter(|&(_, given)| given)
            .map(|(field, _)| format!("--{}", field.replace('_', "-")))
            .collect::<Vec<String>>()
    };
}
use given;

/// Runs `stagger simulate` with `args`.
///
/// # Errors
/// A usage error for bad options, or the failure to write the chart or
/// standard output.
pub fn execute(args: &SimulateArgs) -> anyhow::Result<Exit> {
    check_foreign(args)?;
    if let Some(path) = &args.plot {
        output::check_plot_path(path).context(UsageError::option("--plot"))?;
    }
    let report = match args.scenario {
        Scenario::Contention => simulate(contention::configure(args)?),
        Scenario::Overload => simulate(overload::configure(args)?),
        Scenario::Frontier => simulate(frontier::configure(args)?),
        Scenario::Throttling => simulate(throttling::configure(args)?),
    };
    if let Some(path) = &args.plot {
        // Before stdout, so a reader that stops early (`| head`) still gets it.
        let chart = report.chart.as_ref().ok_or_else(|| anyhow!("this scenario has no chart"))?;
        output::write_atomically(path, output::chart(chart)?.as_bytes())
            .with_context(|| format!("cannot write the chart to {}", path.display()))?;
    }
    output::print(&args.format.render(&report)?)?;
    Ok(Exit::Success)
}

/// Warns of the options that change nothing, runs the experiment with a
/// progress bar, and presents its report.
fn simulate<E: Experiment>((experiment, warnings): (E, Vec<String>)) -> view::Report {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    progress::run(&experiment).present()
}

/// Refuses an option of another scenario than the one chosen: it would be
/// ignored, and the user would read results they did not ask for. The
/// frontier runs in the contention experiment, so contention's options
/// are its too; the throttling scenario reads some flags of the others'
/// groups ([`throttling::SHARED`]).
fn check_foreign(args: &SimulateArgs) -> anyhow::Result<()> {
    let groups: [(&[Scenario], Vec<String>); 4] = [
        (&[Scenario::Contention, Scenario::Frontier], args.contention.given()),
        (&[Scenario::Overload], args.overload.given()),
        (&[Scenario::Frontier], args.frontier.given()),
        (&[Scenario::Throttling], args.throttling.given()),
    ];
    let shared = |flag: &String| throttling::SHARED.contains(&flag.as_str());
    for (owners, given) in groups {
        let foreign = given.iter().find(|flag| !(args.scenario == Scenario::Throttling && shared(flag)));
        if let Some(flag) = foreign.filter(|_| !owners.contains(&args.scenario)) {
            // The message names every scenario that reads the flag, the
            // throttling scenario included for the flags it shares.
            let mut owners: Vec<&str> = owners.iter().map(|owner| owner.name()).collect();
            if shared(flag) {
                owners.push(Scenario::Throttling.name());
            }
            return Err(anyhow!(
                "{flag} is an option of --scenario {}; it does not apply to --scenario {}",
                listed(&owners),
                args.scenario.name()
            ))
            .context(UsageError::options());
        }
    }
    Ok(())
}

/// `a`, `a and b`, `a, b and c`.
fn listed(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, Command, Parser};

    /// `stagger simulate`'s options alone, to parse them as the CLI does.
    #[derive(Debug, Parser)]
    pub struct Options {
        #[command(flatten)]
        pub args: SimulateArgs,
    }

    /// `stagger simulate OPTIONS`, parsed.
    pub fn parse(options: &[&str]) -> SimulateArgs {
        Options::try_parse_from(["simulate"].iter().chain(options)).expect("clap accepts").args
    }

    /// The flags of a flag group, as clap defines them.
    pub fn flags_of<A: Args>() -> Vec<String> {
        let command = A::augment_args(Command::new("group"));
        command.get_arguments().filter_map(|arg| arg.get_long()).map(|long| format!("--{long}")).collect()
    }

    #[test]
    fn options_of_the_other_scenario_are_refused() {
        let message = |options: &[&str]| format!("{:#}", check_foreign(&parse(options)).unwrap_err());
        assert_eq!(
            message(&["--clients", "10", "--seed", "1", "--arrival-rate", "5"]),
            "invalid options: --arrival-rate is an option of --scenario overload and throttling; it does \
             not apply to --scenario contention"
        );
        assert!(message(&["--scenario", "overload", "--runs", "3"])
            .contains("--runs is an option of --scenario contention"));
        assert!(check_foreign(&parse(&["--scenario", "overload", "--base", "1s", "--plot", "a.svg"])).is_ok());
        assert!(message(&["--scenario", "overload", "--rate-limit", "5"])
            .contains("--rate-limit is an option of --scenario throttling"));
        assert!(message(&["--scenario", "throttling", "--timeout", "1s"])
            .contains("--timeout is an option of --scenario overload"));
        assert!(message(&["--scenario", "throttling", "--runs", "2"])
            .contains("--runs is an option of --scenario contention"));
        let shared =
            ["--scenario", "throttling", "--clients", "5", "--duration", "9s", "--arrival-rate", "9"];
        assert!(check_foreign(&parse(&[&shared[..], &["--policies", "retry", "--attempts", "2"]].concat()))
            .is_ok());
        assert!(message(&["--clients", "5", "--rate-limit", "5"]).contains("--rate-limit is an option"));
        assert!(message(&["--scales", "1"]).contains("--scales is an option of --scenario frontier"));
        assert!(check_foreign(&parse(&["--scenario", "frontier", "--clients", "10", "--runs", "3"])).is_ok());
    }

    #[test]
    fn a_refused_option_names_every_scenario_that_reads_it() {
        let message = |options: &[&str]| format!("{:#}", check_foreign(&parse(options)).unwrap_err());
        assert_eq!(
            message(&["--scenario", "frontier", "--attempts", "3"]),
            "invalid options: --attempts is an option of --scenario overload and throttling; it does not \
             apply to --scenario frontier"
        );
        assert_eq!(
            message(&["--scenario", "overload", "--clients", "5"]),
            "invalid options: --clients is an option of --scenario contention, frontier and throttling; it \
             does not apply to --scenario overload"
        );
        assert_eq!(
            message(&["--scenario", "throttling", "--timeout", "1s"]),
            "invalid options: --timeout is an option of --scenario overload; it does not apply to --scenario \
             throttling"
        );
    }
}
