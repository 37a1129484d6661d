//! The gRPC driver (`RetryPolicy::retry_grpc`) against a real tonic server on
//! 127.0.0.1. Waits go to a `RecordingSleeper`, or to tokio's paused clock
//! where the default timer or a cut attempt is the point: nothing sleeps.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::tonic::transport::Channel;
use ::tonic::{Code, Status};
use staggered::config::RetryConfig;
use staggered::test_util::RecordingSleeper;
use staggered::tonic::{ClassifyGrpc, ClassifyStatus};
use staggered::{
    Backoff, ErrorKind, Failure, Hint, RetryError, RetryEvent, RetryPolicy, RetryThrottle, Schedule,
    StopReason, Strategy, Timeout,
};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use super::grpc_server::{message, GrpcServer, Reply};

pub(super) const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// 10 ms, 20 ms, 40 ms, ... with no jitter, `attempts` calls in all.
pub(super) fn backoff(attempts: u32) -> Backoff {
    Backoff::builder(Strategy::Exponential)
        .with_base(ms(10))
        .with_max_delay(ms(100))
        .with_max_attempts(attempts)
        .build()
        .unwrap()
}

/// What each retry's event said: the attempt, its failure, the status code.
type Retries = Arc<Mutex<Vec<(u32, Failure, Code, Duration)>>>;

/// A hook of a call that records every retry in `retries`.
fn record(retries: &Retries) -> impl Fn(&RetryEvent<'_, Status>) + '_ {
    move |event| retries.lock().unwrap().push((event.attempt, event.failure, event.error.code(), event.delay))
}

/// The health check, retried on a recording sleeper, for any policy the
/// driver takes: the serving status and the attempts made.
pub(super) trait Check {
    async fn check(
        &self,
        client: &HealthClient<Channel>,
        sleeper: &RecordingSleeper,
    ) -> Result<(i32, u32), RetryError<Status>> {
        self.check_recorded(client, sleeper, &Retries::default()).await
    }

    /// The check, with every retry recorded in `retries`.
    async fn check_recorded(
        &self,
        client: &HealthClient<Channel>,
        sleeper: &RecordingSleeper,
        retries: &Retries,
    ) -> Result<(i32, u32), RetryError<Status>>;
}

impl<S, C, T> Check for RetryPolicy<S, C, T>
where
    S: Schedule,
    C: ClassifyStatus,
    T: Timeout,
{
    async fn check_recorded(
        &self,
        client: &HealthClient<Channel>,
        sleeper: &RecordingSleeper,
        retries: &Retries,
    ) -> Result<(i32, u32), RetryError<Status>> {
        let done = self
            .retry_grpc(client, message(), |mut client, request| async move { client.check(request).await })
            .on_retry(record(retries))
            .with_timer(sleeper, &sleeper.clock())
            .run()
            .await?;
        Ok((done.value.into_inner().status, done.attempts))
    }
}

#[tokio::test]
async fn unavailable_twice_then_serving() {
    let server = GrpcServer::start(|call| {
        if call <= 2 {
            Reply::Fail(Status::unavailable("restarting"))
        } else {
            Reply::Serving
        }
    })
    .await;
    let (policy, retries) = (RetryPolicy::new(backoff(5)), Retries::default());
    let sleeper = RecordingSleeper::new();
    let done = policy.check_recorded(&server.client().await, &sleeper, &retries).await.unwrap();
    assert_eq!((done, server.calls()), ((ServingStatus::Serving as i32, 3), 3));
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20)]);
    let retries = retries.lock().unwrap().clone();
    assert_eq!(
        retries,
        [
            (1, Failure::TRANSIENT, Code::Unavailable, ms(10)),
            (2, Failure::TRANSIENT, Code::Unavailable, ms(20))
        ]
    );
    // A6: each retry tells the server how many attempts came before it.
    let previous = server.metadata("grpc-previous-rpc-attempts");
    assert_eq!(previous, [None, Some("1".into()), Some("2".into())]);
    // No deadline and no per-attempt timeout: no `grpc-timeout`.
    assert_eq!(server.metadata("grpc-timeout"), [None, None, None]);
}

