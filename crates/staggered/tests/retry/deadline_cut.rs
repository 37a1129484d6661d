//! A deadline cut keeps its error: an async attempt still running at the
//! deadline fails with a `TimedOut` in the operation's own error type, with
//! or without a per-attempt timeout, and that cut, not an older failure, is
//! the error the call gives back.

use std::error::Error;
use std::fmt;
use std::io;
use std::time::Duration;

use staggered::{RetryError, RetryPolicy, StopReason, TimedOut};

use super::{exponential, ms};

/// An error type that can hold a cut and a connection reset, and say which
/// it holds.
trait CutOrReset: From<TimedOut> + From<io::Error> + fmt::Display + fmt::Debug {
    /// The time the cut attempt was given, if this is a cut.
    fn cut_after(&self) -> Option<Duration>;
}

impl CutOrReset for io::Error {
    fn cut_after(&self) -> Option<Duration> {
        if self.kind() != io::ErrorKind::TimedOut {
            return None;
        }
        self.get_ref()?.downcast_ref::<TimedOut>().map(|cut| cut.after)
    }
}

impl CutOrReset for Box<dyn Error + Send + Sync> {
    fn cut_after(&self) -> Option<Duration> {
        self.downcast_ref::<TimedOut>().map(|cut| cut.after)
    }
}

/// Runs an operation against a server that never answers, under a 500 ms
/// deadline and, if `attempt_timeout`, a 10 s per-attempt timeout; if
/// `reset_first`, attempt 1 fails at once with a connection reset.
async fn against_a_silent_server<E: CutOrReset>(attempt_timeout: bool, reset_first: bool) -> RetryError<E> {
    let policy = RetryPolicy::new(exponential(5)).with_deadline(ms(500)).unwrap();
    let operation = |attempt| async move {
        if reset_first && attempt == 1 {
            return Err(E::from(io::Error::from(io::ErrorKind::ConnectionReset)));
        }
        std::future::pending::<()>().await;
        Ok(())
    };
    let start = tokio::time::Instant::now();
    let outcome = if attempt_timeout {
        policy.with_attempt_timeout(Duration::from_secs(10)).unwrap().retry(operation).call().await
    } else {
        policy.retry(operation).call().await
    };
    assert_eq!(start.elapsed(), ms(500), "cut at the deadline");
    outcome.unwrap_err()
}

/// Every case: the cut's `TimedOut`, given the time the cut attempt had.
async fn each_cut_keeps_its_timed_out<E: CutOrReset>() {
    for attempt_timeout in [false, true] {
        let case = if attempt_timeout { "with a 10 s attempt timeout" } else { "with no attempt timeout" };
        let err = against_a_silent_server::<E>(attempt_timeout, false).await;
        assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 1), "{case}");
        let error = err.error().unwrap_or_else(|| panic!("{case}: no error"));
        assert_eq!(error.cut_after(), Some(ms(500)), "{case}: {error:?}");

        // Attempt 1 reset at once, then 100 ms of backoff: attempt 2 had the 400 ms left.
        let err = against_a_silent_server::<E>(attempt_timeout, true).await;
        assert_eq!((err.reason(), err.attempts()), (StopReason::Deadline, 2), "{case}");
        let error = err.error().unwrap_or_else(|| panic!("{case}, after a reset: no error"));
        assert_eq!(error.cut_after(), Some(ms(400)), "{case}: the cut, not the reset: {error:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_deadline_cut_gives_an_io_error_operation_its_timed_out() {
    each_cut_keeps_its_timed_out::<io::Error>().await;
}

#[tokio::test(start_paused = true)]
async fn a_deadline_cut_gives_a_boxed_error_operation_its_timed_out() {
    each_cut_keeps_its_timed_out::<Box<dyn Error + Send + Sync>>().await;
}
