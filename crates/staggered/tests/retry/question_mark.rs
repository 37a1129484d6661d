//! A retried call's error with `?`: a typed error converts as it is; an
//! `anyhow::Error` or a boxed error, which are not `std::error::Error`s
//! themselves, converts once boxed with `RetryError::boxed`. Either way the
//! source chain reaches the attempt's own error.

use std::error::Error;
use std::io;

use staggered::{RetryError, RetryPolicy};

use super::exponential;

fn refused() -> io::Error {
    io::Error::from(io::ErrorKind::ConnectionRefused)
}

/// The types in the chain of `err`, as their `Display`s.
fn chain(err: &anyhow::Error) -> Vec<String> {
    err.chain().map(ToString::to_string).collect()
}

#[test]
fn every_error_type_the_guide_recommends_converts_with_question_mark_keeping_the_chain() {
    let policy = RetryPolicy::new(exponential(1));

    // A typed error: `?` as it is.
    let typed = || -> anyhow::Result<()> {
        policy.retry(|_| Err::<(), _>(refused())).call()?;
        Ok(())
    };
    let err = typed().unwrap_err();
    assert!(err.root_cause().downcast_ref::<io::Error>().is_some(), "{:?}", chain(&err));

    // anyhow's own error, with its context.
    let with_anyhow = || -> anyhow::Result<()> {
        use anyhow::Context;
        let attempt = || Err::<(), _>(refused()).context("config server unreachable");
        policy.retry(|_| attempt()).call().map_err(RetryError::boxed)?;
        Ok(())
    };
    let err = with_anyhow().unwrap_err();
    assert_eq!(err.chain().count(), 3, "{:?}", chain(&err));
    assert_eq!(err.chain().nth(1).unwrap().to_string(), "config server unreachable");
    assert!(err.root_cause().downcast_ref::<io::Error>().is_some(), "{:?}", chain(&err));

    // A boxed error, into a boxed error as into anyhow.
    let boxed = || -> Result<(), Box<dyn Error + Send + Sync>> {
        let attempt = || Err::<(), Box<dyn Error + Send + Sync>>(Box::new(refused()));
        policy.retry(|_| attempt()).call().map_err(RetryError::boxed)?;
        Ok(())
    };
    let err = boxed().unwrap_err();
    let source = err.source().expect("the attempt's error is the source");
    assert_eq!(source.to_string(), refused().to_string());
    let into_anyhow = || -> anyhow::Result<()> {
        boxed().map_err(anyhow::Error::from_boxed)?;
        Ok(())
    };
    assert!(into_anyhow().unwrap_err().chain().count() >= 2);
}
