//! The canonical scenarios. Each is a complete `Scenario`; the page's
//! controls, the URL and the command line only override fields of one.

use crate::actor::Actor;
use crate::scenario::{Fault, LockService, Release, Scenario, StoreKind, When};

pub const A: Actor = Actor::Worker(0);

/// A preset as the picker shows it.
pub struct Preset {
    pub id: &'static str,
    pub name: &'static str,
    /// The one-line story.
    pub story: &'static str,
    pub build: fn() -> Scenario,
}

pub const PRESETS: &[Preset] = &[Preset {
    id: "gc-pause",
    name: "GC pause",
    story: "A holds a 10 s lease, freezes for 15 s just before its write, and wakes up to write with token 33 after B got token 34",
    build: classic,
}];

pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.id == id)
}

/// Kleppmann's example: TTL 10 s, A paused 15 s before its write, tokens 33
/// and 34, B retrying with backoff until the lease runs out.
pub fn classic() -> Scenario {
    Scenario {
        preset: "gc-pause".to_string(),
        seed: 1,
        workers: 2,
        lock_service: LockService::SingleRedis,
        store: StoreKind::Database,
        fencing: false,
        ttl_ms: 10_000,
        first_token: 33,
        start_gap_ms: 5_000,
        work_ms: 0,
        writes_per_hold: 1,
        renewal: false,
        check_before_write: false,
        release: Release::CompareAndDelete,
        // One way across a datacenter: 0.1–0.25 ms (design.md's figures).
        latency_us_min: 100,
        latency_us_max: 250,
        backoff_ms_min: 100,
        backoff_ms_max: 1_000,
        acquire_attempts_max: 100,
        faults: vec![Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 15_000 }],
        events_max: 10_000,
    }
}
