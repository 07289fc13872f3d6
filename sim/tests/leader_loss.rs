//! Each consensus service notices a lost leader by its own timers (issue
//! 41): etcd after its election timeout (the scenario's `failover_ms`),
//! ZooKeeper after `syncLimit` × `tickTime` (5 × 2 s with Debian's zoo.cfg),
//! Consul after Raft's heartbeat timeout × `raft_multiplier` (1 s × 5). The
//! ZooKeeper and Consul tests failed on the model that elected every
//! service's new leader `failover_ms` (1 s in these stories) after the cut.

use fencing_sim::scenario::Fault;
use fencing_sim::{presets, run, Actor, Kind, LockService, Scenario, Trace};

const L1: Actor = Actor::LockNode(0);

/// The partitioned-leader story (L1 cut off from both followers at 3 s)
/// on `service`, the cut held for 40 s so that no heal comes first.
fn partitioned(service: LockService) -> Scenario {
    let mut scenario = presets::build("consensus-partitioned-leader").expect("preset");
    scenario.lock_service = service;
    for fault in &mut scenario.faults {
        if let Fault::Partition { for_ms, .. } = fault {
            *for_ms = 40_000;
        }
    }
    scenario
}

/// The leader-crash story (L1 down at 2 s for 60 s) on `service`.
fn crashed(service: LockService) -> Scenario {
    Scenario { lock_service: service, ..presets::build("consensus-leader-crash").expect("preset") }
}

fn first_us(trace: &Trace, wanted: impl Fn(&fencing_sim::Event) -> bool) -> u64 {
    trace.events.iter().find(|event| wanted(event)).map(|event| event.t_us).expect("it happens")
}

fn elected_us(trace: &Trace) -> u64 {
    first_us(trace, |event| matches!(event.kind, Kind::Elected { .. }))
}

fn stepped_down_us(trace: &Trace) -> u64 {
    first_us(trace, |event| event.actor == L1 && event.kind == Kind::SteppedDown)
}

/// The new leader comes `loss_ms` after the leader was lost, and no sooner.
fn assert_elected_after(trace: &Trace, lost_us: u64, loss_ms: u64) {
    let elected = elected_us(trace);
    assert!(elected >= lost_us + loss_ms * 1000, "elected at {elected} µs, lost at {lost_us} µs");
    assert!(elected < lost_us + loss_ms * 1000 + 5_000, "elected at {elected} µs, lost at {lost_us} µs");
}

#[test]
fn zookeeper_followers_elect_a_new_leader_sync_limit_ticks_after_the_cut() {
    let scenario = partitioned(LockService::ZooKeeper);
    assert_eq!(LockService::ZooKeeper.leader_loss_ms(scenario.failover_ms), 10_000);
    let trace = run(&scenario).unwrap();
    assert_elected_after(&trace, 3_000_000, 10_000);
    // The leader steps down as it notices it lost its quorum of synced
    // followers: syncLimit ticks, not the scenario's 1 s.
    assert!(stepped_down_us(&trace) >= 13_000_000, "stepped down at {} µs", stepped_down_us(&trace));
}

#[test]
fn zookeeper_followers_notice_a_crashed_leader_after_sync_limit_ticks() {
    let trace = run(&crashed(LockService::ZooKeeper)).unwrap();
    assert_elected_after(&trace, 2_000_000, 10_000);
}

#[test]
fn consul_servers_elect_a_new_leader_a_scaled_heartbeat_timeout_after_the_cut() {
    let scenario = partitioned(LockService::Consul);
    assert_eq!(LockService::Consul.leader_loss_ms(scenario.failover_ms), 5_000);
    let trace = run(&scenario).unwrap();
    assert_elected_after(&trace, 3_000_000, 5_000);
    assert!(stepped_down_us(&trace) >= 8_000_000, "stepped down at {} µs", stepped_down_us(&trace));
    let crash = run(&crashed(LockService::Consul)).unwrap();
    assert_elected_after(&crash, 2_000_000, 5_000);
}

#[test]
fn etcd_keeps_the_scenarios_election_timeout() {
    for failover_ms in [1_000, 3_000] {
        let scenario = Scenario { failover_ms, ..partitioned(LockService::Consensus) };
        assert_eq!(LockService::Consensus.leader_loss_ms(failover_ms), failover_ms);
        assert_elected_after(&run(&scenario).unwrap(), 3_000_000, failover_ms);
    }
}

#[test]
fn each_services_timers_are_said_from_its_rules() {
    let words = |service: LockService| service.spec().session.expect("consensus").leader_loss.words(2_000);
    assert_eq!(words(LockService::ZooKeeper), "10.000 s (syncLimit × tickTime = 5 × 2 s)");
    assert_eq!(words(LockService::Consul), "5.000 s (Raft's heartbeat timeout × raft_multiplier = 1 s × 5)");
    assert_eq!(words(LockService::Consensus), "2.000 s (the election timeout)");
    // A service without sessions keeps the scenario's failover time.
    assert_eq!(LockService::RedisFailover.leader_loss_ms(2_000), 2_000);
}

