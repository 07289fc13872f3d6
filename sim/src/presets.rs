//! The canonical scenarios. Each is a complete `Scenario`; the page's
//! controls, the URL and the command line only override fields of one.
//! Numbers come from the seeds and design.md's measurements.

use crate::actor::Actor;
use crate::cause::Cause;
use crate::scenario::{Fault, LockService, Release, Scenario, StoreKind, TokenSource, When};

const A: Actor = Actor::Worker(0);

/// A preset as the picker shows it.
pub struct Preset {
    pub id: &'static str,
    pub name: &'static str,
    /// The one-line story.
    pub story: &'static str,
    pub build: fn() -> Scenario,
    /// What causes the story, as a claim the preset's own run must bear
    /// out (tested for every preset, fencing off and on).
    pub cause: Cause,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "gc-pause",
        name: "GC pause",
        story: "A holds a 10 s lease with token 33, freezes for 15 s just before its write, and wakes up to write after B got token 34",
        build: classic,
        cause: Cause::FrozenAcrossExpiry,
    },
    Preset {
        id: "lease-x4",
        name: "Quadrupled lease",
        story: "The same 15 s pause under a 40 s lease is survived; a 45 s pause is not: a longer lease only needs a longer pause",
        build: lease_x4,
        cause: Cause::LeaseOutlastsPause,
    },
    Preset {
        id: "renewal",
        name: "Watchdog renewal",
        story: "A renews every ttl/3 while it works, but the pause freezes the watchdog too; the lease runs out mid-pause",
        build: renewal,
        cause: Cause::WatchdogFrozen,
    },
    Preset {
        id: "check-then-write",
        name: "Check, then write",
        story: "A asks \"is the lock still mine?\", hears yes, and pauses between the answer and the write",
        build: check_then_write,
        cause: Cause::PausedBetweenCheckAndWrite,
    },
    Preset {
        id: "delayed-write",
        name: "Delayed write",
        story: "No pause at all: A's write packet sits in the network for 15 s and lands after B took over",
        build: delayed_write,
        cause: Cause::HeldInNetwork,
    },
    Preset {
        id: "holder-crash",
        name: "Holder crashes",
        story: "A crashes while holding the lock; nothing releases it, so B waits out the whole 10 s lease",
        build: holder_crash,
        cause: Cause::CrashWaitsForExpiry,
    },
    Preset {
        id: "naive-del",
        name: "Naive DEL release",
        story: "A wakes after its lease expired and releases with a plain DEL, deleting B's lock; C then gets it while B still works, and B's own DEL later deletes C's",
        build: naive_del,
        cause: Cause::NaiveDelFreesSuccessorsLock,
    },
    Preset {
        id: "redis-failover",
        name: "Redis failover",
        story: "The primary grants A token 33 and crashes before replicating; the promoted replica grants B the lock, and token 33 again",
        build: redis_failover,
        cause: Cause::FailoverLosesLockAndCounter,
    },
    Preset {
        id: "redlock-clock-jump",
        name: "Redlock clock jump",
        story: "A holds 3 of 5 masters; one master's clock jumps ahead, its key expires, and B gathers a majority too",
        build: redlock_clock_jump,
        cause: Cause::ClockJumpBreaksMajority,
    },
    Preset {
        id: "token-inversion",
        name: "Token inversion",
        story: "A's SET NX is granted and A freezes before its INCR; B takes the lock and draws 33; A wakes, draws 34, and the fencing store takes A's stale write and refuses B",
        build: token_inversion,
        cause: Cause::TokenDrawnAfterExpiry,
    },
    Preset {
        id: "consensus-leader-crash",
        name: "Consensus leader crash",
        story: "The consensus leader dies while A holds the lock; a new leader is elected within a second, A keeps its lease, and B's revision comes after A's",
        build: consensus_leader_crash,
        cause: Cause::LeaseSurvivesLeaderCrash,
    },
    Preset {
        id: "consensus-partitioned-leader",
        name: "Consensus leader cut off",
        story: "The leader is cut off from both followers while A holds the lock: it commits nothing (it only renews A's lease in its own memory, as etcd 3.4 does; newer releases check leadership first) and steps down; the other two elect a leader, A's next keep-alive reaches it, and A keeps its lease",
        build: consensus_partitioned_leader,
        cause: Cause::PartitionedLeaderCommitsNothing,
    },
    Preset {
        id: "redis-split-brain",
        name: "Redis split brain",
        story: "Sentinel loses sight of the primary and promotes the replica while the old primary still runs: B gets the lock on one, C on the other, both with token 34",
        build: redis_split_brain,
        cause: Cause::SplitBrainTwoPrimaries,
    },
    Preset {
        id: "consensus-gc-pause",
        name: "Consensus lock, GC pause",
        story:
            "The GC pause against an etcd-like lock: tokens only grow (with gaps), expiry comes up to 0.5 s late, and fencing still decides",
        build: consensus_gc_pause,
        cause: Cause::FrozenAcrossExpiry,
    },
    Preset {
        id: "zookeeper-gc-pause",
        name: "ZooKeeper, GC pause",
        story: "The GC pause against ZooKeeper: A's session stops pinging, expires at the 2 s tick after its 10 s timeout, its znode n-0000000033 goes and B's watch fires on n-0000000034; A wakes to write with its znode's czxid, lower than B's",
        build: zookeeper_gc_pause,
        cause: Cause::FrozenAcrossExpiry,
    },
    Preset {
        id: "zookeeper-parent-recreated",
        name: "ZooKeeper, parent recreated",
        story: "Curator's lock parent is a container znode: A's session expires mid-pause, the server deletes the empty parent at its 60 s container check, and B's lock recreates it and gets n-0000000000 below A's n-0000000033; only the czxid still orders them",
        build: zookeeper_parent_recreated,
        cause: Cause::ParentRecreatedResetsSequence,
    },
    Preset {
        id: "consul-lock-delay",
        name: "Consul lock-delay",
        story: "A GC pause against Consul: A's 10 s session is not renewed, Consul invalidates it at twice its TTL (20 s) mid-pause, and the 15 s lock-delay keeps everyone out until 35 s, so A's write at 30 s lands on nobody's newer data",
        build: consul_lock_delay,
        cause: Cause::LockDelayOutlastsPause,
    },
    Preset {
        id: "consul-long-pause",
        name: "Consul, a longer pause",
        story: "The same Consul lock and a 40 s pause: the session is invalidated at 20 s, the lock-delay ends at 35 s, B's retry takes the lock with LockIndex 34, and A wakes to write with 33 over B's data",
        build: consul_long_pause,
        cause: Cause::FrozenAcrossExpiry,
    },
    Preset {
        id: "redisson-gc-pause",
        name: "Redisson, GC pause",
        story: "Redisson's fenced lock: its watchdog renews A's 30 s lease every 10 s while A works, then a 45 s GC pause freezes the watchdog with A; the lease runs out, B locks with token 34, and A wakes to write with 33",
        build: redisson_gc_pause,
        cause: Cause::WatchdogFrozen,
    },
    Preset {
        id: "redisson-short-pause",
        name: "Redisson, a shorter pause",
        story: "The same Redisson lock and a 15 s pause: the lease the watchdog renewed at 10 s still runs when A wakes, the watchdog renews it again, and A's write is A's alone",
        build: redisson_short_pause,
        cause: Cause::LeaseOutlastsPause,
    },
    Preset {
        id: "no-lock-version",
        name: "No lock: version check",
        story: "No lock at all: each write names the version it read, the store refuses a stale one, and the loser redoes its work",
        build: no_lock_version,
        cause: Cause::VersionCheckRefusesLoser,
    },
];

pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.id == id)
}

/// The scenario of the preset with this id, if there is one.
pub fn build(id: &str) -> Option<Scenario> {
    find(id).map(|preset| (preset.build)())
}

/// Kleppmann's example: TTL 10 s, A paused 15 s before its write, tokens 33
/// and 34, B retrying with backoff until the lease runs out. It is also the
/// scenario's default, which every other preset starts from.
pub fn classic() -> Scenario {
    Scenario::default()
}

/// Whether `fault` is one of the preset's own faults (the story it tells),
/// rather than one a learner added.
pub fn is_preset_fault(scenario: &Scenario, fault: &Fault) -> bool {
    find(&scenario.preset).is_some_and(|preset| (preset.build)().faults.contains(fault))
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
    let crash = Fault::Crash { worker: A, at_ms: 1_000, after_event: None };
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
    // dies at 2 ms, before its 5 ms replication lag passes them on. A writes
    // every 3 s, so its second write (at 6 s) lands on B's data well inside
    // A's own 10 s lease: the failover, not a late client, does the damage.
    let crash = Fault::NodeCrash { node: Actor::LockNode(0), at_ms: 2, down_ms: 60_000, after_event: None };
    named(
        "redis-failover",
        Scenario {
            lock_service: LockService::RedisFailover,
            start_gap_ms: 1_000,
            work_ms: 3_000,
            writes_per_hold: 2,
            faults: vec![crash],
            ..classic()
        },
    )
}

