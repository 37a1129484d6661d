//! State across attempts in tasks spawned on a multi-thread runtime: what
//! the closure alone changes is moved into it; what the attempts change is
//! behind an `Arc`, of which each attempt's future gets its own handle. The
//! retry future is then `Send`, so it can be spawned.
//!
//! `cargo run -p staggered --example spawned_state`

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use staggered::{Backoff, RetryPolicy, Strategy};

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(5))
        .with_max_delay(Duration::from_millis(50))
        .with_max_attempts(4)
        .build()
        .expect("valid schedule");
    let policy = Arc::new(RetryPolicy::new(backoff));
    // Every attempt of every task, by task: shared, changed across awaits.
    let journal = Arc::new(Mutex::new(BTreeMap::<u32, Vec<u32>>::new()));

    let tasks: Vec<_> = (0..8)
        .map(|task| {
            let (policy, journal) = (Arc::clone(&policy), Arc::clone(&journal));
            tokio::spawn(async move {
                let mut tries = 0; // changed by the closure alone: moved into it
                policy
                    .retry(move |attempt| {
                        tries += 1;
                        let journal = Arc::clone(&journal); // this attempt's handle
                        async move {
                            tokio::time::sleep(Duration::from_millis(1)).await;
                            journal.lock().expect("journal").entry(task).or_default().push(attempt);
                            // Task n fails its first n % 3 attempts.
                            if attempt <= task % 3 {
                                Err(io::Error::other(format!("task {task}: busy")))
                            } else {
                                Ok(tries)
                            }
                        }
                    })
                    .on_retry(|event| println!("{event}"))
                    .call()
                    .await
            })
        })
        .collect();
    for (task, handle) in (0..).zip(tasks) {
        let tries = handle.await.expect("task").expect("within 4 attempts");
        assert_eq!(tries, task % 3 + 1);
    }
    let journal = journal.lock().expect("journal");
    for (task, attempts) in journal.iter() {
        println!("task {task}: attempts {attempts:?}");
        assert_eq!(attempts.len() as u32, task % 3 + 1);
    }
}