#[tokio::test]
async fn resource_exhausted_waits_the_pushback_and_the_backoff_starts_over() {
    // 10 ms, 20 ms, then a pushback of 1 s, then the backoff from its start: 10 ms.
    let server = GrpcServer::start(|call| match call {
        1 | 2 | 4 => Reply::Fail(Status::unavailable("down")),
        3 => Reply::pushback(Status::resource_exhausted("slow down"), "1000"),
        _ => Reply::Serving,
    })
    .await;
    let (policy, retries) = (RetryPolicy::new(backoff(6)), Retries::default());
    let sleeper = RecordingSleeper::new();
    let (_, attempts) = policy.check_recorded(&server.client().await, &sleeper, &retries).await.unwrap();
    assert_eq!((attempts, server.calls()), (5, 5));
    assert_eq!(sleeper.sleeps(), [ms(10), ms(20), ms(1000), ms(10)]);
    let throttled = retries.lock().unwrap()[2];
    let pushback = Failure::THROTTLED.with_hint(Hint::After(ms(1000)));
    assert_eq!(throttled, (3, pushback, Code::ResourceExhausted, ms(1000)));
}

#[tokio::test(start_paused = true)]
async fn a_pushback_of_one_second_waits_it_on_tokios_clock() {
    let server = GrpcServer::start(|call| {
        if call == 1 {
            Reply::pushback(Status::resource_exhausted("quota"), "1000")
        } else {
            Reply::Serving
        }
    })
    .await;
    let client = server.client().await;
    let policy = RetryPolicy::new(backoff(3));
    let start = tokio::time::Instant::now();
    let done = policy
        .retry_grpc(&client, message(), |mut client, request| async move { client.check(request).await })
        .run()
        .await
        .unwrap();
    assert!(start.elapsed() >= Duration::from_secs(1), "{:?}", start.elapsed());
    assert_eq!((done.attempts, done.waited, server.calls()), (2, Duration::from_secs(1), 2));
    assert_eq!(done.value.into_inner().status, ServingStatus::Serving as i32);
}

#[tokio::test]
async fn a_pushback_of_minus_one_is_not_retried_and_counts_against_the_throttle() {
    let server = GrpcServer::start(|_| Reply::pushback(Status::unavailable("go away"), "-1")).await;
    let throttle = RetryThrottle::new();
    let policy = RetryPolicy::new(backoff(5)).with_budget(throttle.clone());
    let sleeper = RecordingSleeper::new();
    let err = policy.check(&server.client().await, &sleeper).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::HintTooLong, 1, 1));
    assert_eq!(err.error().map(Status::code), Some(Code::Unavailable));
    assert!(sleeper.sleeps().is_empty());
    assert_eq!(throttle.tokens(), 9.0, "grpc-go counts it as a failure for throttling");
}

#[tokio::test]
async fn invalid_argument_is_not_retried() {
    let server = GrpcServer::start(|_| Reply::Fail(Status::invalid_argument("no such service"))).await;
    let policy = RetryPolicy::new(backoff(5));
    let sleeper = RecordingSleeper::new();
    let err = policy.check(&server.client().await, &sleeper).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Permanent, 1, 1));
    // `?` in a tonic handler answers with the server's own status.
    let status = Status::from(err);
    assert_eq!((status.code(), status.message()), (Code::InvalidArgument, "no such service"));
}

#[tokio::test]
async fn a_shared_throttle_stops_retrying_while_the_server_keeps_failing() {
    // gRPC's throttle (10 tokens, a retry only while more than 5 are left):
    // every failure takes a token, the last attempt's too.
    let server = GrpcServer::start(|_| Reply::Fail(Status::unavailable("down"))).await;
    let client = server.client().await;
    let throttle = RetryThrottle::new();
    // Two policies, as two parts of a program would hold, on one throttle.
    let first = Arc::new(RetryPolicy::new(backoff(3)).with_budget(throttle.clone()));
    let second = Arc::new(RetryPolicy::new(backoff(3)).with_budget(throttle.clone()));
    let mut outcomes = Vec::new();
    for policy in [&first, &second, &first] {
        // Spawned: the retry future is `Send`.
        let (policy, client) = (Arc::clone(policy), client.clone());
        let task =
            tokio::spawn(async move {
                let sleeper = RecordingSleeper::new();
                policy
                    .retry_grpc(&client, message(), |mut client, request| async move {
                        client.check(request).await
                    })
                    .with_timer(&sleeper, &sleeper.clock())
                    .run()
                    .await
            });
        let err = task.await.unwrap().unwrap_err();
        outcomes.push((err.reason(), err.attempts(), throttle.tokens()));
    }
    assert_eq!(
        outcomes,
        [
            (StopReason::AttemptsExhausted, 3, 7.0),
            (StopReason::BudgetExhausted, 2, 5.0),
            (StopReason::BudgetExhausted, 1, 4.0)
        ]
    );
    assert_eq!(server.calls(), 6);
}

