//! `--stdin`: what each attempt reads on its standard input.
//!
//! By default every attempt inherits `stagger`'s standard input, so attempt
//! 2 reads what attempt 1 left: nothing, after `echo data | stagger run --
//! cmd`. With `--stdin replay`, `stagger` reads its standard input to the
//! end before attempt 1 (at most [`REPLAY_LIMIT`]) and gives every attempt
//! the same bytes through a pipe of its own.

use std::io::{self, Read, Write};
use std::process::ChildStdin;
use std::sync::Arc;
use std::thread;

use crate::exit::UsageError;

/// The values of `--stdin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum StdinMode {
    /// Every attempt reads stagger's standard input where the last one left it.
    #[default]
    Inherit,
    /// Read standard input once, to the end, and give each attempt all of it.
    Replay,
}

/// The most `--stdin replay` reads: 64 MiB, held in memory.
pub const REPLAY_LIMIT: usize = 64 << 20;

/// Standard input, read once, for every attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay(Arc<[u8]>);

/// Why standard input could not be kept for replay.
#[derive(Debug)]
pub enum ReplayError {
    /// It holds more than the limit.
    TooLong(usize),
    /// It could not be read.
    Read(io::Error),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::TooLong(limit) => write!(
                f,
                "standard input is longer than {} MiB, the most that replay keeps: give the command \
                 a file to read instead",
                limit >> 20
            ),
            ReplayError::Read(err) => write!(f, "cannot read standard input: {err}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// What the attempts read with `--stdin mode`: for `replay`, standard
/// input read to the end now; `None` when each inherits it.
///
/// # Errors
/// A usage error naming `--stdin` for more than [`REPLAY_LIMIT`], or a
/// failure to read.
pub fn for_attempts(mode: StdinMode) -> anyhow::Result<Option<Replay>> {
    match mode {
        StdinMode::Inherit => Ok(None),
        StdinMode::Replay => match Replay::read(io::stdin().lock(), REPLAY_LIMIT) {
            Ok(replay) => Ok(Some(replay)),
            Err(err @ ReplayError::TooLong(_)) => {
                Err(anyhow::Error::new(err).context(UsageError::option(super::args::flag::STDIN)))
            }
            Err(err) => Err(err.into()),
        },
    }
}

impl Replay {
    /// Reads `input` to the end, refusing more than `limit` bytes.
    ///
    /// # Errors
    /// [`ReplayError::TooLong`] past the limit, [`ReplayError::Read`] if
    /// reading fails.
    pub fn read(input: impl Read, limit: usize) -> Result<Replay, ReplayError> {
        let mut bytes = Vec::new();
        let most = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        input.take(most).read_to_end(&mut bytes).map_err(ReplayError::Read)?;
        if bytes.len() > limit {
            return Err(ReplayError::TooLong(limit));
        }
        Ok(Replay(bytes.into()))
    }

    /// Writes the bytes to `pipe`, an attempt's standard input, from a
    /// thread of its own, and closes it. A command that ends without
    /// reading everything closes its end, and the write stops there.
    ///
    /// # Errors
    /// When the thread cannot start.
    pub fn feed(&self, mut pipe: ChildStdin) -> io::Result<()> {
        let bytes = Arc::clone(&self.0);
        thread::Builder::new().name("stagger-stdin".to_owned()).spawn(move || {
            // Broken pipe: the command did not want the rest.
            let _ = pipe.write_all(&bytes);
        })?;
        Ok(())
    }

    /// The bytes.
    #[cfg(test)]
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_up_to_the_limit_and_refuses_more() {
        assert_eq!(Replay::read(&b"data\n"[..], 5).unwrap().bytes(), b"data\n");
        assert_eq!(Replay::read(&b""[..], 5).unwrap().bytes(), b"");
        let err = Replay::read(&b"data\n!"[..], 5).unwrap_err();
        assert!(matches!(err, ReplayError::TooLong(5)), "{err:?}");
        let message = ReplayError::TooLong(REPLAY_LIMIT).to_string();
        assert!(message.starts_with("standard input is longer than 64 MiB"), "{message}");
    }
}
