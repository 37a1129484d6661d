//! The stalling server: a hedged copy the client drops frees its worker at
//! once on a server that notices, and holds it to the end on one that
//! does not.

use std::time::Duration;

use servers::driver::{drive, ClientPolicy, HedgeChoice, Load};
use servers::record::AttemptOutcome;
use servers::stalling::{StallConfig, StallingServer};

/// Requests of the run: every one stalls, so every one is hedged, and the
/// copy that answers second is dropped.
const REQUESTS: usize = 10;

fn config(frees_worker_on_cancel: bool) -> StallConfig {
    StallConfig {
        // Enough workers that no copy queues: each request's two copies
        // both start at once.
        workers: 64,
        service_time: Duration::from_millis(5),
        stall_fraction: 1.0,
        stall_time: Duration::from_millis(500),
        frees_worker_on_cancel,
        seed: 1,
    }
}

async fn hedged_run(server: &StallingServer) -> servers::driver::Run {
    let mut load = Load::new(server.url("/"), 1, 20.0, Duration::from_secs(10));
    load.max_requests = REQUESTS;
    let policy = ClientPolicy::hedged(HedgeChoice::After(Duration::from_millis(50)));
    drive(&load, &policy).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_copy_frees_its_worker_on_a_server_that_notices() {
    let server = StallingServer::start(config(true)).await.unwrap();
    let run = hedged_run(&server).await;
    assert_eq!(run.requests.len(), REQUESTS);
    assert!(run.requests.iter().all(|r| r.attempts == 2), "every request hedged once: {:?}", run.requests);
    let dropped = run.attempts.iter().filter(|a| a.outcome == AttemptOutcome::Cancelled).count();
    assert_eq!(dropped, REQUESTS, "one copy of each request dropped");
    let counts = server.settle(Duration::from_millis(20), Duration::from_secs(10)).await;
    // The server saw both copies of each, finished one, and freed the
    // other's worker when its client went.
    assert_eq!((counts.received, counts.stalled), (2 * REQUESTS as u64, 2 * REQUESTS as u64), "{counts:?}");
    assert_eq!(
        (counts.completed, counts.cancelled, counts.busy),
        (REQUESTS as u64, REQUESTS as u64, 0),
        "{counts:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_copy_holds_its_worker_to_the_end_on_a_server_that_does_not() {
    let server = StallingServer::start(config(false)).await.unwrap();
    let run = hedged_run(&server).await;
    assert_eq!(run.requests.len(), REQUESTS);
    let dropped = run.attempts.iter().filter(|a| a.outcome == AttemptOutcome::Cancelled).count();
    assert_eq!(dropped, REQUESTS, "one copy of each request dropped");
    let counts = server.settle(Duration::from_millis(20), Duration::from_secs(10)).await;
    // Every copy's work ran to its end, the dropped ones' too.
    assert_eq!(counts.received, 2 * REQUESTS as u64, "{counts:?}");
    assert_eq!((counts.completed, counts.cancelled, counts.busy), (2 * REQUESTS as u64, 0, 0), "{counts:?}");
}