fn redlock_clock_jump() -> Scenario {
    // L4 and L5 are unreachable while A asks, so A's majority is L1–L3; then
    // L3's clock jumps 10 s ahead and A's key there expires at once. B gets
    // L3–L5 at 3 s. A writes every 4 s: its second write (about 8 s) lands on
    // B's data while A's own validity (about 9.9 s) still runs.
    let cut = |node| Fault::Partition { node: Actor::LockNode(node), at_ms: 0, for_ms: 500, from: None, after_event: None };
    let jump = Fault::ClockJump { node: Actor::LockNode(2), at_ms: 2_000, jump_ms: 10_000, after_event: None };
    named(
        "redlock-clock-jump",
        Scenario {
            lock_service: LockService::Redlock,
            start_gap_ms: 3_000,
            work_ms: 4_000,
            writes_per_hold: 2,
            // Redlock asks each master with a timeout small next to the TTL.
            request_timeout_ms: 50,
            faults: vec![cut(3), cut(4), jump],
            ..classic()
        },
    )
}

fn token_inversion() -> Scenario {
    // A's second message is its INCR: it freezes for 12 s right before it,
    // with its SET granted. B takes the lock at about 10 s and draws 33; A
    // wakes at 12 s and draws 34. Both write twice, 1.5 s apart.
    let pause = Fault::Pause { worker: A, when: When::BeforeSend(2), pause_ms: 12_000 };
    named(
        "token-inversion",
        Scenario {
            fencing: true,
            token_source: TokenSource::SeparateIncr,
            work_ms: 1_500,
            writes_per_hold: 2,
            faults: vec![pause],
            ..classic()
        },
    )
}

fn consensus_leader_crash() -> Scenario {
    // A holds the lock from the start and writes at about 4 s and 8 s; the
    // leader L1 dies at 2 s and the members elect L2 after a 1 s election
    // timeout (etcd's default); B asks at 5 s and queues behind A.
    let crash = Fault::NodeCrash { node: Actor::LockNode(0), at_ms: 2_000, down_ms: 60_000, after_event: None };
    named(
        "consensus-leader-crash",
        Scenario {
            lock_service: LockService::Consensus,
            fencing: true,
            latency_us_min: 500,
            latency_us_max: 1_500,
            work_ms: 4_000,
            writes_per_hold: 2,
            failover_ms: 1_000,
            faults: vec![crash],
            ..classic()
        },
    )
}

fn consensus_partitioned_leader() -> Scenario {
    // The leader crash's story, but L1 lives: at 3 s it is cut off from both
    // followers, while A still reaches it. It commits nothing from then on
    // (A's keep-alive at 3.3 s it answers from its own memory, as etcd's
    // lessor renews without raft) and steps down at 4 s, after its 1 s
    // election timeout; L2 and L3 elect L2, whose lessor extends A's lease;
    // A's next keep-alive (6.7 s) reaches L2; B queues behind A at 5 s; the
    // partition heals at 13 s and L1 catches up as a follower.
    let cut = |peer| Fault::Partition {
        node: Actor::LockNode(0),
        at_ms: 3_000,
        for_ms: 10_000,
        from: Some(Actor::LockNode(peer)),
        after_event: None,
    };
    named("consensus-partitioned-leader", Scenario { faults: vec![cut(1), cut(2)], ..consensus_leader_crash() })
}

