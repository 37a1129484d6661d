//! `SimulateConfig`: the options of `stagger simulate`, checked and turned
//! into the scenario's validated configuration before anything runs; and the
//! contention scenario's parsers (client lists, time units).

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use staggered_sim::{ContentionConfig, MAX_CLIENTS};

use super::args::{Opt, Scenario, SimulateArgs};
use super::contention;
use super::overload::{self, OverloadSetup};
use crate::exit::UsageError;
use crate::output::Format;

/// The most client counts one `--clients` list may hold: enough for every
/// count from 1 to 1000, few enough for a table and a chart.
pub const MAX_POINTS: usize = 1000;

/// The most runs one simulation may hold in all (client counts x strategies
/// x runs): every run's outcome is kept until the end, about 24 bytes each.
pub const MAX_TOTAL_RUNS: usize = 10_000_000;

/// A validated `stagger simulate` invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulateConfig {
    /// The scenario's own configuration.
    pub experiment: Experiment,
    /// The output format.
    pub format: Format,
    /// Where to write the SVG chart, if anywhere.
    pub plot: Option<PathBuf>,
    /// Options that were accepted but have no effect, explained.
    pub warnings: Vec<String>,
}

/// A scenario with its validated configuration: one variant per
/// [`Scenario`].
#[derive(Debug, Clone, PartialEq)]
pub enum Experiment {
    /// SPEC section 8's contention experiment.
    Contention(ContentionConfig),
    /// SPEC section 7's overload experiment (boxed: four times the size of
    /// the other, with its backoff and budgets).
    Overload(Box<OverloadSetup>),
}

impl Experiment {
    /// What the simulator counts as it goes, for the progress bar.
    pub const fn unit(&self) -> &'static str {
        match self {
            Experiment::Contention(_) => "runs",
            Experiment::Overload(_) => "policies",
        }
    }
}

impl SimulateConfig {
    /// Checks the options and builds the scenario's configuration.
    ///
    /// # Errors
    /// A [`UsageError`] naming the option at fault, or an option of another
    /// scenario than the one chosen.
    pub fn from_args(args: &SimulateArgs) -> anyhow::Result<Self> {
        if let Some(opt) = args.foreign().next() {
            let owner = opt.scenario().map_or("another scenario", Scenario::name);
            return Err(anyhow!(
                "{} is an option of --scenario {owner}; it does not apply to --scenario {}",
                opt.flag(),
                args.scenario.name()
            ))
            .context(UsageError::options());
        }
        let (experiment, warnings) = match args.scenario {
            Scenario::Contention => (Experiment::Contention(contention::configure(args)?), Vec::new()),
            Scenario::Overload => {
                let (setup, warnings) = overload::configure(args)?;
                (Experiment::Overload(Box::new(setup)), warnings)
            }
        };
        if let Some(path) = &args.plot {
            check_plot_path(path).map_err(|err| err.context(UsageError::option(Opt::Plot.flag())))?;
        }
        Ok(SimulateConfig { experiment, format: args.format, plot: args.plot.clone(), warnings })
    }
}

/// The chart is SVG only, and its directory must exist: better to say so
/// before a long simulation than after it.
fn check_plot_path(path: &Path) -> anyhow::Result<()> {
    let is_svg = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("svg"));
    if !is_svg {
        return Err(anyhow!("{} does not end in .svg: the chart is written as SVG", path.display()));
    }
    let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(anyhow!("the directory {} does not exist", dir.display()));
    }
    Ok(())
}

/// Why a client list did not parse. The caller names the option, so the
/// messages say only what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListError {
    /// Nothing was given, or an item between commas is empty.
    Empty,
    /// An item is not `N` or `FROM..TO/STEP`.
    Malformed(String),
    /// A count is 0 or above [`MAX_CLIENTS`] (the text, which may not fit
    /// any integer).
    OutOfRange(String),
    /// A range counts down.
    Descending(String),
    /// A range's step is 0.
    ZeroStep(String),
    /// The list holds more than [`MAX_POINTS`] counts.
    TooMany(u64),
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "expected counts and ranges such as 100, 10,50,100 or 10..190/10";
        match self {
            ListError::Empty => write!(f, "empty list item: {EXPECTED}"),
            ListError::Malformed(item) => write!(f, "{item:?} is not a count or a range: {EXPECTED}"),
            ListError::OutOfRange(n) => write!(f, "client count {n} is not between 1 and {MAX_CLIENTS}"),
            ListError::Descending(item) => write!(f, "range {item} counts down: FROM must not exceed TO"),
            ListError::ZeroStep(item) => write!(f, "range {item} has step 0: the step must be at least 1"),
            ListError::TooMany(n) => write!(f, "{n} client counts are more than the limit of {MAX_POINTS}"),
        }
    }
}

