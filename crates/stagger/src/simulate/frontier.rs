//! `--scenario frontier`: its flags, and the simulator's configuration they
//! set. It runs in the contention experiment, so it also reads that
//! scenario's `--clients` and `--runs`. What is not given keeps the
//! simulator's default; every error names the option that set the
//! parameter.

use anyhow::Context;
use staggered_sim::frontier::{parse_values, Family, FrontierConfig, FrontierError};
use staggered_sim::ContentionStrategy;

use super::contention::{parse_clients, time_units};
use super::overload::share;
use super::{given, SimulateArgs};
use crate::exit::UsageError;

/// The help heading of these flags.
const HEADING: &str = "Frontier options (--scenario frontier; --clients and --runs as contention's)";

/// The frontier scenario's own flags.
#[derive(Debug, Clone, Default, clap::Args)]
#[group(id = "frontier-options")]
pub struct Flags {
    /// Families of candidates, comma-separated: full (U[0, x], any
    /// multiplier and first interval), floored (U[a x, x]), decorrelated,
    /// smooth [default: full,floored].
    #[arg(long, value_name = "LIST", value_delimiter = ',', help_heading = HEADING)]
    pub families: Option<Vec<String>>,

    /// Scales s: a candidate starts where its published strategy would with
    /// base s x base. Numbers and ranges FROM..TO/STEP, comma-separated
    /// [default: 1..6/1].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, help_heading = HEADING)]
    pub scales: Option<String>,

    /// Multipliers m (full and floored): the interval's growth per retry,
    /// at least 1 [default: 1.5,1.75,2].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, help_heading = HEADING)]
    pub multipliers: Option<String>,

    /// Floors a (floored): the shortest delay as a fraction of the
    /// interval, 0 to 1 [default: 0.1,0.2,0.3].
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, help_heading = HEADING)]
    pub floors: Option<String>,

    /// Strategies drawn as labelled points beside the candidates, as
    /// contention's --strategies; the target needs full and decorrelated
    /// [default: equal,full,decorrelated,smooth].
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_hyphen_values = true, help_heading = HEADING)]
    pub references: Option<Vec<String>>,

    /// The target's margin: a candidate reaches it at a client count when
    /// its mean calls are at most full's and its mean completion time at
    /// most decorrelated's, each plus this [default: 1%].
    #[arg(long, value_name = "F|P%", value_parser = share, allow_hyphen_values = true, help_heading = HEADING)]
    pub margin: Option<f64>,
}

impl Flags {
    /// The flags given, as typed.
    pub fn given(&self) -> Vec<String> {
        given!(self; families, scales, multipliers, floors, references, margin)
    }
}

/// The frontier the options ask for.
///
/// # Errors
/// A [`UsageError`] naming the option at fault.
pub fn configure(args: &SimulateArgs) -> anyhow::Result<(FrontierConfig, Vec<String>)> {
    let flags = &args.frontier;
    let mut builder = FrontierConfig::builder();
    if let Some(names) = &flags.families {
        let families = names.iter().map(|name| name.trim().parse::<Family>()).collect::<Result<Vec<_>, _>>();
        builder = builder.with_families(families.context(UsageError::option("--families"))?);
    }
    let values = |text: &Option<String>, flag: &'static str| -> anyhow::Result<Option<Vec<f64>>> {
        text.as_deref().map(parse_values).transpose().context(UsageError::option(flag))
    };
    if let Some(scales) = values(&flags.scales, "--scales")? {
        builder = builder.with_scales(scales);
    }
    if let Some(multipliers) = values(&flags.multipliers, "--multipliers")? {
        builder = builder.with_multipliers(multipliers);
    }
    if let Some(floors) = values(&flags.floors, "--floors")? {
        builder = builder.with_floors(floors);
    }
    if let Some(names) = &flags.references {
        let references = names.iter().map(|name| name.trim().parse::<ContentionStrategy>());
        let references =
            references.collect::<Result<Vec<_>, _>>().context(UsageError::option("--references"))?;
        builder = builder.with_references(references);
    }
    if let Some(margin) = flags.margin {
        builder = builder.with_margin(margin);
    }
    let contention = &args.contention;
    if let Some(list) = &contention.clients {
        builder = builder.with_clients(parse_clients(list).context(UsageError::option("--clients"))?);
    }
    if let Some(runs) = contention.runs {
        builder = builder.with_runs(runs);
    }
    if let Some(seed) = args.seed {
        builder = builder.with_seed(seed);
    }
    if let Some(base) = &args.base {
        builder = builder.with_base(time_units(base).context(UsageError::option("--base"))?);
    }
    if let Some(cap) = &args.cap {
        builder = builder.with_cap(time_units(cap).context(UsageError::option("--cap"))?);
    }
    let config = builder.build().map_err(|err| blame(err, args))?;
    let mut warnings = Vec::new();
    if !config.has_target() {
        warnings.push(
            "--references lacks full or decorrelated: the target (the work of full in the time of decorrelated) \
             is not measured"
                .to_owned(),
        );
    }
    Ok((config, warnings))
}

