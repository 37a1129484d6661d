//! The exit codes of `stagger`, all in one place, and the usage error that
//! selects code 2.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::process::ExitCode;

/// How `stagger` ends. Scripts may rely on these codes; a new command adds its
/// own variants here, with a number that no other variant uses, except
/// [`Exit::Command`], which passes on the code of the command that
/// `stagger run` ran (as `timeout`, `nice` or `env` do), so a command's 1 or
/// 2 reads like `stagger`'s own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did what was asked (also `--help`, `--version`, and a
    /// reader that closed the pipe early, as `stagger schedule | head` does).
    Success,
    /// 1: the command failed for a reason other than its options, such as an
    /// unwritable standard output.
    Failure,
    /// 2: bad command-line options (clap's parse errors and our own
    /// validation alike), or a standard input too long for `stagger run
    /// --stdin replay`. Nothing was run.
    Usage,
    /// `stagger run`: the command's last attempt failed, or the run was
    /// cancelled, and this is its status, 1 to 255:
    /// - the exit code of the last attempt;
    /// - 128 + N when signal N ended the last attempt (shell convention),
    ///   such as 143 for a SIGTERM that `stagger` forwarded, or 141 for a
    ///   SIGPIPE, which is not retried unless `--retry-on-exit` names 141
    ///   (the exit-code lists read a signal death as this status);
    /// - [`TIMED_OUT`] (124, as `timeout`) when `--attempt-timeout` or the
    ///   deadline stopped the last attempt;
    /// - 128 + N when signal N cancelled the run while it waited between
    ///   attempts (130 for SIGINT, 143 for SIGTERM), or during an attempt
    ///   whose command then had to be killed (it ignored the signal for
    ///   `--kill-after`, or a second signal came).
    ///
    /// The command's success is [`Exit::Success`].
    Command(u8),
    /// 126: `stagger run` could not execute the command (permission denied,
    /// not an executable), or the command stopped to read the terminal,
    /// which it cannot do in its own process group (see `--foreground`).
    /// Not retried.
    CannotExecute,
    /// 127: `stagger run` did not find the command. Not retried.
    NotFound,
}

/// The status of an attempt that `--attempt-timeout` or the deadline
/// stopped, whatever the command did on SIGTERM: 124, as `timeout` uses.
pub const TIMED_OUT: u8 = 124;

impl Exit {
    /// The process exit status.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Command(code) => code,
            Exit::CannotExecute => 126,
            Exit::NotFound => 127,
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

/// A command-line option with a value that cannot be used, or a `--config`
/// file that cannot. Attach it as context to the underlying error, so that
/// the message reads
/// `invalid value for --multiplier: invalid multiplier 0.5: must be at least 1`
/// (or `retry.toml: schedule.multiplier: ...` for a file) and the process
/// exits with [`Exit::Usage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    blame: Blame,
}

/// What a [`UsageError`] blames.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Blame {
    /// One option, spelled as on the command line (`--multiplier`).
    Option(Cow<'static, str>),
    /// The options together, no single one.
    Options,
    /// A file named by an option, as the user wrote its path.
    File(String),
}

impl UsageError {
    /// The value of `option` (`--base`) is wrong.
    pub fn option(option: impl Into<Cow<'static, str>>) -> Self {
        UsageError { blame: Blame::Option(option.into()) }
    }

    /// The options together are wrong, and no single one is to blame.
    pub const fn options() -> Self {
        UsageError { blame: Blame::Options }
    }

    /// The file at `path` (a `--config` file) cannot be read or used; the
    /// message starts with the path, as `cat` and `grep` write it.
    pub fn file(path: &std::path::Path) -> Self {
        UsageError { blame: Blame::File(path.display().to_string()) }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.blame {
            Blame::Option(option) => write!(f, "invalid value for {option}"),
            Blame::Options => f.write_str("invalid options"),
            Blame::File(path) => f.write_str(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn codes_are_stable() {
        let exits = [Exit::Success, Exit::Failure, Exit::Usage, Exit::CannotExecute, Exit::NotFound];
        assert_eq!(exits.map(Exit::code), [0, 1, 2, 126, 127]);
        assert_eq!(Exit::Command(143).code(), 143);
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
    fn a_file_error_starts_with_the_path() {
        let err =
            Err::<(), _>(anyhow::anyhow!("schedule.multiplier: invalid multiplier 0.5: must be at least 1"))
                .context(UsageError::file(std::path::Path::new("retry.toml")))
                .unwrap_err();
        assert_eq!(Exit::of_error(&err), Exit::Usage);
        assert_eq!(
            format!("{err:#}"),
            "retry.toml: schedule.multiplier: invalid multiplier 0.5: must be at least 1"
        );
    }

    #[test]
    fn broken_pipe_is_success_and_other_errors_fail() {
        let pipe = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe)).context("writing");
        assert_eq!(Exit::of_error(&pipe), Exit::Success);
        assert_eq!(Exit::of_error(&anyhow::anyhow!("disk full")), Exit::Failure);
    }
}