#[tokio::test]
async fn each_attempt_carries_its_time_limit_as_grpc_timeout() {
    // A 5 s per-attempt timeout under a 5.5 s deadline: attempt 1 gets 5 s;
    // after a 1 s pushback, attempt 2 gets the 4.5 s left.
    let server = GrpcServer::start(|call| {
        if call == 1 {
            Reply::pushback(Status::unavailable("busy"), "1000")
        } else {
            Reply::Serving
        }
    })
    .await;
    let policy = RetryPolicy::new(backoff(3))
        .with_attempt_timeout(Duration::from_secs(5))
        .unwrap()
        .with_deadline(ms(5500))
        .unwrap();
    let sleeper = RecordingSleeper::new();
    let (_, attempts) = policy.check(&server.client().await, &sleeper).await.unwrap();
    assert_eq!(attempts, 2);
    assert_eq!(server.metadata("grpc-timeout"), [Some("5000000u".into()), Some("4500000u".into())]);
}

#[tokio::test(start_paused = true)]
async fn a_hanging_attempt_is_cut_at_its_timeout_and_retried() {
    let server = GrpcServer::start(|call| if call == 1 { Reply::Hang } else { Reply::Serving }).await;
    let client = server.client().await;
    let retries = Retries::default();
    let policy = RetryPolicy::new(backoff(3)).with_attempt_timeout(Duration::from_secs(2)).unwrap();
    let start = tokio::time::Instant::now();
    let done = policy
        .retry_grpc(&client, message(), |mut client, request| async move { client.check(request).await })
        .on_retry(record(&retries))
        .run()
        .await
        .unwrap();
    assert_eq!((done.attempts, server.calls()), (2, 2));
    assert_eq!(start.elapsed(), Duration::from_secs(2) + ms(10));
    let retries = retries.lock().unwrap().clone();
    assert_eq!(retries, [(1, Failure::timeout(), Code::DeadlineExceeded, ms(10))]);
    assert_eq!(server.metadata("grpc-timeout")[0].as_deref(), Some("2000000u"));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_cuts_a_hanging_attempt_without_a_timeout() {
    let server = GrpcServer::start(|_| Reply::Hang).await;
    let client = server.client().await;
    let policy = RetryPolicy::new(backoff(3)).with_deadline(Duration::from_secs(3)).unwrap();
    // On tokio's timer, spawned: the future of `.call()` is `Send`.
    let task = tokio::spawn(async move {
        policy
            .retry_grpc(&client, message(), |mut client, request| async move { client.check(request).await })
            .call()
            .await
    });
    let err = task.await.unwrap().unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Deadline, 1, 1));
    let status = err.error().unwrap();
    assert_eq!(status.code(), Code::DeadlineExceeded);
    assert!(status.message().contains("3s"), "{status}");
    assert_eq!(server.metadata("grpc-timeout"), [Some("3000000u".into())]);
}

#[tokio::test]
async fn the_policys_classifier_sets_the_retryable_codes() {
    let server =
        GrpcServer::start(
            |call| if call <= 2 { Reply::Fail(Status::aborted("conflict")) } else { Reply::Serving },
        )
        .await;
    let client = server.client().await;
    let sleeper = RecordingSleeper::new();
    // By default ABORTED stops; A6's `retryableStatusCodes` with it retries it.
    let err = RetryPolicy::new(backoff(3)).check(&client, &sleeper).await.unwrap_err();
    assert_eq!((err.reason(), server.calls()), (StopReason::Permanent, 1));
    let a6 = ClassifyGrpc::with_retryable_codes([Code::Unavailable, Code::Aborted]);
    assert_eq!(a6.code_failure(Code::Aborted).kind, ErrorKind::Transient);
    let (_, attempts) = RetryPolicy::new(backoff(3)).classify(a6).check(&client, &sleeper).await.unwrap();
    assert_eq!((attempts, server.calls()), (2, 3));
    assert_eq!(sleeper.sleeps(), [ms(10)]);
}

#[tokio::test]
async fn a_configuration_files_policy_retries_by_grpcs_rules() {
    let server = GrpcServer::start(|call| match call {
        1 => Reply::Fail(Status::unavailable("down")),
        2 => Reply::Fail(Status::not_found("no such service")),
        _ => Reply::Serving,
    })
    .await;
    let config = RetryConfig::from_toml_str(
        "[schedule]\nstrategy = \"exponential\"\nbase = \"10ms\"\nmax_attempts = 5\n\
         [limits]\nattempt_timeout = \"1.5s\"\n",
    )
    .unwrap();
    let policy = config.async_policy().unwrap();
    let sleeper = RecordingSleeper::new();
    let err = policy.check(&server.client().await, &sleeper).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Permanent, 2, 2));
    assert_eq!(server.metadata("grpc-timeout"), [Some("1500000u".into()), Some("1500000u".into())]);
}

