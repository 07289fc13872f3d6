//! Random schedules: the knobs every scenario varies, the faults that strike
//! workers and lock nodes, and the configurations each property is about.

use fencing_sim::{presets, Actor, Fault, LockService, RedisPersistence, Release, Scenario, TokenSource, When};
use proptest::prelude::*;

/// A worker fault anywhere in the first minute: pauses (at a time, before
/// a write, before any message), crashes, held writes, lost messages.
fn worker_fault(workers: u8) -> impl Strategy<Value = Fault> {
    let worker = (0..workers).prop_map(Actor::Worker);
    prop_oneof![
        (worker.clone(), 0..60_000u64, 0..60_000u64).prop_map(|(worker, at_ms, pause_ms)| Fault::Pause {
            worker,
            when: When::AtMs(at_ms),
            pause_ms
        }),
        (worker.clone(), 1..=2u8, 0..60_000u64).prop_map(|(worker, n, pause_ms)| Fault::Pause {
            worker,
            when: When::BeforeWrite(n),
            pause_ms
        }),
        (worker.clone(), 1..=12u16, 0..60_000u64).prop_map(|(worker, n, pause_ms)| Fault::Pause {
            worker,
            when: When::BeforeSend(n),
            pause_ms
        }),
        (worker.clone(), 1..=2u8, 0..60_000u64).prop_map(|(worker, write, delay_ms)| Fault::DelayWrite { worker, write, delay_ms }),
        (worker.clone(), 0..60_000u64).prop_map(|(worker, at_ms)| Fault::Crash { worker, at_ms, after_event: None }),
        (worker, 0..60_000u64).prop_map(|(from, at_ms)| Fault::LoseMessage { from, at_ms, after_event: None }),
    ]
}

/// A lock-node fault: a crash (a restart without its data, unless it
/// persists), a drifting clock, or — on Redis only — a clock jump.
fn node_fault(nodes: u8, jumps: bool) -> BoxedStrategy<Fault> {
    let node = (0..nodes).prop_map(Actor::LockNode);
    let crash = (node.clone(), 0..30_000u64, 0..20_000u64).prop_map(|(node, at_ms, down_ms)| Fault::NodeCrash {
        node,
        at_ms,
        down_ms,
        after_event: None,
    });
    let drift = (node.clone(), -200_000..200_000i32).prop_map(|(node, ppm)| Fault::ClockDrift { node, ppm });
    if !jumps {
        return prop_oneof![crash, drift].boxed();
    }
    let jump = (node, 0..30_000u64, -20_000..20_000i64).prop_map(|(node, at_ms, jump_ms)| Fault::ClockJump {
        node,
        at_ms,
        jump_ms,
        after_event: None,
    });
    prop_oneof![crash, drift, jump].boxed()
}

/// The knobs every schedule varies.
pub fn base() -> impl Strategy<Value = Scenario> {
    (any::<u64>(), 2..=5u8, 500..30_000u64, 0..8_000u64, 0..4_000u64, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(seed, workers, ttl_ms, work_ms, start_gap_ms, renewal, check_before_write, naive)| Scenario {
            seed,
            workers,
            ttl_ms,
            work_ms,
            start_gap_ms,
            renewal,
            check_before_write,
            release: if naive { Release::NaiveDel } else { Release::CompareAndDelete },
            writes_per_hold: 2,
            faults: Vec::new(),
            ..presets::classic()
        },
    )
}

/// The configurations that guarantee no stale write, with any faults they
/// can take: one Redis running the acquire script with an fsync'd counter,
/// or the three-member consensus lock; fencing on, a database store.
pub fn fenced_with_atomic_tokens() -> impl Strategy<Value = Scenario> {
    (base(), any::<bool>())
        .prop_flat_map(|(scenario, consensus)| {
            let scenario = on_service(Scenario { fencing: true, ..scenario }, consensus);
            let nodes = scenario.lock_service.nodes();
            let faults =
                (prop::collection::vec(worker_fault(scenario.workers), 0..5), prop::collection::vec(node_fault(nodes, !consensus), 0..3));
            (Just(scenario), faults)
        })
        .prop_map(|(scenario, (mut faults, node_faults))| {
            faults.extend(node_faults);
            Scenario { faults, ..scenario }
        })
}

/// Single Redis with the atomic script and a durable counter, or consensus
/// (which has no naive DEL).
fn on_service(scenario: Scenario, consensus: bool) -> Scenario {
    if consensus {
        return Scenario { lock_service: LockService::Consensus, release: Release::CompareAndDelete, ..scenario };
    }
    Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..scenario }
}

/// Schedules in which no holder can outlive its lease: renewal on, work and
/// pauses well inside the renewal margin, no held writes or lost messages.
pub fn short_pauses_with_renewal() -> impl Strategy<Value = Scenario> {
    (base(), any::<bool>(), 0..4_000u64)
        .prop_flat_map(|(scenario, consensus, pause_ppt)| {
            let ttl_ms = scenario.ttl_ms.max(2_000);
            let pause_ms = ttl_ms * pause_ppt / 10_000; // at most 40% of the lease
            let pauses = prop::collection::vec((0..scenario.workers, 0..30_000u64), 0..3).prop_map(move |picks| {
                let mut used = Vec::new();
                picks
                    .into_iter()
                    .filter(|(worker, _)| {
                        let fresh = !used.contains(worker);
                        used.push(*worker);
                        fresh
                    })
                    .map(|(worker, at_ms)| Fault::Pause { worker: Actor::Worker(worker), when: When::AtMs(at_ms), pause_ms })
                    .collect::<Vec<_>>()
            });
            (Just(scenario), Just(consensus), Just(ttl_ms), pauses)
        })
        .prop_map(|(scenario, consensus, ttl_ms, faults)| on_service(Scenario { ttl_ms, renewal: true, faults, ..scenario }, consensus))
}

/// Any lock service, token source, store and fencing, with any faults the
/// scenario can take: for determinism, which must hold whatever happens.
pub fn anything() -> impl Strategy<Value = Scenario> {
    let services = prop::sample::select(LockService::ALL.to_vec());
    (base(), services, any::<bool>(), any::<bool>(), any::<bool>())
        .prop_flat_map(|(scenario, lock_service, fencing, atomic, durable)| {
            let scenario = Scenario {
                lock_service,
                ttl_ms: lock_service.nearest_ttl_ms(scenario.ttl_ms),
                fencing,
                token_source: if atomic { TokenSource::AtomicScript } else { TokenSource::SeparateIncr },
                redis_persistence: if durable { RedisPersistence::FsyncAlways } else { RedisPersistence::None },
                store: if lock_service == LockService::None { fencing_sim::StoreKind::Versioned } else { fencing_sim::StoreKind::Database },
                release: if !lock_service.spec().options.naive_del { Release::CompareAndDelete } else { scenario.release },
                renewal: scenario.renewal && lock_service != LockService::Redlock,
                ..scenario
            };
            let nodes = lock_service.nodes().max(1);
            let jumps = lock_service.spec().options.clock_jumps;
            let node_faults = prop::collection::vec(node_fault(nodes, jumps), 0..3).prop_map(move |faults| {
                if lock_service == LockService::None {
                    Vec::new()
                } else {
                    faults
                }
            });
            (Just(scenario), prop::collection::vec(worker_fault(2), 0..4), node_faults)
        })
        .prop_map(|(scenario, mut faults, node_faults)| {
            faults.extend(node_faults);
            Scenario { faults, ..scenario }
        })
}
