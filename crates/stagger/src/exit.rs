//! The exit codes of `stagger`, all in one place, and the usage error that
//! selects code 2.

use std::fmt;
use std::io;
use std::process::ExitCode;

/// How `stagger` ends. Scripts may rely on these codes; a new command adds its
/// own variants here, with a number that no other variant uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did what was asked (also `--help`, `--version`, and a
    /// reader that closed the pipe early, as `stagger schedule | head` does).
    Success,
    /// 1: the command failed for a reason other than its options, such as an
    /// unwritable standard output.
    Failure,
    /// 2: bad command-line options (clap's parse errors and our own
    /// validation alike). Nothing was run.
    Usage,
}

impl Exit {
    /// The process exit status.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
        }
    }

    /// The exit for an error that ended a command: [`Exit::Usage`] if a
    /// [`UsageError`] is in its chain, [`Exit::Success`] for a closed pipe,
    /// and [`Exit::Failure`] otherwise.
    pub fn of_error(err: &anyhow::Error) -> Exit {
        if err.downcast_ref::<UsageError>().is_some() {
            Exit::Usage
        } else if is_broken_pipe(err) {
            Exit::Success
        } else {
            Exit::Failure
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// Whether the error comes from writing to a pipe whose reader has gone.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// A command-line option with a value that cannot be used. Attach it as
/// context to the underlying error, so that the message reads
/// `invalid value for --multiplier: invalid multiplier 0.5: must be at least 1`
/// and the process exits with [`Exit::Usage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageError {
    /// The option, spelled as on the command line (`--multiplier`), if one
    /// option is to blame.
    option: Option<&'static str>,
}

impl UsageError {
    /// The value of `option` (`--base`) is wrong.
    pub const fn option(option: &'static str) -> Self {
        UsageError { option: Some(option) }
    }

    /// The options together are wrong, and no single one is to blame.
    pub const fn options() -> Self {
        UsageError { option: None }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.option {
            Some(option) => write!(f, "invalid value for {option}"),
            None => f.write_str("invalid options"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn codes_are_stable() {
        assert_eq!([Exit::Success, Exit::Failure, Exit::Usage].map(Exit::code), [0, 1, 2]);
    }

    #[test]
    fn usage_context_selects_code_2_and_reads_well() {
        let err = Err::<(), _>(anyhow::anyhow!("invalid multiplier 0.5: must be at least 1"))
            .context(UsageError::option("--multiplier"))
            .unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert_eq!(
            format!("{err:#}"),
            "invalid value for --multiplier: invalid multiplier 0.5: must be at least 1"
        );
    }

    #[test]
    fn broken_pipe_is_success_and_other_errors_fail() {
        let pipe = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe)).context("writing");
        assert_eq!(Exit::of_error(&pipe), Exit::Success);
        assert_eq!(Exit::of_error(&anyhow::anyhow!("disk full")), Exit::Failure);
    }
}
