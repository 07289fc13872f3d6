//! Fencing Lab's engine: leases, locks, fencing tokens, stores, and the
//! faults that break mutual exclusion, run as a deterministic discrete-event
//! simulation. Pure: no wall clock, no OS entropy, no web types. One seed and
//! one scenario give one record, byte for byte, on every platform.
//!
//! The bottom layer of the model's crates (ARCHITECTURE.md, "Layers"): it
//! records what happened as typed facts (`event::Kind`, `record::Record`)
//! and says nothing in words. Sentences, verdicts, presets, the quiz and
//! links are the story crate's (`fencing-sim`), built on this one.

pub mod actor;
pub mod backoff;
mod chacha8;
pub mod event;
mod history;
pub mod incident;
pub mod ledger;
mod lock;
pub mod mode;
pub mod msg;
pub mod observer;
pub mod pauses;
mod queue;
pub mod record;
mod rng;
pub mod scenario;
pub mod services;
pub mod store;
mod worker;
mod world;

pub use history::{is_rightful_refusal, is_stale_overwrite, is_zombie_write};
pub use record::{Counts, Fencing, Record};
pub use world::World;
// What the explorer's bounds and table need to know of the worker's rules.
pub use worker::{renew_interval_us, JOB_RETRIES_MAX};

use mode::Mode;
use scenario::{Scenario, ScenarioError};

/// Runs a scenario to its end (or its event bound), keeping every event.
pub fn run(scenario: &Scenario) -> Result<Record, ScenarioError> {
    scenario.validate()?;
    Ok(World::new(scenario, Mode::Full).run())
}

/// Runs a scenario the same way but keeps no events and no timelines: the
/// counters and the moments a verdict names.
pub fn run_summary(scenario: &Scenario) -> Result<Record, ScenarioError> {
    scenario.validate()?;
    Ok(World::new(scenario, Mode::Summary).run())
}

/// Runs a scenario the same way and keeps only its counters. For sweeps,
/// quiz keys and the explorer, which run thousands of scenarios and read
/// only their outcomes.
pub fn run_counts(scenario: &Scenario) -> Result<Counts, ScenarioError> {
    scenario.validate()?;
    Ok(World::new(scenario, Mode::Summary).run_counts())
}

/// "1 write", "2 writes": a count and its noun, never "write(s)" (the
/// scenario's own error messages use it).
pub fn count_of(count: impl Into<u64>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A virtual time for people: "10.000 s" from a second up, "0.6 ms" below
/// (the services' descriptions of their timers use it).
pub fn format_us(us: u64) -> String {
    if us >= 1_000_000 {
        format!("{}.{:03} s", us / 1_000_000, (us % 1_000_000) / 1000)
    } else {
        format!("{}.{} ms", us / 1000, (us % 1000) / 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_naturally() {
        assert_eq!(format_us(0), "0.0 ms");
        assert_eq!(format_us(650), "0.6 ms");
        assert_eq!(format_us(15_000_400), "15.000 s");
        assert_eq!(format_us(10_250_000), "10.250 s");
    }
}
