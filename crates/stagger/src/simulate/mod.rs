//! `stagger simulate`: run one of the simulator's scenarios and show what it
//! found.
//!
//! The simulator owns every scenario end to end: its parameters (each one
//! field, with its default and unit), their validation, the run, the report,
//! its reading, and its presentation in the common report shape. Here are
//! only the command's own options; the scenarios' flags ([`flags`]) and
//! files ([`mod@file`]) come from their parameters. A new scenario is a variant
//! of [`Scenario`] with its parameters, and a line in [`execute`].

mod file;
mod flags;
mod progress;

use std::path::PathBuf;

use anyhow::{anyhow, Context};
use staggered_sim::frontier::FrontierParams;
use staggered_sim::view::list;
use staggered_sim::{
    ContentionParams, HedgingParams, Invalid, OverloadParams, Present, Scenario, ThrottlingParams,
};

use crate::exit::{Exit, UsageError};
use crate::output::{self, Format};
use file::{Loaded, Section};
use flags::{flag, Params};

/// The options of `stagger simulate` (its help text is on
/// [`Command::Simulate`](crate::cli::Command::Simulate)): the command's
/// own, then every scenario's parameters.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The experiment to run [default: contention, or the --config file's].
    #[arg(long, value_name = "NAME", value_enum)]
    pub scenario: Option<Scenario>,

    /// Read the experiment from FILE.toml: its scenario and parameters, as
    /// --print-config writes them; a parameter given as an option here wins
    /// over the file.
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,

    /// Write the experiment, every parameter resolved, as a file for
    /// --config, and run nothing.
    #[arg(long)]
    pub print_config: bool,

    /// The output format.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Also write a chart to FILE.svg. contention: calls and completion time
    /// against the client count, one line per strategy. overload: offered
    /// load, server arrivals and goodput per second, one panel per policy.
    /// throttling: offered load, attempts sent, the rate limit and goodput
    /// per second, one panel per policy. frontier: calls against completion
    /// time, one panel per client count. hedging: latency, attempts per
    /// operation and goodput against the load, a line per policy.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Every scenario's parameters.
    #[command(flatten)]
    pub parameters: flags::Parameters,
}

/// Runs `stagger simulate` with `args`.
///
/// # Errors
/// A usage error for bad options or a bad file, or the failure to write the
/// chart or standard output.
pub fn execute(args: &SimulateArgs) -> anyhow::Result<Exit> {
    if let Some(path) = &args.plot {
        output::check_plot_path(path).context(UsageError::option("--plot"))?;
    }
    let file = args.config.as_deref().map(file::load).transpose()?;
    let scenario = args.scenario.or_else(|| file.as_ref().and_then(Loaded::scenario)).unwrap_or_default();
    match scenario {
        Scenario::Contention => simulate::<ContentionParams>(args, file),
        Scenario::Overload => simulate::<OverloadParams>(args, file),
        Scenario::Throttling => simulate::<ThrottlingParams>(args, file),
        Scenario::Frontier => simulate::<FrontierParams>(args, file),
        Scenario::Hedging => simulate::<HedgingParams>(args, file),
    }
}

/// Runs the scenario of `P` with the parameters of `file`, then the flags,
/// or prints them; warns of those given that change nothing.
fn simulate<P: Params + Section>(args: &SimulateArgs, mut file: Option<Loaded>) -> anyhow::Result<Exit> {
    let mut params = file.as_mut().and_then(Loaded::take::<P>).unwrap_or_default();
    let command = flags::command::<P>();
    let given = &args.parameters.given;
    if let Some((foreign, _)) =
        given.iter().find(|(long, _)| command.get_arguments().all(|arg| arg.get_long() != Some(&long[2..])))
    {
        let owners: Vec<&str> = flags::owners(&foreign[2..]).iter().map(|s| s.name()).collect();
        let scenario = P::SCENARIO.name();
        return Err(anyhow!(
            "{foreign} is an option of --scenario {}; it does not apply to --scenario {scenario}",
            list(owners)
        ))
        .context(UsageError::options());
    }
    let tokens = given.iter().flat_map(|(long, value)| [long.clone(), value.clone()]);
    let matches = match command.try_get_matches_from(std::iter::once("simulate".to_owned()).chain(tokens)) {
        Ok(matches) => matches,
        Err(err) => {
            // As clap reports the other options' values.
            let _ = err.print();
            return Ok(Exit::Usage);
        }
    };
    params.update_from_arg_matches(&matches)?;
    // Where a field was given: a flag, or a line of the file.
    let on_command_line = |field: &str| given.iter().any(|(long, _)| *long == flag(field));
    let in_file =
        |field: &str| file.as_ref().and_then(|file| Some((file, file.line_of(P::SCENARIO, field)?)));
    params.validate().map_err(|err: Invalid| {
        let field = err.fields().iter().find(|field| on_command_line(field) || in_file(field).is_some());
        match field.map(|field| (field, in_file(field))) {
            Some((field, Some((file, line)))) if !on_command_line(field) => anyhow::Error::new(err.clone())
                .context(format!("{}.{field} at line {line}", P::SCENARIO.name()))
                .context(UsageError::file(&file.path)),
            Some((field, _)) => anyhow::Error::new(err.clone()).context(UsageError::option(flag(field))),
            None => anyhow::Error::new(err.clone()).context(UsageError::options()),
        }
    })?;
    for (field, note) in params.notes() {
        if on_command_line(field) {
            eprintln!("warning: {} {note}", flag(field));
        } else if let Some((file, _)) = in_file(field) {
            eprintln!("warning: {}: {field} {note}", file.path.display());
        }
    }
    if args.print_config {
        output::print(&file::write(params)?)?;
        return Ok(Exit::Success);
    }
    let report = progress::run(&params)?.present();
    if let Some(path) = &args.plot {
        // Before stdout, so a reader that stops early (`| head`) still gets it.
        let chart = report.chart.as_ref().ok_or_else(|| anyhow!("this scenario has no chart"))?;
        output::write_atomically(path, output::chart(chart)?.as_bytes())
            .with_context(|| format!("cannot write the chart to {}", path.display()))?;
    }
    output::print(&args.format.render(&report)?)?;
    Ok(Exit::Success)
}