impl std::error::Error for ListError {}

/// Parses a client list: comma-separated items, each a count `N` or a range
/// `FROM..TO/STEP` (`/STEP` may be left out for 1) that runs from FROM up to
/// TO, both included, so `10..190/10` is 10, 20, ..., 190. Counts are
/// between 1 and [`MAX_CLIENTS`]; the order is kept. Repeats are left for
/// the scenario to refuse.
///
/// # Errors
/// A [`ListError`] for an empty, malformed, out-of-range, descending,
/// zero-step or too long list. It never panics.
pub fn parse_clients(text: &str) -> Result<Vec<u32>, ListError> {
    let mut clients = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(ListError::Empty);
        }
        let (from, to, step) = match item.split_once("..") {
            None => {
                let n = count(item, item)?;
                (n, n, 1)
            }
            Some((from, rest)) => {
                let (to, step) = rest.split_once('/').unwrap_or((rest, "1"));
                let step = number(step, item)?;
                (count(from, item)?, count(to, item)?, step)
            }
        };
        if from > to {
            return Err(ListError::Descending(item.to_owned()));
        }
        if step == 0 {
            return Err(ListError::ZeroStep(item.to_owned()));
        }
        let items = u64::from(to - from) / step + 1;
        let total = clients.len() as u64 + items;
        if total > MAX_POINTS as u64 {
            return Err(ListError::TooMany(total));
        }
        // `step` may exceed u32, and then `from` is the only count.
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        clients.extend((from..=to).step_by(step));
    }
    Ok(clients)
}

/// A client count of `item`: 1 to [`MAX_CLIENTS`].
fn count(text: &str, item: &str) -> Result<u32, ListError> {
    let n = number(text, item)?;
    match u32::try_from(n) {
        Ok(n) if (1..=MAX_CLIENTS).contains(&n) => Ok(n),
        _ => Err(ListError::OutOfRange(text.trim().to_owned())),
    }
}

/// Decimal digits alone (no sign, no exponent), as a `u64`; too many digits
/// for a `u64` is out of range rather than malformed.
fn number(text: &str, item: &str) -> Result<u64, ListError> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ListError::Malformed(item.to_owned()));
    }
    text.parse().map_err(|_| ListError::OutOfRange(text.to_owned()))
}

/// The most time units `--base` or `--cap` may be: about 30 years of
/// simulated time at one millisecond per unit, far past any schedule's use,
/// and far from the edge of `Duration`.
pub const MAX_TIME_UNITS: f64 = 1e12;

/// A positive number of time units from `opt`, at most [`MAX_TIME_UNITS`].
///
/// # Errors
/// A [`UsageError`] naming `opt` for text that is not a number (such as a
/// duration, `5ms`: contention's times are unitless), zero, a negative
/// number, NaN, infinity or a number above the limit.
pub fn time_units(text: &str, opt: Opt) -> anyhow::Result<f64> {
    let Ok(value) = text.trim().parse::<f64>() else {
        let err = anyhow!(
            "{text:?} is not a number: contention counts the model's time units, such as 5, not durations"
        );
        return Err(err.context(UsageError::option(opt.flag())));
    };
    if value > 0.0 && value <= MAX_TIME_UNITS {
        Ok(value)
    } else {
        let err = anyhow!("{} is not a positive number of time units up to {MAX_TIME_UNITS:e}", show(value));
        Err(err.context(UsageError::option(opt.flag())))
    }
}

