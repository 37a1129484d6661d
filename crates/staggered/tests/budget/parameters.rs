//! Budgets and their builders give back the parameters they were given, so a
//! report can show them without keeping a copy.

use std::time::Duration;

use staggered::budget::{RatioBudgetBuilder, TokenBucketBuilder};
use staggered::{RetryThrottle, TokenBucket};

#[test]
fn token_bucket_builder_and_bucket_give_back_their_parameters() {
    let builder = TokenBucket::builder()
        .with_capacity(100)
        .with_retry_cost(3)
        .with_timeout_cost(7)
        .with_throttled_cost(2)
        .with_success_refund(4);
    let got = [
        builder.capacity(),
        builder.retry_cost(),
        builder.timeout_cost(),
        builder.throttled_cost(),
        builder.success_refund(),
    ];
    assert_eq!(got, [100, 3, 7, 2, 4]);
    let bucket = builder.build();
    let got = [
        bucket.capacity(),
        bucket.retry_cost(),
        bucket.timeout_cost(),
        bucket.throttled_cost(),
        bucket.success_refund(),
    ];
    assert_eq!(got, [100, 3, 7, 2, 4]);
    let aws = TokenBucketBuilder::new();
    assert_eq!((aws.capacity(), aws.retry_cost(), aws.timeout_cost()), (500, 5, 10));
}

#[test]
fn ratio_budget_builder_gives_back_its_parameters() {
    let builder = RatioBudgetBuilder::new()
        .with_ttl(Duration::from_secs(20))
        .with_min_per_sec(3)
        .with_retry_percent(0.05);
    assert_eq!(
        (builder.ttl(), builder.min_per_sec(), builder.retry_percent()),
        (Duration::from_secs(20), 3, 0.05)
    );
    let finagle = RatioBudgetBuilder::new();
    assert_eq!(
        (finagle.ttl(), finagle.min_per_sec(), finagle.retry_percent()),
        (Duration::from_secs(10), 10, 0.2)
    );
}

#[test]
fn retry_throttle_gives_back_its_parameters() {
    let throttle = RetryThrottle::with_parameters(40, 0.25).unwrap();
    assert_eq!((throttle.max_tokens(), throttle.token_ratio()), (40, 0.25));
    let grpc = RetryThrottle::new();
    assert_eq!((grpc.max_tokens(), grpc.token_ratio()), (10, 0.1));
}
