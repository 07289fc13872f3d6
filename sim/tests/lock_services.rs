//! The lock services' bookkeeping, each case a test that failed before its
//! fix: Redis replication and Sentinel's promotion, the three-member
//! consensus lock, and the run's own bound.

use fencing_sim::{presets, run, Actor, Fault, Kind, LockService, Scenario, Trace};

const A: Actor = Actor::Worker(0);
const L1: Actor = Actor::LockNode(0);
const L2: Actor = Actor::LockNode(1);

fn failover(faults: Vec<Fault>) -> Scenario {
    Scenario { lock_service: LockService::RedisFailover, start_gap_ms: 60_000, work_ms: 5_000, faults, ..presets::classic() }
}

fn crash(node: Actor, at_ms: u64, down_ms: u64) -> Fault {
    Fault::NodeCrash { node, at_ms, down_ms, after_event: None }
}

fn times(trace: &Trace, wanted: impl Fn(&Kind) -> bool) -> Vec<(u64, Actor)> {
    trace.events.iter().filter(|event| wanted(&event.kind)).map(|event| (event.t_us, event.actor)).collect()
}

#[test]
fn a_replica_crash_loses_no_lease_that_lives_on_the_primary() {
    let trace = run(&Scenario { faults: vec![crash(L2, 1_000, 1_000)], ..failover(Vec::new()) }).unwrap();
    assert!(times(&trace, |kind| matches!(kind, Kind::LeaseLost { .. })).is_empty(), "A's lease lives on L1");
    assert_eq!(trace.summary.zombie_writes, 0);
}

#[test]
fn a_down_replica_misses_replication_and_a_promotion_cannot_invent_the_lock() {
    // L2 is down when A's grant is replicated; L1 dies at 1 s; L2 is back
    // (with nothing) at 2.5 s and promoted at 3 s: A's lock is gone.
    let trace = run(&failover(vec![crash(L2, 0, 2_500), crash(L1, 1_000, 60_000)])).unwrap();
    let promoted: Vec<Kind> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Promoted { .. })).map(|event| event.kind).collect();
    assert_eq!(promoted, [Kind::Promoted { kept: None }]);
    assert_eq!(times(&trace, |kind| *kind == Kind::LeaseLost { holder: A }), [(3_000_000, L2)]);
}

#[test]
fn sentinel_promotes_only_a_live_replica_and_waits_for_one() {
    // L2 is down from 0 to 10 s; L1 dies at 1 s. Nobody can be promoted
    // until L2 is back; then it is, one failover delay later.
    let trace = run(&failover(vec![crash(L2, 0, 10_000), crash(L1, 1_000, 60_000)])).unwrap();
    assert_eq!(times(&trace, |kind| matches!(kind, Kind::Promoted { .. })), [(12_000_000, L2)]);
}

#[test]
fn consensus_runs_on_three_members_and_a_lone_member_commits_nothing() {
    let scenario = Scenario { lock_service: LockService::Consensus, faults: Vec::new(), ..presets::classic() };
    assert_eq!(scenario.lock_service.nodes(), 3);
    // Two of three members down from 0 to 5 s: no grant until they are back.
    let lonely = Scenario { faults: vec![crash(L2, 0, 5_000), crash(Actor::LockNode(2), 0, 5_000)], ..scenario };
    let trace = run(&lonely).unwrap();
    let granted = times(&trace, |kind| matches!(kind, Kind::Granted { .. }));
    assert!(granted.first().is_some_and(|(t_us, _)| *t_us >= 5_000_000), "{granted:?}");
}

#[test]
fn a_new_leader_keeps_the_holders_lease_and_the_revisions_grow() {
    let trace = run(&presets::build("consensus-leader-crash").unwrap()).unwrap();
    assert_eq!(times(&trace, |kind| matches!(kind, Kind::Elected { .. })), [(3_000_000, L2)]);
    assert!(times(&trace, |kind| matches!(kind, Kind::Expired { holder: A, .. } | Kind::LeaseLost { holder: A })).is_empty());
    let tokens: Vec<Option<u64>> =
        trace.events.iter().filter(|event| matches!(event.kind, Kind::Acquired { .. })).map(|event| event.token).collect();
    assert_eq!(tokens, [Some(33), Some(34)]);
}

#[test]
fn consensus_takes_clock_drift_but_refuses_a_clock_jump() {
    let consensus = Scenario { lock_service: LockService::Consensus, ..presets::classic() };
    let drift = Scenario { faults: vec![Fault::ClockDrift { node: L1, ppm: 50_000 }], ..consensus.clone() };
    assert_eq!(drift.validate(), Ok(()));
    let jump = Scenario { faults: vec![Fault::ClockJump { node: L1, at_ms: 1, jump_ms: 5_000, after_event: None }], ..consensus };
    let problems = jump.validate().unwrap_err().problems;
    assert!(problems[0].contains("monotonic clock"), "{problems:?}");
}

#[test]
fn a_run_stopped_by_its_bound_says_so() {
    let trace = run(&Scenario { events_max: 5, ..presets::classic() }).unwrap();
    assert!(trace.summary.truncated);
    assert_eq!(trace.events.len(), 6, "five events and the closing line");
    let whole = run(&presets::classic()).unwrap();
    let exact = run(&Scenario { events_max: whole.events.len() as u32, ..presets::classic() }).unwrap();
    assert!(!exact.summary.truncated, "a run that ends exactly at its bound is complete");
}

#[test]
fn the_naive_del_cascade_is_told_in_full() {
    let trace = run(&presets::build("naive-del").unwrap()).unwrap();
    assert_eq!(trace.summary.lock_lost_by_successor_release, 2);
    assert!(trace.summary.notes.iter().any(|note| note.starts_with("In all, 2 plain DELs")), "{:?}", trace.summary.notes);
    let story = presets::find("naive-del").unwrap().story;
    assert!(story.contains("B's own DEL later deletes C's"));
}

#[test]
fn a_primary_back_before_sentinel_gives_up_stays_primary() {
    // L1 is down from 1 s to 2 s; Sentinel would promote at 3 s. It does
    // not: L1 answers again (with nothing, it kept no data).
    let trace = run(&failover(vec![crash(L1, 1_000, 1_000)])).unwrap();
    assert!(times(&trace, |kind| matches!(kind, Kind::Promoted { .. })).is_empty());
    assert_eq!(times(&trace, |kind| matches!(kind, Kind::NodeUp { role: fencing_sim::event::NodeRole::Serving })), [(2_000_000, L1)]);
}