#[tokio::test]
async fn the_grpc_driver_counts_its_operations_retries_and_give_ups() {
    use staggered::metrics::{FIRST_TRY_SUCCESSES, GIVE_UPS, OPERATIONS, RETRIES, RETRY_DELAY};
    // Calls 1-3: two UNAVAILABLE then serving; call 4: INVALID_ARGUMENT; call 5: serving.
    let server = GrpcServer::start(|call| match call {
        1 | 2 => Reply::Fail(Status::unavailable("restarting")),
        4 => Reply::Fail(Status::invalid_argument("no such service")),
        _ => Reply::Serving,
    })
    .await;
    let client = server.client().await;
    let policy = RetryPolicy::new(backoff(5)).with_operation_name("health");
    let sleeper = RecordingSleeper::new();
    let recorder = metrics_util::debugging::DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    {
        // The test's runtime polls on this thread: the local recorder hears the driver.
        let _guard = metrics::set_default_local_recorder(&recorder);
        assert_eq!(policy.check(&client, &sleeper).await.unwrap().1, 3);
        assert_eq!(policy.check(&client, &sleeper).await.unwrap_err().reason(), StopReason::Permanent);
        assert_eq!(policy.check(&client, &sleeper).await.unwrap().1, 1);
    }
    let recorded = crate::retry::metrics::Recorded::from(snapshotter.snapshot());
    let op = ("staggered.operation", "health");
    assert_eq!(recorded.counter(OPERATIONS, &[op]), 3);
    assert_eq!(recorded.counter(FIRST_TRY_SUCCESSES, &[op]), 1);
    assert_eq!(recorded.counter(RETRIES, &[op, ("error.type", "transient")]), 2);
    assert_eq!(recorded.counter(GIVE_UPS, &[op, ("staggered.stop_reason", "permanent")]), 1);
    assert_eq!(recorded.histogram(RETRY_DELAY, &[op, ("error.type", "transient")]), [0.01, 0.02]);
}

/// The health check hedged by `hedging`, on tokio's (paused) clock: the
/// serving status and which copy answered, of how many sent.
async fn check_hedged(
    policy: &RetryPolicy,
    client: &HealthClient<Channel>,
    hedging: staggered::Hedging,
) -> Result<(i32, u32, u32), RetryError<Status>> {
    let done = policy
        .retry_grpc(client, message(), |mut client, request| async move { client.check(request).await })
        .hedge(hedging)
        .run()
        .await?;
    Ok((done.value.into_inner().status, done.winner, done.attempts))
}

fn hedging(delay: Duration, max_attempts: u32) -> staggered::Hedging {
    staggered::Hedging::after(delay).with_max_attempts(max_attempts).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_hedged_call_takes_the_first_ok_and_the_hedge_says_it_is_one() {
    let server = GrpcServer::start(|call| if call == 1 { Reply::Hang } else { Reply::Serving }).await;
    let start = tokio::time::Instant::now();
    let policy = RetryPolicy::new(backoff(5));
    let answer = check_hedged(&policy, &server.client().await, hedging(ms(10), 2)).await.unwrap();
    assert_eq!(answer, (ServingStatus::Serving as i32, 2, 2));
    assert_eq!(start.elapsed(), ms(10));
    // A6: a hedge carries the count of the copies before it.
    assert_eq!(server.metadata("grpc-previous-rpc-attempts"), [None, Some("1".to_owned())]);
}

#[tokio::test(start_paused = true)]
async fn a_non_fatal_code_sends_the_next_copy_at_once() {
    let server =
        GrpcServer::start(
            |call| if call == 1 { Reply::Fail(Status::unavailable("down")) } else { Reply::Serving },
        )
        .await;
    let start = tokio::time::Instant::now();
    let policy = RetryPolicy::new(backoff(5));
    let answer = check_hedged(&policy, &server.client().await, hedging(Duration::from_secs(3600), 3)).await;
    assert_eq!(answer.unwrap(), (ServingStatus::Serving as i32, 2, 2));
    assert_eq!(start.elapsed(), Duration::ZERO, "not after the hour's delay");
}

#[tokio::test(start_paused = true)]
async fn a_fatal_code_cancels_the_copies_in_flight() {
    let server =
        GrpcServer::start(
            |call| {
                if call == 1 {
                    Reply::Hang
                } else {
                    Reply::Fail(Status::invalid_argument("bad"))
                }
            },
        )
        .await;
    let policy = RetryPolicy::new(backoff(5));
    let err = check_hedged(&policy, &server.client().await, hedging(ms(10), 5)).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts()), (StopReason::Permanent, 2));
    assert_eq!(err.error().map(Status::code), Some(Code::InvalidArgument));
    assert_eq!(server.calls(), 2, "no copy after the fatal code");
}

