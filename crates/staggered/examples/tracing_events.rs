//! The `tracing` events of a retry loop: a `WARN` per retry with the
//! attempt, the delay and the error's type and message; a `WARN` when it
//! gives up after retries (the level is yours to choose); a `DEBUG` for a
//! permanent failure on the first attempt, which retried nothing.
//!
//! `cargo run -p staggered --example tracing_events --features tracing`

use std::io;
use std::time::Duration;

use staggered::classify::io::classify_io;
use staggered::{Backoff, RetryPolicy, Strategy};

fn main() {
    tracing_subscriber::fmt().with_max_level(tracing::Level::DEBUG).with_target(true).init();
    let backoff = Backoff::builder(Strategy::Exponential)
        .with_base(Duration::from_millis(10))
        .with_max_attempts(3)
        .build()
        .expect("valid schedule");
    let policy = RetryPolicy::new(backoff).classify(classify_io);

    // Two retries, then a success: two WARN events.
    let _ = policy
        .retry(
            |attempt| if attempt < 3 { Err(io::Error::from(io::ErrorKind::ConnectionReset)) } else { Ok(()) },
        )
        .call();

    // Attempts exhausted: two retries and a give-up, at ERROR as asked.
    let loud = policy.clone().with_give_up_level(tracing::Level::ERROR);
    let _ = loud.retry(|_| Err::<(), _>(io::Error::from(io::ErrorKind::TimedOut))).call();

    // Permanent at once: one DEBUG event, nothing retried.
    let _ = policy.retry(|_| Err::<(), _>(io::Error::from(io::ErrorKind::PermissionDenied))).call();
}
