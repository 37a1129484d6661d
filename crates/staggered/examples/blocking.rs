//! Blocking retry: an operation that fails twice with a reset connection,
//! then succeeds; a permanent error stops at once.
//!
//! `cargo run -p staggered --example blocking`

use std::io;
use std::time::Duration;

use staggered::classify::io::classify_io;
use staggered::{Backoff, RetryEvent, RetryPolicy, Strategy};

fn main() {
    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(20))
        .with_max_delay(Duration::from_millis(200))
        .with_max_attempts(4)
        .build()
        .expect("valid schedule");
    let policy = RetryPolicy::new(backoff)
        .classify(classify_io) // reset, refused, timed out: retry; the rest: stop
        .with_deadline(Duration::from_secs(2))
        .on_retry(|event: &RetryEvent<'_, io::Error>| {
            println!("attempt {} failed ({}), retrying in {:?}", event.attempt, event.error, event.delay);
        });

    let mut calls = 0;
    let done = policy
        .run(|attempt| {
            calls += 1;
            if attempt < 3 {
                Err(io::Error::from(io::ErrorKind::ConnectionReset))
            } else {
                Ok("payload")
            }
        })
        .expect("third time lucky");
    println!("got {:?} after {} attempts, {:?} waiting", done.value, done.attempts, done.waited);
    assert_eq!((done.attempts, calls), (3, 3));

    let err = policy.call(|_| Err::<(), _>(io::Error::from(io::ErrorKind::PermissionDenied))).unwrap_err();
    println!("{err}"); // gave up after 1 attempt (permanent error): permission denied
    assert!(err.is_permanent());
}