/// A number as a person typed it: `5`, `2.5`, and `1e300` rather than its
/// 301 digits.
pub fn show(value: f64) -> String {
    if value.abs() >= 1e15 {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Exit;

    #[test]
    fn counts_lists_and_ranges() {
        assert_eq!(parse_clients("100"), Ok(vec![100]));
        assert_eq!(parse_clients("10,50,100"), Ok(vec![10, 50, 100]));
        assert_eq!(parse_clients("10..190/10"), Ok((1..=19).map(|i| 10 * i).collect()));
        assert_eq!(parse_clients(" 5 , 1..3 , 20..45/10"), Ok(vec![5, 1, 2, 3, 20, 30, 40]));
        assert_eq!(parse_clients("7..7/3"), Ok(vec![7]));
        assert_eq!(parse_clients("1..10/99999999999"), Ok(vec![1]));
        assert_eq!(parse_clients("1..1000/1").map(|l| l.len()), Ok(MAX_POINTS));
        assert_eq!(parse_clients(&MAX_CLIENTS.to_string()), Ok(vec![MAX_CLIENTS]));
    }

    #[test]
    fn refuses_bad_lists_by_reason() {
        let out_of_range = |n: &str| Err(ListError::OutOfRange(n.to_owned()));
        assert_eq!(parse_clients("0"), out_of_range("0"));
        assert_eq!(parse_clients("0..10/5"), out_of_range("0"));
        assert_eq!(parse_clients("100001"), out_of_range("100001"));
        assert_eq!(parse_clients("99999999999999999999999"), out_of_range("99999999999999999999999"));
        assert_eq!(parse_clients("10..5/1"), Err(ListError::Descending("10..5/1".to_owned())));
        assert_eq!(parse_clients("10..190/0"), Err(ListError::ZeroStep("10..190/0".to_owned())));
        assert_eq!(parse_clients("1..1001/1"), Err(ListError::TooMany(1001)));
        assert_eq!(parse_clients("1..1000,5"), Err(ListError::TooMany(1001)));
        assert_eq!(parse_clients(""), Err(ListError::Empty));
        assert_eq!(parse_clients("10,,20"), Err(ListError::Empty));
        for garbage in
            ["abc", "-5", "+5", "1e3", "10..", "..10", "10..20/", "10..20/x", "1...5", "10-20", "½"]
        {
            assert!(matches!(parse_clients(garbage), Err(ListError::Malformed(_))), "{garbage}");
        }
    }

    #[test]
    fn messages_say_what_is_wrong() {
        assert_eq!(
            parse_clients("10..5/1").unwrap_err().to_string(),
            "range 10..5/1 counts down: FROM must not exceed TO"
        );
        assert_eq!(parse_clients("0").unwrap_err().to_string(), "client count 0 is not between 1 and 100000");
        assert!(parse_clients("x").unwrap_err().to_string().contains("such as 100, 10,50,100 or 10..190/10"));
    }

    #[test]
    fn time_units_are_positive_and_finite() {
        assert_eq!(time_units("5", Opt::Base).unwrap(), 5.0);
        assert_eq!(time_units(" 2.5 ", Opt::Base).unwrap(), 2.5);
        assert_eq!(time_units("1e12", Opt::Base).unwrap(), MAX_TIME_UNITS);
        let huge = format!("{:#}", time_units("1e300", Opt::Base).unwrap_err());
        assert_eq!(huge, "invalid value for --base: 1e300 is not a positive number of time units up to 1e12");
        let duration = format!("{:#}", time_units("5ms", Opt::Base).unwrap_err());
        assert!(
            duration.starts_with("invalid value for --base: \"5ms\" is not a number: contention"),
            "{duration}"
        );
        for bad in ["0", "-1", "NaN", "inf", "-inf", "1.5e12", "", "five"] {
            let err = time_units(bad, Opt::Cap).unwrap_err();
            assert_eq!(Exit::of_error(&err), Exit::Usage);
            assert!(format!("{err:#}").starts_with("invalid value for --cap: "), "{err:#}");
        }
    }

    #[test]
    fn plot_paths_are_svg_in_an_existing_directory() {
        assert!(check_plot_path(Path::new("chart.svg")).is_ok());
        assert!(check_plot_path(Path::new("chart.SVG")).is_ok());
        assert!(check_plot_path(&std::env::temp_dir().join("chart.svg")).is_ok());
        assert!(check_plot_path(Path::new("chart.png")).unwrap_err().to_string().contains(".svg"));
        assert!(check_plot_path(Path::new("chart")).is_err());
        let missing = check_plot_path(Path::new("no/such/dir/chart.svg")).unwrap_err();
        assert!(missing.to_string().contains("does not exist"), "{missing}");
    }
}
