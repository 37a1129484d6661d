//! Async retry on tokio: a slow, flaky operation with a per-attempt timeout
//! and a deadline.
//!
//! `cargo run -p staggered --example tokio`

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use staggered::{Preset, RetryPolicy, StopReason};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), staggered::ConfigError> {
    // The "interactive" preset: 100 ms base, additive jitter, 3 attempts.
    let policy = RetryPolicy::new(Preset::Interactive.backoff())
        .with_attempt_timeout(Duration::from_millis(100))? // a hung attempt is cut, then retried
        .with_deadline(Duration::from_secs(2))?;

    let calls = AtomicU32::new(0);
    let value = policy
        .retry(|attempt| {
            calls.fetch_add(1, Ordering::Relaxed);
            async move {
                if attempt == 1 {
                    tokio::time::sleep(Duration::from_secs(10)).await; // hangs: cut at 100 ms
                }
                Ok::<_, io::Error>(attempt * 10)
            }
        })
        .call()
        .await
        .expect("the second attempt answers");
    println!("value {value} after {} calls", calls.load(Ordering::Relaxed));
    assert_eq!(value, 20);

    let err = policy.retry(|_| async { Err::<(), _>(io::Error::other("down")) }).call().await.unwrap_err();
    println!("{err}");
    assert_eq!(err.reason(), StopReason::AttemptsExhausted);
    Ok(())
}
