//! A fleet: workers running jobs back to back for a span of simulated time
//! (each job acquire → work → write → release), pausing as a distribution
//! says. What the story scenarios show once, a fleet shows as a rate.

use crate::pauses::PauseShape;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fleet {
    /// How long jobs keep starting, in simulated time; a job under way at
    /// the end runs to its end.
    pub span_ms: u64,
    /// A worker's rest between one job and the next.
    pub think_ms: u64,
    /// The pauses every worker draws, each from its own stream.
    pub pauses: PauseShape,
}

/// The most workers a fleet may have; a story shows at most five.
pub const FLEET_WORKERS_MAX: u8 = 64;
/// The longest span: a week of simulated time.
pub const SPAN_MS_MAX: u64 = 7 * 24 * 3_600_000;
/// A fleet's bound on events (a story's is `EVENTS_MAX`).
pub const FLEET_EVENTS_MAX: u32 = 2_000_000_000;

impl Fleet {
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !(1_000..=SPAN_MS_MAX).contains(&self.span_ms) {
            problems.push(format!("a fleet runs from 1 s to a week ({SPAN_MS_MAX} ms), not {} ms", self.span_ms));
        }
        if self.think_ms > 3_600_000 {
            problems.push("a worker rests at most an hour between jobs".to_string());
        }
        if let Some(problem) = self.pauses.law().problem() {
            problems.push(problem);
        }
        problems
    }
}
