//! The canonical scenarios. Each is a complete `Scenario`; the page's
//! controls, the URL and the command line only override fields of one.
//! Numbers come from the seeds and design.md's measurements.

use crate::actor::Actor;
use crate::scenario::{Fault, LockService, Release, Scenario, StoreKind, When};

const A: Actor = Actor::Worker(0);

/// A preset as the picker shows it.
pub struct Preset {
    pub id: &'static str,
    pub name: &'static str,
    /// The one-line story.
    pub story: &'static str,
    pub build: fn() -> Scenario,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "gc-pause",
        name: "GC pause",
        story: "A holds a 10 s lease with token 33, freezes for 15 s just before its write, and wakes up to write after B got token 34",
        build: classic,
    },
    Preset {
        id: "lease-x4",
        name: "Quadrupled lease",
        story: "The same 15 s pause under a 40 s lease is survived; a 45 s pause is not: a longer lease only needs a longer pause",
        build: lease_x4,
    },
    Preset {
        id: "renewal",
        name: "Watchdog renewal",
        story: "A renews every ttl/3 while it works, but the pause freezes the watchdog too; the lease runs out mid-pause",
        build: renewal,
    },
    Preset {
        id: "check-then-write",
        name: "Check, then write",
        story: "A asks \"is the lock still mine?\", hears yes, and pauses between the answer and the write",
        build: check_then_write,
    },
    Preset {
        id: "delayed-write",
        name: "Delayed write",
        story: "No pause at all: A's write packet sits in the network for 15 s and lands after B took over",
        build: delayed_write,
    },
    Preset {
        id: "holder-crash",
        name: "Holder crashes",
        story: "A crashes while holding the lock; nothing releases it, so B waits out the whole 10 s lease",
        build: holder_crash,
    },
    Preset {
        id: "naive-del",
        name: "Naive DEL release",
        story: "A wakes after its lease expired and releases with a plain DEL, deleting B's lock; C then gets it while B still works",
        build: naive_del,
    },
    Preset {
        id: "redis-failover",
        name: "Redis failover",
        story: "The primary grants A token 33 and crashes before replicating; the promoted replica grants B the lock, and token 33 again",
        build: redis_failover,
    },
    Preset {
        id: "redlock-clock-jump",
        name: "Redlock clock jump",
        story: "A holds 3 of 5 masters; one master's clock jumps ahead, its key expires, and B gathers a majority too",
        build: redlock_clock_jump,
    },
    Preset {
        id: "consensus-gc-pause",
        name: "Consensus lock, GC pause",
        story:
            "The GC pause against an etcd-like lock: tokens only grow (with gaps), expiry comes up to 0.5 s late, and fencing still decides",
        build: consensus_gc_pause,
    },
    Preset {
        id: "no-lock-version",
        name: "No lock: version check",
        story: "No lock at all: each write names the version it read, the store refuses a stale one, and the loser redoes its work",
        build: no_lock_version,
    },
];

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
        request_timeout_ms: 1_000,
        replication_lag_ms: 5,
        failover_ms: 2_000,
        faults: vec![pause_before_write(15_000)],
        events_max: 10_000,
    }
}

fn pause_before_write(pause_ms: u64) -> Fault {
    Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms }
}

fn named(id: &str, scenario: Scenario) -> Scenario {
    Scenario { preset: id.to_string(), ..scenario }
}

fn lease_x4() -> Scenario {
    named("lease-x4", Scenario { ttl_ms: 40_000, backoff_ms_max: 2_000, ..classic() })
}

fn renewal() -> Scenario {
    named("renewal", Scenario { renewal: true, work_ms: 5_000, ..classic() })
}

fn check_then_write() -> Scenario {
    named("check-then-write", Scenario { check_before_write: true, ..classic() })
}

fn delayed_write() -> Scenario {
    let delay = Fault::DelayWrite { worker: A, write: 1, delay_ms: 15_000 };
    // A waits for its write's answer instead of giving up after a second.
    named("delayed-write", Scenario { faults: vec![delay], request_timeout_ms: 30_000, ..classic() })
}

fn holder_crash() -> Scenario {
    let crash = Fault::Crash { worker: A, at_ms: 1_000 };
    named("holder-crash", Scenario { work_ms: 3_000, start_gap_ms: 2_000, faults: vec![crash], ..classic() })
}

fn naive_del() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::AtMs(1), pause_ms: 15_000 };
    named(
        "naive-del",
        Scenario { workers: 3, release: Release::NaiveDel, work_ms: 8_000, start_gap_ms: 6_000, faults: vec![pause], ..classic() },
    )
}

fn redis_failover() -> Scenario {
    // A's SET and INCR reach the primary within a millisecond; the primary
    // dies at 2 ms, before its 5 ms replication lag passes them on.
    let crash = Fault::NodeCrash { node: Actor::LockNode(0), at_ms: 2, down_ms: 60_000 };
    named(
        "redis-failover",
        Scenario {
            lock_service: LockService::RedisFailover,
            start_gap_ms: 1_000,
            work_ms: 5_000,
            writes_per_hold: 2,
            faults: vec![crash],
            ..classic()
        },
    )
}

fn redlock_clock_jump() -> Scenario {
    // L4 and L5 are unreachable while A asks, so A's majority is L1–L3; then
    // L3's clock jumps 10 s ahead and A's key there expires at once.
    let cut = |node| Fault::Partition { node: Actor::LockNode(node), at_ms: 0, for_ms: 500 };
    let jump = Fault::ClockJump { node: Actor::LockNode(2), at_ms: 2_000, jump_ms: 10_000 };
    named(
        "redlock-clock-jump",
        Scenario {
            lock_service: LockService::Redlock,
            start_gap_ms: 3_000,
            work_ms: 5_000,
            writes_per_hold: 2,
            // Redlock asks each master with a timeout small next to the TTL.
            request_timeout_ms: 50,
            faults: vec![cut(3), cut(4), jump],
            ..classic()
        },
    )
}

fn consensus_gc_pause() -> Scenario {
    // A consensus round trip costs a few milliseconds (etcd lock + unlock
    // p50 ≈ 1.9 ms on loopback), so messages take 0.5–1.5 ms each way.
    named("consensus-gc-pause", Scenario { lock_service: LockService::Consensus, latency_us_min: 500, latency_us_max: 1_500, ..classic() })
}

fn no_lock_version() -> Scenario {
    named(
        "no-lock-version",
        Scenario { lock_service: LockService::None, store: StoreKind::Versioned, work_ms: 500, start_gap_ms: 1_000, ..classic() },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_named_by_its_id() {
        for preset in PRESETS {
            let scenario = (preset.build)();
            assert_eq!(scenario.validate(), Ok(()), "{}", preset.id);
            assert_eq!(scenario.preset, preset.id);
            assert!(find(preset.id).is_some());
        }
    }
}
