//! Blocking connect with a retry log: the server is not up yet, so the first
//! connections are refused; it comes up on attempt 3. The predicate and the
//! hook need no types written: they come from the operation.
//!
//! `cargo run -p staggered --example blocking`

use std::io;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use staggered::classify::io::classify_io;
use staggered::{Backoff, RetryPolicy, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A port on 127.0.0.1 that nobody listens on, for now.
    let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?;

    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(20))
        .with_max_delay(Duration::from_millis(200))
        .with_max_attempts(5)
        .build()?;
    let policy = RetryPolicy::new(backoff).with_deadline(Duration::from_secs(2))?;

    let mut server = None;
    let stream = policy
        .retry(|attempt| {
            if attempt == 3 {
                server = Some(TcpListener::bind(addr)?); // the server comes up
            }
            TcpStream::connect(addr)
        })
        .classify(classify_io) // refused, reset, timed out: retry; the rest: stop
        .on_retry(|event| println!("{event}")) // attempt 1/5 failed (connection refused); retrying in 13ms
        .call()?;
    println!("connected to {}", stream.peer_addr()?);
    assert!(server.is_some());

    // A mistake no retry fixes stops at once: the predicate says which.
    let err = policy
        .retry(|_| TcpStream::connect("127.0.0.1:99999"))
        .when(|e| e.kind() == io::ErrorKind::ConnectionRefused)
        .on_give_up(|event| println!("{event}")) // gave up after 1 attempt (permanent error): invalid port value
        .call()
        .unwrap_err();
    assert!(err.is_permanent() && err.attempts() == 1, "{err}");
    Ok(())
}