/// Consul's blocked client after a change of leader (issue 41). Its
/// blocking query (`kv.Get` with a wait index, `api/lock.go` `Lock`) does
/// not die with the old leader: the client's agent retries a read that
/// failed against another server (`canRetry`, within `rpc_hold_timeout`,
/// 7 s), which forwards it to the new leader, and a query that only reached
/// its wait time (`DefaultLockWaitTime`, 15 s) returns unchanged and the
/// loop asks again (`goto WAIT`). So B, blocked on A's key when the leader
/// crashes, hears from the new leader when A's session is invalidated there
/// (2 × TTL after the new leader's start: `initializeSessionTimers`), waits
/// out the lock-delay in 5 s retries, and takes the lock: it is not left
/// waiting on the dead leader.
#[test]
fn a_client_blocked_on_a_consul_key_hears_from_the_new_leader() {
    // consul-long-pause: A freezes for 40 s holding the key, B blocks on it
    // at 5 s; here L1 crashes at 12 s for good.
    let crash = Fault::NodeCrash { node: L1, at_ms: 12_000, down_ms: 600_000, after_event: None };
    let mut scenario = presets::build("consul-long-pause").expect("preset");
    scenario.faults.push(crash);
    let trace = run(&scenario).unwrap();
    let elected = elected_us(&trace);
    assert!(elected >= 17_000_000, "elected at {elected} µs: 5 s after the crash");
    let b = Actor::Worker(1);
    let blocked = first_us(&trace, |event| matches!(event.kind, Kind::AcquireFailed { .. }) && event.actor == b);
    assert!(blocked < 12_000_000, "B blocked on A's key before the crash, at {blocked} µs");
    // The new leader invalidates A's session 2 × TTL after it starts leading
    // and B's query returns from it; B's 5 s retries find the lock-delay over.
    let granted = first_us(&trace, |event| matches!(event.kind, Kind::Granted { holder, .. } if holder == b));
    let invalidated = first_us(&trace, |event| matches!(event.kind, Kind::Expired { holder: Actor::Worker(0), .. }));
    assert!(invalidated >= elected + 20_000_000, "A's session invalidated at {invalidated} µs");
    assert!(granted >= invalidated + 15_000_000 && granted < invalidated + 20_100_000, "B granted at {granted} µs");
    let woken = trace.events.iter().any(|event| {
        event.t_us >= invalidated && matches!(event.kind, Kind::Receive { body: fencing_sim::msg::Msg::KeyChanged, from, .. } if from != L1)
    });
    assert!(woken, "B's blocked query returns from the new leader");
}

/// The cut-off leader's step-down is said with its service's own timers,
/// not "an election timeout" for every consensus service (the sentence was
/// one for all before).
#[test]
fn a_leader_steps_down_after_its_own_services_timers() {
    let says = |service: LockService, how_long: &str| {
        let trace = run(&partitioned(service)).expect("the story runs");
        let event = trace.events.iter().find(|event| event.kind == Kind::SteppedDown).expect("the leader steps down");
        assert_eq!(event.actor, L1);
        let wanted = format!("L1 has not reached a majority of the members for {how_long} and steps down: it commits nothing more");
        assert_eq!(trace.text(event), wanted, "{service:?}");
    };
    says(LockService::ZooKeeper, "10.000 s (syncLimit × tickTime = 5 × 2 s)");
    says(LockService::Consul, "5.000 s (Raft's heartbeat timeout × raft_multiplier = 1 s × 5)");
    let etcd = partitioned(LockService::Consensus);
    says(LockService::Consensus, &format!("{} (the election timeout)", fencing_sim::format_us(etcd.failover_ms * 1000)));
}

/// A request in flight to the old leader when a new one is elected is
/// forwarded to the new leader on arrival (ZooKeeper's follower forwards
/// every write to its leader; an etcd follower forwards a proposal). The
/// explorer found this schedule: before, L1 — restarted, a follower by then
/// — created A's znode alone under the new epoch, and following L2 took
/// it back to an older revision (the engine's invariant in `follow`).
#[test]
fn a_request_to_the_old_leader_is_forwarded_to_the_new_one() {
    let mut scenario = Scenario { fencing: true, ..presets::build("zookeeper-gc-pause").expect("preset") };
    scenario.faults = serde_json::from_str(
        r#"[{"fault":"pause","worker":"A","when":{"before_send":2},"pause_ms":10001},
            {"fault":"node_crash","node":"L1","at_ms":5003,"down_ms":1000,"after_event":13}]"#,
    )
    .expect("the explorer's schedule");
    let trace = run(&scenario).expect("the run ends without breaking an invariant");
    let elected = elected_us(&trace);
    let to_the_service = |event: &&fencing_sim::Event| {
        event.t_us > elected && event.actor != Actor::Store && matches!(event.kind, Kind::Receive { from: Actor::Worker(0), .. })
    };
    let after: Vec<&fencing_sim::Event> = trace.events.iter().filter(to_the_service).collect();
    assert!(!after.is_empty(), "A's requests still reach the service after the election");
    assert!(after.iter().all(|event| event.actor == Actor::LockNode(1)), "handled by L2, the new leader: {after:?}");
}
