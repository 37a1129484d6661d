//! Starting one attempt's process: in its own process group or not, with
//! the replayed standard input if there is one, and a script without `#!`
//! run by `/bin/sh`.
//!
//! The system refuses to execute a file that is neither a binary nor starts
//! with `#!` (ENOEXEC, "Exec format error"). Shells, `execvp`, `timeout`
//! and `env` then run it with `/bin/sh`, as POSIX describes, and so does
//! `stagger`: such scripts are common, and failing with 126 where the same
//! command typed in a shell works would surprise. A file whose first line
//! holds a NUL byte is a binary for another system, not a script, and keeps
//! its error (as bash decides).

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rustix::io::Errno;
use rustix::process::Pid;

use super::group::Isolation;
use super::stdin::Replay;

/// The command to run: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The program, looked up in `PATH` unless it contains a `/`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// The shell that runs a script without `#!`.
const SHELL: &str = "/bin/sh";

/// How many bytes of a file are read to tell a script from a binary.
const SNIFF: u64 = 512;

/// Starts `command` as `isolation` says, feeding it `stdin` if given (else
/// it inherits `stagger`'s), and returns its process id. The caller reaps it.
///
/// # Errors
/// When the command cannot start: not found, not executable, and so on.
pub fn start(command: &CommandLine, isolation: Isolation, stdin: Option<&Replay>) -> io::Result<Pid> {
    match spawn(&command.program, &command.args, isolation, stdin) {
        Err(err) if err.raw_os_error() == Some(Errno::NOEXEC.raw_os_error()) => {
            match script(&command.program) {
                Some(path) => {
                    let mut args = vec![path.into_os_string()];
                    args.extend(command.args.iter().cloned());
                    spawn(OsStr::new(SHELL), &args, isolation, stdin)
                }
                None => Err(err),
            }
        }
        started => started,
    }
}

/// Spawns `program` with `args`.
fn spawn(
    program: &OsStr,
    args: &[OsString],
    isolation: Isolation,
    stdin: Option<&Replay>,
) -> io::Result<Pid> {
    let mut process = Command::new(program);
    process.args(args);
    if isolation == Isolation::ProcessGroup {
        process.process_group(0);
    }
    if stdin.is_some() {
        process.stdin(Stdio::piped());
    }
    let mut child = process.spawn()?;
    let pid = Pid::from_child(&child);
    if let (Some(replay), Some(pipe)) = (stdin, child.stdin.take()) {
        if let Err(err) = replay.feed(pipe) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            let _ = child.wait();
            return Err(err);
        }
    }
    // The caller's waiter thread reaps the child; std's handle must not.
    drop(child);
    Ok(pid)
}

/// The path of `program` if it is a script for `/bin/sh`: the file that
/// the system refused, found as the spawn found it (the path itself when
/// it holds a `/`, else the first executable file of that name in `PATH`),
/// with no NUL byte in its first line.
fn script(program: &OsStr) -> Option<PathBuf> {
    let path = if program.as_bytes().contains(&b'/') { PathBuf::from(program) } else { in_path(program)? };
    let mut head = Vec::new();
    fs::File::open(&path).ok()?.take(SNIFF).read_to_end(&mut head).ok()?;
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    (!first_line.contains(&0)).then_some(path)
}

/// The first executable file named `program` in the directories of `PATH`
/// (an empty entry is the current directory, as `execvp` reads it).
fn in_path(program: &OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| is_executable(candidate))
}

/// Whether `path` is a regular file with an execute bit set.
fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_told_from_binaries() {
        let dir = tempfile::tempdir().unwrap();
        let script_path = dir.path().join("script");
        fs::write(&script_path, "echo hello\n").unwrap();
        assert_eq!(script(script_path.as_os_str()), Some(script_path.clone()));
        let binary = dir.path().join("binary");
        fs::write(&binary, b"\x7fELF\x02\x01\x01\x00\x00\n").unwrap();
        assert_eq!(script(binary.as_os_str()), None);
        assert_eq!(script(dir.path().join("missing").as_os_str()), None);
        // Found in PATH only if executable.
        assert_eq!(in_path(OsStr::new("stagger-no-such-program")), None);
    }
}