#[tokio::test(start_paused = true)]
async fn a_pushback_sends_the_next_copy_after_it_and_a_negative_one_sends_no_more() {
    let server = GrpcServer::start(|call| match call {
        1 => Reply::Hang,
        2 => Reply::pushback(Status::unavailable("busy"), "1000"),
        _ => Reply::Serving,
    })
    .await;
    let start = tokio::time::Instant::now();
    let policy = RetryPolicy::new(backoff(5));
    let answer = check_hedged(&policy, &server.client().await, hedging(ms(10), 3)).await.unwrap();
    assert_eq!(answer, (ServingStatus::Serving as i32, 3, 3));
    assert_eq!(start.elapsed(), ms(1010), "copy 2 at 10 ms, copy 3 a pushback later");

    let server = GrpcServer::start(|call| match call {
        2 => Reply::pushback(Status::unavailable("go away"), "-1"),
        _ => Reply::Hang,
    })
    .await;
    let policy = RetryPolicy::new(backoff(5)).with_deadline(ms(500)).unwrap();
    let err = check_hedged(&policy, &server.client().await, hedging(ms(10), 5)).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Deadline, 2, 2));
}

#[tokio::test(start_paused = true)]
async fn the_retry_throttle_at_half_sends_no_hedge_and_a_non_fatal_code_counts_against_it() {
    let throttle = RetryThrottle::new(); // 10 tokens; hedges only above 5
    let policy = RetryPolicy::new(backoff(5)).with_budget(throttle.clone());
    let server = GrpcServer::start(|_| Reply::Fail(Status::unavailable("down"))).await;
    let client = server.client().await;
    // Two copies fail per call, each costing a token: 10 -> 8 -> 6 -> 5 (the
    // third call's second copy is not sent: at 5 the throttle refuses).
    let mut copies = vec![];
    for _ in 0..3 {
        let err = check_hedged(&policy, &client, hedging(ms(10), 2)).await.unwrap_err();
        copies.push((err.attempts(), err.reason()));
    }
    assert_eq!(
        copies,
        [
            (2, StopReason::AttemptsExhausted),
            (2, StopReason::AttemptsExhausted),
            (1, StopReason::BudgetExhausted)
        ]
    );
    assert_eq!(throttle.tokens(), 5.0);
    assert_eq!(server.calls(), 5);
    // At half, not even a slow copy is hedged.
    let server = GrpcServer::start(|call| if call == 1 { Reply::Hang } else { Reply::Serving }).await;
    let policy = RetryPolicy::new(backoff(5)).with_budget(throttle.clone()).with_deadline(ms(100)).unwrap();
    let err = check_hedged(&policy, &server.client().await, hedging(ms(10), 2)).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Deadline, 1, 1));
}

#[tokio::test(start_paused = true)]
async fn a_hedged_call_stops_every_copy_at_a_cancel_or_the_deadline() {
    let server = GrpcServer::start(|_| Reply::Hang).await;
    let client = server.client().await;
    let policy = RetryPolicy::new(backoff(5));
    let cancel_at = tokio::time::Instant::now() + ms(25);
    let err = policy
        .retry_grpc(&client, message(), |mut client, request| async move { client.check(request).await })
        .hedge(hedging(ms(10), 3))
        .cancel_on(tokio::time::sleep_until(cancel_at))
        .call()
        .await
        .unwrap_err();
    assert_eq!((err.reason(), err.attempts(), server.calls()), (StopReason::Cancelled, 3, 3));
    assert_eq!(tokio::time::Instant::now(), cancel_at);

    let server = GrpcServer::start(|_| Reply::Hang).await;
    let policy = RetryPolicy::new(backoff(5)).with_deadline(ms(25)).unwrap();
    let start = tokio::time::Instant::now();
    let err = check_hedged(&policy, &server.client().await, hedging(ms(10), 3)).await.unwrap_err();
    assert_eq!((err.reason(), err.attempts(), start.elapsed()), (StopReason::Deadline, 3, ms(25)));
    // Each copy carried the time it had left as its grpc-timeout.
    let timeouts = server.metadata("grpc-timeout");
    assert_eq!(timeouts.len(), 3);
    assert!(timeouts.iter().all(Option::is_some), "{timeouts:?}");
}