/// The simulator's error, blamed on the option that set the parameter: a
/// scale above the cap on `--base` or `--cap` when that is what was given.
fn blame(err: FrontierError, args: &SimulateArgs) -> anyhow::Error {
    let flag = match err.parameter() {
        "scales" if args.frontier.scales.is_none() && args.cap.is_some() => "--cap".to_owned(),
        "scales" if args.frontier.scales.is_none() && args.base.is_some() => "--base".to_owned(),
        "cap" if args.cap.is_none() && args.base.is_some() => "--base".to_owned(),
        "hop-mean" | "hop-sd" => return anyhow::Error::new(err).context(UsageError::options()),
        parameter => format!("--{parameter}"),
    };
    anyhow::Error::new(err).context(UsageError::option(flag))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{flags_of, parse};
    use super::*;
    use crate::exit::Exit;

    fn config(options: &[&str]) -> anyhow::Result<FrontierConfig> {
        let options = [&["--scenario", "frontier"], options].concat();
        configure(&parse(&options)).map(|(config, _)| config)
    }

    #[test]
    fn every_flag_is_given_by_its_name() {
        let args = parse(&[
            "--families",
            "full",
            "--scales",
            "1",
            "--multipliers",
            "2",
            "--floors",
            "0",
            "--references",
            "full",
            "--margin",
            "2%",
        ]);
        assert_eq!(args.frontier.given(), flags_of::<Flags>());
    }

    #[test]
    fn defaults_are_the_simulators_and_options_set_them() {
        assert_eq!(config(&[]).unwrap(), FrontierConfig::standard());
        let c = config(&[
            "--families",
            "smooth, floored",
            "--scales",
            "1..2/0.5",
            "--multipliers",
            "1.5",
            "--floors",
            "0,0.2",
            "--references",
            "full,decorrelated",
            "--margin",
            "2%",
            "--clients",
            "10,20",
            "--runs",
            "7",
            "--seed",
            "3",
            "--base",
            "3",
            "--cap",
            "1000",
        ])
        .unwrap();
        assert_eq!(c.families(), [Family::Smooth, Family::Floored]);
        assert_eq!(
            (c.scales(), c.multipliers(), c.floors()),
            (&[1.0, 1.5, 2.0][..], &[1.5][..], &[0.0, 0.2][..])
        );
        assert_eq!(c.candidates().len(), 3 + 3 * 2);
        assert_eq!((c.margin(), c.clients(), c.runs(), c.seed()), (0.02, &[10, 20][..], 7, 3));
        assert_eq!((c.contention().base(), c.contention().cap()), (3.0, 1000.0));
        let (_, warnings) = configure(&parse(&["--scenario", "frontier", "--references", "full"])).unwrap();
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 9] = [
            (&["--families", "mixed"], "invalid value for --families: unknown family \"mixed\""),
            (&["--scales", "1..x/1"], "invalid value for --scales: \"1..x/1\" is not a number or a range"),
            (&["--scales", "0"], "invalid value for --scales: invalid scale 0"),
            (&["--multipliers", "0.5"], "invalid value for --multipliers: invalid multiplier 0.5"),
            (&["--floors", "2"], "invalid value for --floors: invalid floor 2"),
            (&["--references", "nope"], "invalid value for --references: unknown strategy \"nope\""),
            (&["--margin", "-1%"], "invalid value '-1%' for '--margin <F|P%>': must be at least 0"),
            (&["--cap", "30"], "invalid value for --cap: invalid scale for full(scale 4, multiplier 1.5)"),
            (&["--clients", "0"], "invalid value for --clients: client count 0"),
        ];
        for (options, expected) in cases {
            let options = [&["--scenario", "frontier"], options].concat();
            let parsed = <super::super::tests::Options as clap::Parser>::try_parse_from(
                ["simulate"].iter().chain(&options),
            );
            let message = match parsed {
                Err(err) => err.to_string(),
                Ok(parsed) => {
                    let err = configure(&parsed.args).unwrap_err();
                    assert_eq!(Exit::of_error(&err), Exit::Usage, "{err:#}");
                    format!("{err:#}")
                }
            };
            assert!(message.contains(expected), "{options:?}: {message}");
        }
    }
}
