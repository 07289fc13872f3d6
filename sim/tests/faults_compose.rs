//! Faults compose as real clusters do (each case failed before its fix):
//! services decide by reachability, a fault pinned to an event strikes
//! exactly there, and the explorer finds what the presets show.

use fencing_sim::explore::{explore, Outcome};
use fencing_sim::property::Property;
use fencing_sim::{presets, run, Actor, Fault, Kind, RedisPersistence, Scenario, TokenSource, Trace, When};

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);
const L1: Actor = Actor::LockNode(0);
const L2: Actor = Actor::LockNode(1);
const L3: Actor = Actor::LockNode(2);

fn preset(id: &str) -> Scenario {
    presets::build(id).unwrap_or_else(|| panic!("no preset {id}"))
}

fn cut(node: Actor, at_ms: u64, for_ms: u64, from: Option<Actor>) -> Fault {
    Fault::Partition { node, at_ms, for_ms, from, after_event: None }
}

/// The events of `actor` of the wanted kind, as (time, kind).
fn of(trace: &Trace, actor: Actor, wanted: impl Fn(&Kind) -> bool) -> Vec<(u64, Kind)> {
    trace.events.iter().filter(|event| event.actor == actor && wanted(&event.kind)).map(|event| (event.t_us, event.kind)).collect()
}

fn commits(kind: &Kind) -> bool {
    matches!(kind, Kind::Granted { .. } | Kind::Renewed { .. } | Kind::Expired { .. } | Kind::Deleted { .. } | Kind::Waits { .. })
}

#[test]
fn a_leader_cut_off_from_both_followers_commits_nothing_and_steps_down() {
    // Finding 1: L1 alone used to grant and commit revisions 35 and 36.
    let faults = vec![cut(L2, 1_000, 30_000, None), cut(L3, 1_000, 30_000, None)];
    let trace = run(&Scenario { faults, ..preset("consensus-leader-crash") }).unwrap();
    assert!(of(&trace, L1, commits).iter().all(|(t_us, _)| *t_us < 1_000_000), "L1 commits nothing once cut off");
    assert_eq!(of(&trace, L1, |kind| *kind == Kind::SteppedDown).len(), 1, "it steps down after its election timeout");
    // Nobody reaches a majority until the partition heals at 31 s.
    let elected = of(&trace, L2, |kind| matches!(kind, Kind::Elected { .. }))
        .into_iter()
        .chain(of(&trace, L3, |kind| matches!(kind, Kind::Elected { .. })));
    assert!(elected.into_iter().all(|(t_us, _)| t_us >= 31_000_000), "no election without a majority");
}

#[test]
fn a_cut_off_leader_is_replaced_and_the_holder_keeps_its_lease() {
    // Finding 1: the isolated L1 used to revoke A's lease and the whole
    // service stopped for 10 s.
    let trace = run(&Scenario { faults: vec![cut(L1, 2_000, 10_000, None)], ..preset("consensus-leader-crash") }).unwrap();
    assert_eq!(of(&trace, L1, |kind| *kind == Kind::SteppedDown).len(), 1);
    let elected = of(&trace, L2, |kind| matches!(kind, Kind::Elected { .. }));
    assert_eq!(elected.first().map(|(t_us, _)| *t_us), Some(3_000_000), "the majority elects after one election timeout");
    assert!(of(&trace, L1, |kind| matches!(kind, Kind::Expired { .. })).is_empty(), "the cut-off leader revokes nothing");
    assert!(of(&trace, L1, |kind| matches!(kind, Kind::Healed { .. })).len() == 1, "it catches up when the partition heals");
    let tokens: Vec<(Actor, Option<u64>)> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Acquired { .. })).map(|event| (event.actor, event.token)).collect();
    assert_eq!(tokens, [(A, Some(33)), (B, Some(34))], "A keeps the lock, B comes after it");
}

#[test]
fn sentinel_promotes_the_replica_of_a_primary_it_cannot_see() {
    // Finding 1: a primary cut off for 15 s was never replaced; B just waited.
    let trace = run(&Scenario { faults: vec![cut(L1, 1_000, 15_000, None)], ..preset("redis-failover") }).unwrap();
    assert_eq!(of(&trace, L2, |kind| matches!(kind, Kind::Promoted { .. })).first().map(|(t_us, _)| *t_us), Some(3_000_000));
    assert_eq!(of(&trace, L1, |kind| matches!(kind, Kind::Demoted { .. })).first().map(|(t_us, _)| *t_us), Some(16_000_000));
}

#[test]
fn a_split_brain_has_two_primaries_granting_until_the_heal() {
    let trace = run(&preset("redis-split-brain")).unwrap();
    let granted = |node| of(&trace, node, |kind| matches!(kind, Kind::Granted { .. }));
    let promoted = of(&trace, L2, |kind| matches!(kind, Kind::Promoted { .. }))[0].0;
    let demoted = of(&trace, L1, |kind| matches!(kind, Kind::Demoted { .. }))[0].0;
    assert!(granted(L1).iter().any(|(t_us, _)| (promoted..demoted).contains(t_us)), "the old primary grants after the promotion");
    assert!(granted(L2).iter().any(|(t_us, _)| (promoted..demoted).contains(t_us)), "so does the new one");
    assert!(granted(L1).iter().all(|(t_us, _)| *t_us < demoted), "the demoted one grants nothing more");
}

