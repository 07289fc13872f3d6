//! Fencing Lab's model: leases, locks, fencing tokens, stores, and the faults
//! that break mutual exclusion. Pure and deterministic: no wall clock, no OS
//! entropy, no web types. One seed and one scenario give one trace, byte for
//! byte, on every platform.

pub mod actor;
pub mod ask;
pub mod backoff;
pub mod caption;
pub mod cause;
mod chacha8;
mod chatter;
pub mod click;
pub mod compare;
pub mod cursor;
pub mod digest;
pub mod event;
pub mod explore;
pub mod fleet;
pub mod guide;
mod history;
pub mod incident;
pub mod jsinput;
pub mod ledger;
mod lock;
pub mod markup;
mod mode;
pub mod msg;
pub mod narrate;
pub mod observer;
pub mod pauses;
pub mod permalink;
pub mod presets;
pub mod property;
mod queue;
pub mod quiz;
pub mod relink;
mod rng;
pub mod scenario;
pub mod scorm;
pub mod services;
pub mod store;
pub mod sweep;
pub mod trace;
pub mod verdict;
mod worker;
pub mod worksheet;
mod world;

pub use actor::Actor;
pub use digest::ActorDigest;
pub use event::{Event, Fate, Kind, Tally};
pub use observer::{Span, SpanKind};
pub use scenario::{Fault, FaultKind, LockService, RedisPersistence, Release, Scenario, ScenarioError, StoreKind, TokenSource, When};
pub use trace::{fnv1a32, Counts, Fencing, StoreState, Summary, Trace};
pub use verdict::{Tone, Verdict};

/// Runs a scenario to its end (or its event bound), keeping every event.
pub fn run(scenario: &Scenario) -> Result<Trace, ScenarioError> {
    scenario.validate()?;
    Ok(world::World::new(scenario, mode::Mode::Full).run())
}

/// Runs a scenario the same way but keeps only its summary: no events, no
/// sentences, no timelines.
pub fn run_summary(scenario: &Scenario) -> Result<Summary, ScenarioError> {
    scenario.validate()?;
    Ok(world::World::new(scenario, mode::Mode::Summary).run().summary)
}

/// Runs a scenario the same way and keeps only its counters, not even the
/// verdict's sentence. For sweeps, quiz keys and the explorer, which run
/// thousands of scenarios and read only their outcomes.
pub fn run_counts(scenario: &Scenario) -> Result<Counts, ScenarioError> {
    scenario.validate()?;
    Ok(world::World::new(scenario, mode::Mode::Summary).run_counts())
}

/// "1 write", "2 writes": a count and its noun, never "write(s)".
pub fn count_of(count: impl Into<u64>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A virtual time for people: "10.000 s" from a second up, "0.6 ms" below.
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
