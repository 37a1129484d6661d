//! A server program as a guarded child process: started in a process group
//! of its own, waited for until its port accepts (within a bounded time),
//! and stopped with its whole group when the guard drops.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};

/// Why a server did not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// Its program is not installed on this machine: the message says how
    /// to install it. Tests skip on this (unless `CI` is set).
    Missing(String),
    /// It is installed but did not come up: the message has its log's tail.
    Failed(String),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Missing(message) | StartError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StartError {}

/// How long a guard waits for its group to stop after SIGTERM before it
/// sends SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How often the port and the process are looked at while starting.
const POLL: Duration = Duration::from_millis(20);
/// How many times a start is tried, each on a new free port: another
/// process may take the port between our probe and the server's bind.
const START_TRIES: u32 = 3;

/// A running server process. Dropping it stops the process and every
/// process it started (SIGTERM to its group, SIGKILL 5 s later).
#[derive(Debug)]
pub struct Guarded {
    child: Child,
    name: &'static str,
    port: u16,
}

impl Guarded {
    /// Starts the command `make(port)` builds, at a free port on 127.0.0.1,
    /// with its output in `log`, and waits at most `startup` for the port
    /// to accept a connection. A server that exits before that is tried
    /// again on another port, 3 times in all.
    ///
    /// Blocks while it waits.
    pub fn start(
        name: &'static str,
        log: &Path,
        startup: Duration,
        mut make: impl FnMut(u16) -> io::Result<Command>,
    ) -> Result<Guarded, StartError> {
        let mut last = None;
        for _ in 0..START_TRIES {
            let port =
                free_port().map_err(|e| StartError::Failed(format!("no free port for {name}: {e}")))?;
            let command = make(port).map_err(|e| StartError::Failed(format!("{name}: {e}")))?;
            match Guarded::spawn(name, command, port, log, startup) {
                Ok(guarded) => return Ok(guarded),
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or_else(|| StartError::Failed(format!("{name} did not start"))))
    }

    fn spawn(
        name: &'static str,
        mut command: Command,
        port: u16,
        log: &Path,
        startup: Duration,
    ) -> Result<Guarded, StartError> {
        let failed = |what: String| StartError::Failed(format!("{name}: {what}"));
        let out = File::options().create(true).append(true).open(log).map_err(|e| failed(e.to_string()))?;
        let err = out.try_clone().map_err(|e| failed(e.to_string()))?;
        command.process_group(0).stdin(Stdio::null()).stdout(out).stderr(err);
        let child =
            command.spawn().map_err(|e| failed(format!("cannot run {:?}: {e}", command.get_program())))?;
        let mut guarded = Guarded { child, name, port };
        let started = Instant::now();
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        loop {
            if let Ok(Some(status)) = guarded.child.try_wait() {
                return Err(failed(format!(
                    "exited ({status}) before listening on port {port}; its log ends:\n{}",
                    tail(log)
                )));
            }
            if TcpStream::connect_timeout(&address, POLL).is_ok() {
                return Ok(guarded);
            }
            if started.elapsed() >= startup {
                // Dropping the guard stops what did start.
                return Err(failed(format!(
                    "not listening on port {port} after {startup:?}; its log ends:\n{}",
                    tail(log)
                )));
            }
            std::thread::sleep(POLL);
        }
    }

    /// The port it listens on, on 127.0.0.1.
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn group(&self) -> Option<Pid> {
        Pid::from_raw(i32::try_from(self.child.id()).ok()?)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        let Some(group) = self.group() else { return };
        let _ = kill_process_group(group, Signal::TERM);
        let asked = Instant::now();
        while matches!(self.child.try_wait(), Ok(None)) && asked.elapsed() < STOP_GRACE {
            std::thread::sleep(POLL);
        }
        // The leader has exited or is past its grace; what is left of its
        // group (a gunicorn worker) goes too.
        let _ = kill_process_group(group, Signal::KILL);
        if let Err(error) = self.child.wait() {
            eprintln!("{}: could not reap pid {}: {error}", self.name, self.child.id());
        }
    }
}

/// A port that was free on 127.0.0.1 a moment ago.
pub fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

/// The last few lines of `log`, for an error message.
fn tail(log: &Path) -> String {
    const TAIL_BYTES: u64 = 2000;
    let mut text = String::new();
    if let Ok(mut file) = File::open(log) {
        let length = file.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = file.seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES)));
        let _ = file.read_to_string(&mut text);
    }
    if text.trim().is_empty() {
        "(nothing)".to_owned()
    } else {
        text
    }
}

/// The first of `names` found as an executable file in `PATH` or in
/// `extra` directories (`/usr/sbin` is not in every root's `PATH`).
pub fn find_program(names: &[&str], extra: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path).chain(extra.iter().map(PathBuf::from)).collect();
    names.iter().find_map(|name| {
        dirs.iter().map(|dir| dir.join(name)).find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            candidate.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_exits_at_once_is_reported_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let error = Guarded::start("sh", &log, Duration::from_secs(5), |_| {
            let mut command = Command::new("sh");
            command.args(["-c", "echo cannot bind; exit 3"]);
            Ok(command)
        })
        .unwrap_err();
        let StartError::Failed(message) = error else { panic!("{error:?}") };
        assert!(message.contains("exited") && message.contains("cannot bind"), "{message}");
    }

    #[test]
    fn the_guard_stops_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let pid_file = dir.path().join("grandchild");
        // A server whose child ignores nothing and would outlive a killed parent.
        let guarded = Guarded::start("python3", &log, Duration::from_secs(20), |port| {
            let mut command = Command::new("sh");
            let script = format!(
                "sleep 600 & echo $! > {}; exec python3 -m http.server --bind 127.0.0.1 {port}",
                pid_file.display()
            );
            command.args(["-c", &script]);
            Ok(command)
        });
        let guarded = match guarded {
            Ok(guarded) => guarded,
            Err(error) => return eprintln!("skipped: no python3 to serve ({error})"),
        };
        let grandchild: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        drop(guarded);
        let alive =
            Pid::from_raw(grandchild).is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok());
        // A zombie of a reaped group still answers; its state says it is dead.
        let state = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
        assert!(!alive || state.contains(") Z"), "the grandchild {grandchild} outlived the guard: {state}");
    }
}