fn redis_split_brain() -> Scenario {
    // A takes the lock on the primary L1 at once (token 33, replicated to L2
    // within 5 ms). At 1 s L1 is cut off from L2 and the Sentinels beside
    // it, for 20 s; A and C (who starts at 2 s) still reach L1, B never
    // does. Sentinel promotes L2 at 3 s: a fast failover of 2 s configured
    // for the story (Sentinel's default `down-after-milliseconds` is 30 s)
    // so that it happens inside one lease. A's watchdog renews its key on L1
    // alone, so L2's copy runs out at 10 s and B takes the lock there,
    // drawing 34 from the replicated counter; A releases on L1 at 12 s and C
    // takes the lock there, drawing 34 from L1's counter. Two holders, one
    // token: the fencing store cannot tell B's writes from C's. At 21 s the
    // partition heals and Sentinel makes L1 a replica of L2: C's lock is gone.
    let (l1, l2, b) = (Actor::LockNode(0), Actor::LockNode(1), Actor::Worker(1));
    let cut = |node, from, for_ms| Fault::Partition {
        node,
        at_ms: if node == l1 { 1_000 } else { 0 },
        for_ms,
        from: Some(from),
        after_event: None,
    };
    named(
        "redis-split-brain",
        Scenario {
            lock_service: LockService::RedisFailover,
            workers: 3,
            start_gap_ms: 1_000,
            work_ms: 4_000,
            writes_per_hold: 3,
            renewal: true,
            faults: vec![cut(l1, l2, 20_000), cut(b, l1, 60_000)],
            ..classic()
        },
    )
}

fn consensus_gc_pause() -> Scenario {
    // A consensus round trip costs a few milliseconds (etcd lock + unlock
    // p50 ≈ 1.9 ms on loopback), so messages take 0.5–1.5 ms each way.
    named("consensus-gc-pause", Scenario { lock_service: LockService::Consensus, latency_us_min: 500, latency_us_max: 1_500, ..classic() })
}

fn zookeeper_gc_pause() -> Scenario {
    // The consensus lock's latencies: a ZooKeeper write is a quorum round
    // too. A's znode gets sequence number 33 (the parent has seen 33
    // sequential creates), B's 34; their tokens are their czxids
    // (0x100000002 and 0x100000004: each session is a transaction too); A's
    // 10 s session is expired at the 12 s tick.
    named("zookeeper-gc-pause", Scenario { lock_service: LockService::ZooKeeper, ..consensus_gc_pause() })
}

/// A Raft write, like the other consensus services; the 10 s TTL is
/// Consul's shortest. A creates its session at 0 s and freezes before its
/// first renewal (due at TTL / 2), so its last renewal is the session's
/// creation: Consul invalidates it at 2 × TTL (20 s) and the lock-delay
/// runs to 35 s. B, blocked on the key, is refused at 20 s and retries
/// every 5 s: at 25, 30 and 35 s. A 30 s pause ends inside that window.
/// The ZooKeeper GC pause, long enough for the server's container check
/// (every 60 s, `znode.container.checkIntervalMs`'s default) to find the
/// lock's parent empty after A's session expired (12 s); B asks at 65 s,
/// after it was deleted, and A wakes at 80 s.
fn zookeeper_parent_recreated() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 80_000 };
    named("zookeeper-parent-recreated", Scenario { start_gap_ms: 65_000, faults: vec![pause], ..zookeeper_gc_pause() })
}

fn consul_lock_delay() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 30_000 };
    named("consul-lock-delay", Scenario { lock_service: LockService::Consul, faults: vec![pause], ..consensus_gc_pause() })
}

/// A 40 s pause outlasts 2 × TTL + lock-delay from A's last renewal.
fn consul_long_pause() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 40_000 };
    named("consul-long-pause", Scenario { faults: vec![pause], ..consul_lock_delay() })
}

/// Redisson's defaults: a 30 s watchdog lease renewed every 10 s; A works
/// 12 s, so one renewal lands before its pause. B retries less often over
/// the long wait, as a `tryLock` loop with a longer back-off would.
fn redisson_gc_pause() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 45_000 };
    let ttl_ms = crate::services::WATCHDOG_TIMEOUT_MS;
    let base =
        Scenario { lock_service: LockService::Redisson, ttl_ms, work_ms: 12_000, backoff_ms_max: 5_000, faults: vec![pause], ..classic() };
    named("redisson-gc-pause", base)
}

fn redisson_short_pause() -> Scenario {
    let pause = Fault::Pause { worker: A, when: When::BeforeWrite(1), pause_ms: 15_000 };
    named("redisson-short-pause", Scenario { faults: vec![pause], ..redisson_gc_pause() })
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
