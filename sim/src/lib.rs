//! Fencing Lab's model: leases, locks, fencing tokens, stores, and the faults
//! that break mutual exclusion. Pure and deterministic: no wall clock, no OS
//! entropy, no web types. One seed and one scenario give one trace, byte for
//! byte, on every platform.

pub mod ask;
pub mod caption;
pub mod cause;
mod chatter;
pub mod click;
pub mod compare;
pub mod cursor;
pub mod digest;
pub mod explore;
pub mod fleet;
pub mod guide;
pub mod history;
pub mod markup;
pub mod narrate;
pub mod permalink;
pub mod presets;
pub mod property;
pub mod quiz;
pub mod real;
pub mod relink;
pub mod sweep;
pub mod trace;
pub mod verdict;
pub mod worksheet;

// The engine below, under the names the page, the command line and the
// lesson have always used: `fencing_sim::scenario`, `fencing_sim::Event`.
pub use fencing_engine::{actor, backoff, event, incident, ledger, mode, msg, observer, pauses, scenario, services, store};
pub use fencing_engine::{count_of, format_us, Counts, Fencing, Record};

pub use actor::Actor;
pub use digest::ActorDigest;
pub use event::{Event, Fate, Kind, Tally};
pub use observer::{Span, SpanKind};
pub use scenario::{Fault, FaultKind, LockService, RedisPersistence, Release, Scenario, ScenarioError, StoreKind, TokenSource, When};
pub use trace::{fnv1a32, StoreState, Summary, Trace};
pub use verdict::{Tone, Verdict};

/// Runs a scenario to its end (or its event bound), keeping every event:
/// the engine's record, with its verdict.
pub fn run(scenario: &Scenario) -> Result<Trace, ScenarioError> {
    fencing_engine::run(scenario).map(Trace::from)
}

/// Runs a scenario the same way but keeps only its summary: no events, no
/// sentences but the verdict's, no timelines.
pub fn run_summary(scenario: &Scenario) -> Result<Summary, ScenarioError> {
    fencing_engine::run_summary(scenario).map(|record| Summary::new(&record))
}

/// Runs a scenario the same way and keeps only its counters, not even the
/// verdict's sentence. For sweeps, quiz keys and the explorer, which run
/// thousands of scenarios and read only their outcomes.
pub fn run_counts(scenario: &Scenario) -> Result<Counts, ScenarioError> {
    fencing_engine::run_counts(scenario)
}
