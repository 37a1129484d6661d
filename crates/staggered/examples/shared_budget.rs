//! One retry budget shared by many tasks: while a dependency is down, the
//! AWS-style token bucket lets a few retries through and refuses the rest,
//! so retries do not multiply the load.
//!
//! `cargo run -p staggered --example shared_budget`

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use staggered::{Backoff, Budget, RetryPolicy, StopReason, Strategy, TokenBucket};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    const TASKS: u32 = 50;
    // A small bucket: 50 tokens, 5 a retry, so 10 retries in all.
    let budget = TokenBucket::builder().with_capacity(50).build();
    let backoff = Backoff::builder(Strategy::Full)
        .with_base(Duration::from_millis(5))
        .with_max_delay(Duration::from_millis(50))
        .with_max_attempts(3)
        .build()
        .expect("valid schedule");
    let policy = Arc::new(RetryPolicy::new(backoff).with_budget(budget.clone()));
    let calls = Arc::new(AtomicU32::new(0));

    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let (policy, calls) = (Arc::clone(&policy), Arc::clone(&calls));
            tokio::spawn(async move {
                let outcome = policy
                    .retry(|_| {
                        calls.fetch_add(1, Ordering::Relaxed);
                        async { Err::<(), _>(io::Error::other("503 from a dependency that is down")) }
                    })
                    .call()
                    .await;
                outcome.unwrap_err().reason()
            })
        })
        .collect();
    let mut refused = 0;
    for task in tasks {
        if task.await.expect("task") == StopReason::BudgetExhausted {
            refused += 1;
        }
    }
    let metrics = budget.metrics().expect("a token bucket keeps metrics");
    let calls = calls.load(Ordering::Relaxed);
    println!(
        "{TASKS} operations, {calls} calls (without a budget: {}); retries allowed {}, refused {}",
        TASKS * 3,
        metrics.allowed,
        metrics.refused
    );
    assert_eq!(refused, metrics.refused);
    assert_eq!(u64::from(calls), u64::from(TASKS) + metrics.allowed);
    assert!(metrics.refused > 0);
}
