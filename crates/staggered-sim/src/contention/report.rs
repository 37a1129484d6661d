//! What a contention experiment measured: one row per (client count,
//! strategy).

use serde::Serialize;

use super::{ContentionParams, ContentionStrategy};
use crate::Summary;

/// One point of the experiment: a client count and a strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ContentionRow {
    /// The client count N.
    pub clients: u32,
    /// The strategy.
    pub strategy: ContentionStrategy,
    /// Calls (writes that reached the server) per run.
    pub calls: Summary,
    /// Completion time per run, in time units.
    pub time: Summary,
}

impl ContentionRow {
    /// Runs averaged into this point.
    pub const fn runs(&self) -> u32 {
        self.calls.runs
    }
    /// The mean calls per run.
    pub const fn mean_calls(&self) -> f64 {
        self.calls.mean
    }
    /// The mean completion time per run, in time units.
    pub const fn mean_time(&self) -> f64 {
        self.time.mean
    }
}

/// What [`ContentionParams`] ran to: a row per client
/// count and strategy, client counts major, both in the parameters' order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentionReport {
    config: ContentionParams,
    rows: Vec<ContentionRow>,
}

impl ContentionReport {
    pub(crate) fn new(config: ContentionParams, rows: Vec<ContentionRow>) -> Self {
        ContentionReport { config, rows }
    }

    /// The parameters that produced this report.
    pub const fn config(&self) -> &ContentionParams {
        &self.config
    }

    /// Every row: for each client count in order, each strategy in order.
    pub fn rows(&self) -> &[ContentionRow] {
        &self.rows
    }

    /// The row of one point, if the experiment had it.
    pub fn row(&self, clients: u32, strategy: ContentionStrategy) -> Option<&ContentionRow> {
        self.rows.iter().find(|row| row.clients == clients && row.strategy == strategy)
    }

    /// The rows of one client count, in strategy order.
    pub fn rows_for(&self, clients: u32) -> impl Iterator<Item = &ContentionRow> + Clone + '_ {
        self.rows.iter().filter(move |row| row.clients == clients)
    }
}