#[test]
fn a_partition_of_one_link_leaves_the_others_open() {
    // L1 cut off from L2 only: it keeps its majority with L3 and stays leader.
    let trace = run(&Scenario { faults: vec![cut(L1, 1_000, 20_000, Some(L2))], ..preset("consensus-leader-crash") }).unwrap();
    assert!(of(&trace, L1, |kind| *kind == Kind::SteppedDown).is_empty());
    assert!(trace.events.iter().all(|event| !matches!(event.kind, Kind::Elected { .. })), "nobody else is elected");
    assert!(of(&trace, L1, |kind| matches!(kind, Kind::Granted { .. })).len() >= 2, "L1 goes on granting: A, then B");
}

#[test]
fn a_fault_pinned_to_an_event_never_changes_the_past() {
    // A click or a search pins a fault right after event k: events 0..=k
    // are those of the run without it, for every preset and every kind.
    for preset in presets::PRESETS {
        let design = Scenario { faults: Vec::new(), ..(preset.build)() };
        let base = run(&design).unwrap();
        let nodes = design.lock_service.nodes();
        for k in (0..base.events.len() as u32).step_by(7) {
            let at_ms = base.events[k as usize].t_us / 1000;
            let mut faults = vec![
                Fault::Pause { worker: A, when: When::AfterEvent(k), pause_ms: 15_000 },
                Fault::Crash { worker: B, at_ms, after_event: Some(k) },
                Fault::Partition { node: A, at_ms, for_ms: 5_000, from: None, after_event: Some(k) },
            ];
            if nodes > 0 {
                faults.push(Fault::NodeCrash { node: L1, at_ms, down_ms: 5_000, after_event: Some(k) });
            }
            for fault in faults {
                let scenario = Scenario { faults: vec![fault.clone()], ..design.clone() };
                let trace = run(&scenario).unwrap();
                // A write's fate is settled onto its send later, when the
                // store answers: what happened, and when, is the past.
                let same =
                    |trace: &fencing_sim::Trace, event: &fencing_sim::Event| (event.t_us, event.actor, event.token, trace.text(event));
                let before: Vec<_> = base.events[..=k as usize].iter().map(|event| same(&base, event)).collect();
                let after: Vec<_> = trace.events[..=k as usize].iter().map(|event| same(&trace, event)).collect();
                assert_eq!(after, before, "{}: {} changed the past", preset.id, fault.describe());
            }
        }
    }
}

#[test]
fn the_explorer_crashes_a_node_inside_the_replication_window() {
    // Finding 2: crashes were placed at the event's time rounded down to a
    // millisecond, before the grant, so this design was cleared while its
    // own preset breaks it.
    let scenario = Scenario {
        token_source: TokenSource::AtomicScript,
        redis_persistence: RedisPersistence::FsyncAlways,
        fencing: true,
        ..preset("redis-failover")
    };
    assert!(run(&scenario).unwrap().summary.stale_overwrites >= 1, "the preset breaks the design");
    let Outcome::Counterexample(found) = explore(&scenario, Property::NoStaleOverwrite, 2).unwrap() else {
        panic!("the explorer must find what the preset shows");
    };
    assert!(
        found.scenario.faults.iter().any(|fault| matches!(fault, Fault::NodeCrash { node: L1, after_event: Some(_), .. })),
        "a crash of the primary pinned right after an event: {:?}",
        found.scenario.faults
    );
    assert!(run(&found.scenario).unwrap().summary.stale_overwrites >= 1);
}

#[test]
fn pinned_faults_round_trip_through_links() {
    let scenario = Scenario {
        faults: vec![
            Fault::NodeCrash { node: L1, at_ms: 0, down_ms: 20_000, after_event: Some(3) },
            Fault::Pause { worker: A, when: When::AfterEvent(9), pause_ms: 15_000 },
            cut(L1, 1_000, 20_000, Some(L2)),
        ],
        ..preset("redis-failover")
    };
    let link =
        fencing_sim::permalink::to_query(&fencing_sim::permalink::Permalink { scenario: scenario.clone(), cursor: None, compare: None });
    assert!(
        link.contains("nodecrash:L1:0:20000@3") && link.contains("pause:A:event9:15000") && link.contains("partition:L1:1000:20000:L2"),
        "{link}"
    );
    let (parsed, notices) = fencing_sim::permalink::parse(&link);
    assert_eq!(parsed.scenario.faults, scenario.faults, "{notices:?}");
}

#[test]
fn a_restarted_redis_keeps_what_its_persistence_wrote_to_disk() {
    // Finding 6: persistence was only none or fsync always; a default Redis
    // keeps RDB snapshots (tokens repeat), and `appendfsync everysec` writes
    // before it replies, so a process crash loses nothing (a real Redis
    // killed with SIGKILL kept A's INCR: scripts/fidelity-persistence.sh).
    // A takes token 33 at once; L1 crashes at `crash_ms` for 1 s; B asks
    // after A is done, and draws what the restarted counter gives.
    let cases = [
        (RedisPersistence::None, 500, 1),
        (RedisPersistence::Rdb, 500, 33),
        (RedisPersistence::Rdb, 2_000, 33),
        (RedisPersistence::AofEverysec, 500, 34),
        (RedisPersistence::AofEverysec, 2_000, 34),
        (RedisPersistence::FsyncAlways, 500, 34),
    ];
    for (redis_persistence, crash_ms, b_token) in cases {
        let crash = Fault::NodeCrash { node: L1, at_ms: crash_ms, down_ms: 1_000, after_event: None };
        let scenario = Scenario { redis_persistence, work_ms: 3_000, start_gap_ms: 3_500, faults: vec![crash], ..presets::classic() };
        let trace = run(&scenario).unwrap();
        let token =
            trace.events.iter().find(|event| event.actor == B && matches!(event.kind, Kind::Acquired { .. })).and_then(|event| event.token);
        assert_eq!(token, Some(b_token), "{redis_persistence:?}, crash at {crash_ms} ms");
    }
}
